// Gemini's function declarations take an OpenAPI 3.0 Schema object, not JSON Schema, and its
// OpenAI-compatible endpoint converts the `parameters` it receives into one: what the conversion
// does not know is refused with a 400 for the whole request. So the subset here is small and
// conservative: references are inlined (Gemini has no $ref), a type is a single name (a nullable
// one says `nullable: true`), enums are strings, and every other constraint becomes words in the
// description.
import { constraintNote, describe, isObject, type JsonSchema, normalizeRoot, resolveRef } from './schema-common.js';

/** Keywords kept (OpenAPI 3.0 Schema fields Gemini documents); the rest are dropped or noted. */
const KEPT = new Set([
  'type',
  'format',
  'description',
  'title',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
]);

/** Dropped keywords that still tell the model something, noted in the description. */
const NOTED = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
  'examples',
]);

/** Formats Gemini accepts, per type; another format is noted in the description. */
const FORMATS: Record<string, Set<string>> = {
  string: new Set(['enum', 'date-time']),
  integer: new Set(['int32', 'int64']),
  number: new Set(['float', 'double']),
};

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

export interface GeminiOptions {
  /** How many times one `$ref` may be expanded inside itself before the recursion is cut (default 3). */
  maxRefDepth?: number;
}

/** The schema Gemini's endpoint accepts, made from an MCP inputSchema. Pure. */
export function sanitizeForGemini(schema: Record<string, unknown>, options: GeminiOptions = {}): JsonSchema {
  const root = normalizeRoot(schema);
  const out = geminiNode(root, root, new Map(), options.maxRefDepth ?? 3);
  out.type = 'object';
  if (!isObject(out.properties)) out.properties = {};
  return out;
}

function geminiNode(input: JsonSchema, root: JsonSchema, refDepth: Map<string, number>, maxRefDepth: number): JsonSchema {
  if (typeof input.$ref === 'string') {
    const ref = input.$ref;
    const target = resolveRef(root, ref);
    const depth = refDepth.get(ref) ?? 0;
    if (target === undefined || depth >= maxRefDepth) {
      // A broken reference, or a recursive one cut at the limit: an object the model may leave out.
      const cut: JsonSchema = { type: 'object', nullable: true };
      describe(cut, target === undefined ? `unresolved reference ${ref}` : 'nested further than this host expands; leave null');
      return cut;
    }
    const { $ref: _, ...siblings } = input;
    const inner = new Map(refDepth).set(ref, depth + 1);
    const resolved = geminiNode({ ...target, ...siblings }, root, inner, maxRefDepth);
    return resolved;
  }
  const node: JsonSchema = { ...input };
  if (Array.isArray(node.oneOf)) node.anyOf = [...((node.anyOf as unknown[]) ?? []), ...node.oneOf];
  if (Array.isArray(node.allOf)) {
    // Merge object branches (the common "base + extension" use); other branches are lost.
    for (const b of node.allOf) {
      if (!isObject(b)) continue;
      const branch = geminiNode(b, root, refDepth, maxRefDepth);
      if (isObject(branch.properties)) node.properties = { ...(isObject(node.properties) ? node.properties : {}), ...branch.properties };
      if (Array.isArray(branch.required)) node.required = [...new Set([...((node.required as string[]) ?? []), ...(branch.required as string[])])];
      node.type ??= branch.type;
      if (typeof branch.description === 'string' && node.description === undefined) node.description = branch.description;
    }
  }
  if ('const' in node) {
    node.enum = [node.const];
  }
  // A type list: `["string","null"]` is a nullable string; several real types become anyOf.
  if (Array.isArray(node.type)) {
    const types = (node.type as unknown[]).filter((t): t is string => typeof t === 'string');
    const real = types.filter((t) => t !== 'null');
    if (types.includes('null')) node.nullable = true;
    if (real.length === 1) node.type = real[0];
    else {
      delete node.type;
      if (real.length > 1) node.anyOf = real.map((t) => ({ ...typeOnly(node, t) }));
    }
  }
  if (node.type === 'null') {
    delete node.type;
    node.nullable = true;
  }
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (KEPT.has(key)) out[key] = value;
    else if (NOTED.has(key)) notes.push(constraintNote(key, value));
  }
  if (notes.length > 0) describe(out, notes.join(', '));
  if (typeof out.type === 'string' && !TYPES.has(out.type)) delete out.type;
  if (Array.isArray(out.anyOf)) collapseAnyOf(out, root, refDepth, maxRefDepth);
  if (Array.isArray(out.enum)) geminiEnum(out);
  if (typeof out.format === 'string' && !FORMATS[String(out.type)]?.has(out.format)) {
    describe(out, constraintNote('format', out.format));
    delete out.format;
  }
  if (isObject(out.properties)) {
    const props: JsonSchema = {};
    for (const [name, p] of Object.entries(out.properties)) if (isObject(p)) props[name] = geminiNode(p, root, refDepth, maxRefDepth);
    out.properties = props;
    out.type ??= 'object';
    if (Array.isArray(out.required)) {
      // Gemini refuses a required name that is not a property.
      const required = (out.required as unknown[]).filter((n): n is string => typeof n === 'string' && n in props);
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
  } else delete out.required;
  if (isObject(out.items)) out.items = geminiNode(out.items, root, refDepth, maxRefDepth);
  else if (out.type === 'array') out.items = { type: 'string', description: 'any value' };
  else delete out.items;
  return out;
}

function typeOnly(node: JsonSchema, type: string): JsonSchema {
  const branch: JsonSchema = { type };
  if (type === 'object' && node.properties !== undefined) branch.properties = node.properties;
  if (type === 'array' && node.items !== undefined) branch.items = node.items;
  return branch;
}

/**
 * anyOf: a branch that is only `null` becomes `nullable: true`; a single branch left is merged
 * into the node; otherwise the branches are converted (Gemini accepts anyOf of full schemas).
 */
function collapseAnyOf(out: JsonSchema, root: JsonSchema, refDepth: Map<string, number>, maxRefDepth: number): void {
  const branches = (out.anyOf as unknown[]).filter(isObject).map((b) => geminiNode(b, root, refDepth, maxRefDepth));
  const real = branches.filter((b) => !(b.nullable === true && b.type === undefined && b.anyOf === undefined && b.enum === undefined));
  if (real.length < branches.length) out.nullable = true;
  delete out.anyOf;
  if (real.length === 1) {
    const [only] = real;
    for (const [k, v] of Object.entries(only)) {
      if (k === 'description' && typeof out.description === 'string') continue;
      if (!(k in out)) out[k] = v;
    }
  } else if (real.length > 1) {
    out.anyOf = real;
    delete out.type;
  }
}

/** Gemini enums are strings with `type: "string"`; an enum of other values is described instead. */
function geminiEnum(out: JsonSchema): void {
  const values = (out.enum as unknown[]).filter((v) => v !== null);
  if ((out.enum as unknown[]).includes(null)) out.nullable = true;
  if (values.length > 0 && values.every((v) => typeof v === 'string') && (out.type === undefined || out.type === 'string')) {
    out.enum = values;
    out.type = 'string';
    return;
  }
  delete out.enum;
  describe(out, `one of: ${values.map((v) => JSON.stringify(v)).join(', ')}`);
  if (out.type === undefined) {
    const kinds = new Set(values.map((v) => (Number.isInteger(v) ? 'integer' : typeof v)));
    const [only] = [...kinds];
    if (kinds.size === 1 && TYPES.has(only)) out.type = only;
  }
}
