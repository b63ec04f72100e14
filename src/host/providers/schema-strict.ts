// OpenAI strict mode ("Structured Outputs" for function calling): the model's arguments are
// guaranteed to match the schema, but only a subset of JSON Schema is accepted, and every object
// must be closed (`additionalProperties: false`) with every property required. Optional
// properties therefore become required-but-nullable, and the model sends `null` for "absent":
// `dropNullOptionals` takes those nulls out again before the MCP server sees the arguments.
//
// Conservative on purpose (the documented subset grew over time and differs between models):
// only the keywords of KEPT survive. A schema strict mode cannot express (a free-form object, a
// value of any type, a tuple) is not forced into a wrong shape: the tool is sent without
// `strict` instead (isStrictCompatible says which).
import { cloneJson, constraintNote, describe, isObject, type JsonSchema, normalizeRoot, resolveRef } from './schema-common.js';

/** Keywords strict mode accepts (OpenAI "Supported schemas"), the rest are dropped. */
const KEPT = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** Dropped keywords that still say something to the model: they move into the description. */
const NOTED = new Set(['minLength', 'maxLength', 'uniqueItems', 'minProperties', 'maxProperties', 'default', 'examples', 'contentMediaType']);

/** The string formats strict mode accepts. */
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** Sanitised roots that are strict-compatible, mapped to the normalised original (for dropNullOptionals). */
const strictOrigins = new WeakMap<object, JsonSchema>();

class NotStrict extends Error {}

/**
 * The schema for an OpenAI tool with `strict: true`, or, when strict mode cannot express it, the
 * plain OpenAI schema (isStrictCompatible(result) is then false and the tool goes without strict).
 */
export function sanitizeForOpenAIStrict(schema: Record<string, unknown>): JsonSchema {
  const original = normalizeRoot(schema);
  const out = cloneJson(original);
  try {
    strictNode(out, out, true);
  } catch (err) {
    if (err instanceof NotStrict) return original;
    throw err;
  }
  strictOrigins.set(out, original);
  return out;
}

/** Whether `schema` came from sanitizeForOpenAIStrict as a strict schema (so the tool may be sent with `strict: true`). */
export function isStrictCompatible(schema: Record<string, unknown>): boolean {
  return strictOrigins.has(schema);
}

/**
 * Arguments a strict-mode model produced, with the `null`s it sent for optional properties
 * removed (the MCP server declared them optional, not nullable). `sanitized` is the schema
 * sanitizeForOpenAIStrict returned; for any other schema the arguments are returned unchanged.
 */
export function restoreStrictArguments(args: unknown, sanitized: Record<string, unknown>): unknown {
  const original = strictOrigins.get(sanitized);
  return original === undefined ? args : dropNullOptionals(args, original);
}

/**
 * Removes, recursively, `null` values of properties that `schema` (the original JSON Schema)
 * neither requires nor allows to be null. Pure; returns a new value.
 */
export function dropNullOptionals(value: unknown, schema: JsonSchema, root: JsonSchema = schema, depth = 0): unknown {
  const s = typeof schema.$ref === 'string' && depth < 32 ? (resolveRef(root, schema.$ref) ?? schema) : schema;
  if (Array.isArray(value)) {
    return isObject(s.items) ? value.map((v) => dropNullOptionals(v, s.items as JsonSchema, root, depth + 1)) : value;
  }
  if (!isObject(value) || !isObject(s.properties)) return value;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const prop = (s.properties as Record<string, unknown>)[key];
    if (!isObject(prop)) {
      out[key] = v;
      continue;
    }
    if (v === null && !required.has(key) && !allowsNull(prop, root)) continue;
    out[key] = dropNullOptionals(v, prop, root, depth + 1);
  }
  return out;
}

function allowsNull(schema: JsonSchema, root: JsonSchema, depth = 0): boolean {
  if (typeof schema.$ref === 'string') {
    const target = depth < 32 ? resolveRef(root, schema.$ref) : undefined;
    return target === undefined ? true : allowsNull(target, root, depth + 1);
  }
  const t = schema.type;
  if (t === 'null' || (Array.isArray(t) && t.includes('null'))) return true;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ('const' in schema) return schema.const === null;
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) return branches.some((b) => isObject(b) && allowsNull(b, root, depth + 1));
  }
  // No type at all: anything, null included.
  return t === undefined;
}

function strictNode(node: JsonSchema, root: JsonSchema, isRoot = false): void {
  if (Array.isArray(node.oneOf)) {
    // Strict mode has anyOf only; for arguments the difference (exactly one match) rarely matters.
    node.anyOf = [...((node.anyOf as unknown[]) ?? []), ...node.oneOf];
    delete node.oneOf;
  }
  if (Array.isArray(node.allOf)) {
    if (node.allOf.length !== 1 || !isObject(node.allOf[0])) throw new NotStrict();
    const [only] = node.allOf as JsonSchema[];
    delete node.allOf;
    for (const [k, v] of Object.entries(only)) if (!(k in node)) node[k] = v;
  }
  for (const key of Object.keys(node)) {
    if (KEPT.has(key)) continue;
    if (key === 'prefixItems' || key === 'patternProperties' || key === 'not' || key === 'if') throw new NotStrict();
    if (NOTED.has(key)) describe(node, constraintNote(key, node[key]));
    delete node[key];
  }
  if (typeof node.format === 'string' && !FORMATS.has(node.format)) {
    describe(node, constraintNote('format', node.format));
    delete node.format;
  }
  for (const defsKey of ['$defs', 'definitions']) {
    const defs = node[defsKey];
    if (isObject(defs)) for (const d of Object.values(defs)) if (isObject(d)) strictNode(d, root);
  }
  if (Array.isArray(node.anyOf)) {
    for (const b of node.anyOf) if (isObject(b)) strictNode(b, root);
    return;
  }
  if (typeof node.$ref === 'string') {
    // Strict mode wants a $ref alone (a description beside it is tolerated); the target is converted through $defs.
    if (resolveRef(root, node.$ref) === undefined) throw new NotStrict();
    return;
  }
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : [];
  if (types.length === 0) {
    // An enum or const carries its own type; anything else is "any value", which strict mode cannot say.
    if (Array.isArray(node.enum) || 'const' in node) return;
    throw new NotStrict();
  }
  if (types.includes('object')) {
    if (!isObject(node.properties) || Object.keys(node.properties).length === 0) {
      // A free-form object (a map of headers, say): closing it would forbid every key. At the
      // root, no properties means a tool without arguments (what MCP servers declare for one).
      if (node.additionalProperties !== false && !(isRoot && node.additionalProperties === undefined)) throw new NotStrict();
    }
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) throw new NotStrict();
    const properties = (isObject(node.properties) ? node.properties : {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    for (const [name, prop] of Object.entries(properties)) {
      if (!isObject(prop)) throw new NotStrict();
      strictNode(prop, root);
      if (!required.has(name)) properties[name] = nullable(prop);
    }
    node.properties = properties;
    node.required = Object.keys(properties);
    node.additionalProperties = false;
  }
  if (types.includes('array')) {
    if (!isObject(node.items)) throw new NotStrict();
    strictNode(node.items, root);
  }
}

/** `schema` that also accepts null (what an optional property becomes in strict mode). */
function nullable(schema: JsonSchema): JsonSchema {
  const t = schema.type;
  if (typeof t === 'string' || Array.isArray(t)) {
    const types = typeof t === 'string' ? [t] : [...(t as string[])];
    if (!types.includes('null')) types.push('null');
    const out: JsonSchema = { ...schema, type: types };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((b) => isObject(b) && b.type === 'null');
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  if (Array.isArray(schema.enum)) return schema.enum.includes(null) ? schema : { ...schema, enum: [...schema.enum, null] };
  if ('const' in schema) {
    const { const: c, ...rest } = schema;
    return { ...rest, enum: [c, null] };
  }
  // A $ref: wrapped, since siblings of $ref are not combined with it in strict mode.
  const { description, ...rest } = schema;
  const out: JsonSchema = { anyOf: [rest, { type: 'null' }] };
  if (description !== undefined) out.description = description;
  return out;
}
