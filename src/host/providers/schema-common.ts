// The shared part of tool schema sanitising (schema.ts is the entry point and explains it):
// helpers and the root rules every provider needs.
//
// The rules every provider shares: the root is an object with `properties`; `$schema`, `$id`,
// `$comment` go.

export type JsonSchema = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords no provider wants: they identify or annotate the document, they do not constrain. */
const DOCUMENT_KEYWORDS = new Set(['$schema', '$id', '$comment', '$anchor', '$dynamicAnchor', '$vocabulary']);

/** Appends `note` to a schema's description (creating it), so a dropped constraint is still read by the model. */
export function describe(schema: JsonSchema, note: string): void {
  const d = typeof schema.description === 'string' && schema.description.trim() !== '' ? schema.description.trim() : '';
  schema.description = d === '' ? note : `${d} (${note})`;
}

/** `minLength: 3` as a note for the description. */
export function constraintNote(keyword: string, value: unknown): string {
  return `${keyword}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
}

/** A deep copy of JSON data (schemas are JSON; functions or cycles are not expected and are dropped). */
export function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value ?? null)) as T;
}

/**
 * The shared root rules, on a copy: drops document keywords everywhere, makes the root
 * `type: "object"` with `properties`.
 * - A root `$ref` is replaced by its target (the definitions stay).
 * - A root without `type` but with `properties` (or nothing at all) becomes an object.
 * - A root `anyOf`/`oneOf`/`allOf` (refused at the top by OpenAI and Anthropic) is merged: the
 *   properties of every branch, required only what every branch (anyOf/oneOf) or any branch (allOf)
 *   requires, and the branches' descriptions noted.
 * - Any other root (a string, an array: not a valid MCP tool, which takes an arguments object) is
 *   wrapped as the property `input` of an object root, so one bad tool does not make the endpoint
 *   refuse the request for every tool.
 */
export function normalizeRoot(input: Record<string, unknown>): JsonSchema {
  const schema = stripDocumentKeywords(cloneJson(input)) as JsonSchema;
  if (!isObject(schema)) return { type: 'object', properties: {} };
  if (typeof schema.$ref === 'string') {
    // A root that is a reference (zod-to-json-schema's named schemas: `$ref: "#/definitions/X"`):
    // the target becomes the root, the definitions stay for the references inside it.
    const target = resolveRef(schema, schema.$ref);
    if (target !== undefined && target !== schema) {
      delete schema.$ref;
      for (const [k, v] of Object.entries(cloneJson(target))) if (!(k in schema)) schema[k] = v;
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) mergeRootBranches(schema, key);
  }
  const type = schema.type;
  const isObjectType = type === 'object' || (Array.isArray(type) && type.includes('object') && !type.some((t) => t !== 'object' && t !== 'null'));
  if (type === undefined && schema.items === undefined && schema.enum === undefined && schema.const === undefined && schema.$ref === undefined) {
    schema.type = 'object';
  } else if (isObjectType) {
    schema.type = 'object';
  } else {
    const { $defs, definitions, ...rest } = schema;
    const wrapped: JsonSchema = {
      type: 'object',
      properties: { input: rest },
      required: ['input'],
      description: 'The tool declared a non-object input schema; its input goes in "input".',
    };
    if ($defs !== undefined) wrapped.$defs = $defs;
    if (definitions !== undefined) wrapped.definitions = definitions;
    return wrapped;
  }
  if (!isObject(schema.properties)) schema.properties = {};
  if (schema.required !== undefined && !Array.isArray(schema.required)) delete schema.required;
  return schema;
}

function mergeRootBranches(schema: JsonSchema, key: 'anyOf' | 'oneOf' | 'allOf'): void {
  const branches = (schema[key] as unknown[]).filter(isObject);
  delete schema[key];
  const properties: JsonSchema = isObject(schema.properties) ? { ...schema.properties } : {};
  const own = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  let required: Set<string> | undefined;
  const notes: string[] = [];
  for (const branch of branches) {
    if (isObject(branch.properties)) for (const [name, s] of Object.entries(branch.properties)) properties[name] ??= s;
    const r = new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []);
    if (key === 'allOf') required = new Set([...(required ?? []), ...r]);
    else required = required === undefined ? r : new Set([...required].filter((n) => r.has(n)));
    if (typeof branch.description === 'string') notes.push(branch.description);
  }
  schema.properties = properties;
  const all = [...new Set([...own, ...(required ?? [])])];
  if (all.length > 0) schema.required = all;
  if (schema.type === undefined) schema.type = 'object';
  if (notes.length > 0 && key !== 'allOf') describe(schema, `one of: ${notes.join('; ')}`);
}

function stripDocumentKeywords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDocumentKeywords);
  if (!isObject(value)) return value;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(value)) {
    if (DOCUMENT_KEYWORDS.has(k)) continue;
    // `enum`/`const`/`default`/`examples` hold data, not schemas: copied as they are.
    out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : stripDocumentKeywords(v);
  }
  return out;
}

/**
 * Resolves a local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON pointer into the root).
 * Returns undefined for a remote or broken reference.
 */
export function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return isObject(node) ? node : undefined;
}
