// OpenAPI schemas (3.0's dialect, 3.1's JSON Schema 2020-12, 2.0's converted ones) as the JSON
// Schema 2020-12 a tool's inputSchema is: local `$ref`s inlined, recursion cut at a bounded depth
// (the circular specs that crash converters which inline without a bound load here), 3.0-only
// keywords rewritten (nullable, boolean exclusiveMinimum, example), annotations that only
// documentation generators read dropped, and read-only properties left out of inputs.
import { OpenApiError } from './errors.js';
import type { OpenApiDocument } from './load.js';

type Obj = Record<string, unknown>;
export type JsonSchema = Obj;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Formats the validator knows; any other is dropped (it would only be warned about, never checked). */
const FORMATS = new Set(
  'date time date-time iso-time iso-date-time duration uri uri-reference uri-template url email hostname ipv4 ipv6 regex uuid json-pointer json-pointer-uri-fragment relative-json-pointer byte int32 int64 float double password binary'.split(
    ' ',
  ),
);

/** Keywords whose value is one schema. */
const ONE = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'];
/** Keywords whose value is a list of schemas. */
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
const MAP = ['properties', 'patternProperties', 'dependentSchemas'];
/** Dropped: documentation-only, or meaningless once refs are inlined. */
const DROP = new Set([
  'discriminator',
  'xml',
  'externalDocs',
  'example',
  'nullable',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$comment',
  '$defs',
  'definitions',
]);

export interface SchemaOptions {
  /**
   * How many times a `$ref` may appear inside its own expansion before it is cut (replaced by a
   * schema accepting anything, with a note in its description). Default 1: a recursive type is
   * expanded once, then cut.
   */
  circularDepth?: number;
  /** Nesting depth of `$ref`s after which any reference is cut (bounds huge inlined schemas). Default 12. */
  maxRefDepth?: number;
}

/** Converts one document's schemas; caches every expansion that needed no cut. */
export class SchemaConverter {
  private readonly cache = new Map<string, JsonSchema>();
  private cut = false;
  private readonly circularDepth: number;
  private readonly maxRefDepth: number;

  constructor(
    private readonly doc: OpenApiDocument,
    options: SchemaOptions = {},
  ) {
    this.circularDepth = options.circularDepth ?? 1;
    this.maxRefDepth = options.maxRefDepth ?? 12;
  }

  /** The object a local `$ref` points at. External refs are refused: nothing is fetched. */
  resolveRef(ref: string, where: string): unknown {
    if (!ref.startsWith('#')) {
      throw new OpenApiError(
        `${where}: external $ref "${ref}" is not supported (only references inside the document, "#/components/..."); bundle the spec into one file first, e.g. \`npx @redocly/cli bundle\``,
      );
    }
    let node: unknown = this.doc;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = isObj(node) || Array.isArray(node) ? (node as Obj)[token] : undefined;
      if (node === undefined) throw new OpenApiError(`${where}: $ref "${ref}" points at nothing in the document`);
    }
    return node;
  }

  /** Follows `$ref` chains of non-schema objects (parameters, request bodies). */
  deref(value: unknown, where: string): Obj | undefined {
    let node = value;
    for (let i = 0; i < 32 && isObj(node) && typeof node.$ref === 'string'; i++) node = this.resolveRef(node.$ref, where);
    return isObj(node) ? node : undefined;
  }

  /** A JSON Schema for an OpenAPI schema; `input` leaves read-only properties out. */
  convert(schema: unknown, where: string, input = true): JsonSchema {
    return this.walk(schema, [], where, input) as JsonSchema;
  }

  private walk(node: unknown, stack: string[], where: string, input: boolean): JsonSchema | boolean {
    if (typeof node === 'boolean') return node;
    if (!isObj(node)) return {};
    if (typeof node.$ref === 'string') return this.reference(node, stack, where, input);
    const out: Obj = {};
    for (const [k, v] of Object.entries(node)) {
      if (DROP.has(k) || k.startsWith('x-')) continue;
      if (ONE.includes(k)) out[k] = this.walk(v, stack, where, input);
      else if (MANY.includes(k) && Array.isArray(v)) out[k] = v.map((s) => this.walk(s, stack, where, input));
      else if (MAP.includes(k) && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, this.walk(s, stack, where, input)]));
      else if (k === 'items') out.items = Array.isArray(v) ? undefined : this.walk(v, stack, where, input);
      else if (k === 'format') {
        if (typeof v === 'string' && FORMATS.has(v)) out.format = v;
      } else if (k === 'exclusiveMinimum' || k === 'exclusiveMaximum') {
        // 3.0 (draft 4): a boolean modifying minimum/maximum; 2020-12: the bound itself.
        if (typeof v === 'number') out[k] = v;
      } else out[k] = v;
    }
    if (Array.isArray(node.items)) out.prefixItems = node.items.map((s) => this.walk(s, stack, where, input));
    if (out.items === undefined) delete out.items;
    if (node.exclusiveMinimum === true && typeof node.minimum === 'number') {
      out.exclusiveMinimum = node.minimum;
      delete out.minimum;
    }
    if (node.exclusiveMaximum === true && typeof node.maximum === 'number') {
      out.exclusiveMaximum = node.maximum;
      delete out.maximum;
    }
    if (node.example !== undefined && out.examples === undefined) out.examples = [node.example];
    if (input && isObj(out.properties)) dropReadOnly(out);
    return node.nullable === true ? nullable(out) : out;
  }

  private reference(node: Obj, stack: string[], where: string, input: boolean): JsonSchema | boolean {
    const ref = node.$ref as string;
    const name = ref.slice(ref.lastIndexOf('/') + 1);
    const seen = stack.filter((r) => r === ref).length;
    let expanded: JsonSchema | boolean;
    if (seen >= this.circularDepth || stack.length >= this.maxRefDepth) {
      this.cut = true;
      const why = seen > 0 ? `recursive reference to ${name}` : `reference to ${name} nested ${stack.length} deep`;
      expanded = { description: `${why}: not expanded further (any value accepted here)` };
    } else {
      const key = `${input ? 'i' : 'o'}${ref}`;
      const cached = this.cache.get(key);
      if (cached !== undefined) expanded = cached;
      else {
        const outer = this.cut;
        this.cut = false;
        expanded = this.walk(this.resolveRef(ref, where), [...stack, ref], where, input);
        if (!this.cut && isObj(expanded)) this.cache.set(key, expanded);
        this.cut ||= outer;
      }
    }
    // 3.1 allows keywords beside $ref (a description, nullable...): they refine the target.
    const siblings = Object.keys(node).filter((k) => k !== '$ref');
    if (siblings.length === 0) return expanded;
    const { $ref: _r, ...rest } = node;
    const own = this.walk(rest, stack, where, input) as Obj;
    return typeof expanded === 'boolean' ? own : { ...expanded, ...own };
  }
}

function nullable(s: Obj): Obj {
  if (typeof s.type === 'string')
    return { ...s, type: [s.type, 'null'], ...(Array.isArray(s.enum) && !s.enum.includes(null) ? { enum: [...s.enum, null] } : {}) };
  return { anyOf: [s, { type: 'null' }] };
}

/** A client cannot set a read-only property: it is not asked for. */
function dropReadOnly(s: Obj): void {
  const props = s.properties as Obj;
  const gone = Object.keys(props).filter((k) => isObj(props[k]) && (props[k] as Obj).readOnly === true);
  if (gone.length === 0) return;
  const kept: Obj = {};
  for (const [k, v] of Object.entries(props)) if (!gone.includes(k)) kept[k] = v;
  s.properties = kept;
  if (Array.isArray(s.required)) s.required = s.required.filter((r) => !gone.includes(r as string));
}
