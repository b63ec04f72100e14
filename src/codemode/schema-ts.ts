// JSON Schema to TypeScript type text, for the declarations code mode shows a model. The aim is
// a type a model reads correctly at a glance, not a checker's proof: every keyword that shapes
// a value (type, enum/const, properties/required, items, additionalProperties, anyOf/oneOf/allOf,
// local $ref) becomes a type, descriptions and a few value hints (default, format, bounds)
// become doc comments, and anything it cannot express (a $ref it cannot follow, a cycle, depth
// past the limit) becomes `unknown`, which is never wrong.

/** A JSON Schema as tools carry it: an object (or `true`/`false`). */
export type JsonSchema = Record<string, unknown> | boolean;

export interface TsOptions {
  /** Nesting beyond this is `unknown`. Default 8. */
  maxDepth?: number;
  /** Characters of a description kept in a comment. Default 400. */
  maxDescription?: number;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript writes it: bare when it can be, quoted otherwise. */
export function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

/** Text made safe for a `/** ... *\/` comment: no comment end, whitespace runs kept to one line break. */
export function commentText(text: string, max: number): string {
  let t = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{2,}/g, '\n')
    .trim();
  if (t.length > max) t = `${t.slice(0, max).trimEnd()}…`;
  return t.replace(/\*\//g, '*\\/');
}

/** A doc comment at `indent`, one line when the text has one. */
export function docComment(text: string, indent: string): string {
  const lines = text.split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function literal(v: unknown): string {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  return 'unknown';
}

/** Whether a type has a `|` or `&` outside brackets and strings (it needs parentheses before `[]` or `&`). */
function compound(type: string): boolean {
  let depth = 0;
  let quote = false;
  for (let i = 0; i < type.length; i++) {
    const c = type[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === '"') quote = false;
    } else if (c === '"') quote = true;
    else if (c === '{' || c === '[' || c === '(' || c === '<') depth++;
    else if (c === '}' || c === ']' || c === ')' || c === '>') depth--;
    else if ((c === '|' || c === '&') && depth === 0) return true;
  }
  return false;
}

/** Wraps a union or intersection in parentheses where a postfix or tighter operator follows. */
function paren(type: string): string {
  return compound(type) ? `(${type})` : type;
}

function unionOf(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  if (unique.length === 0) return 'never';
  return unique.join(' | ');
}

/** What a property's comment says: its description and value hints a type cannot carry. */
function hints(schema: Record<string, unknown>, max: number): string {
  const parts: string[] = [];
  if (typeof schema.description === 'string' && schema.description.trim() !== '') parts.push(commentText(schema.description, max));
  else if (typeof schema.title === 'string' && schema.title.trim() !== '') parts.push(commentText(schema.title, max));
  const extra: string[] = [];
  if (schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'))) extra.push('integer');
  if (typeof schema.format === 'string') extra.push(`format: ${schema.format}`);
  for (const [k, label] of [
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
  ] as const) {
    // Bounds a schema library adds to every integer (the safe-integer range) say nothing.
    const v = schema[k];
    if (typeof v === 'number' && Math.abs(v) < Number.MAX_SAFE_INTEGER) extra.push(`${label} ${v}`);
  }
  if (typeof schema.pattern === 'string' && schema.pattern.length <= 60) extra.push(`pattern ${commentText(schema.pattern, 60)}`);
  if (schema.default !== undefined) {
    const d = JSON.stringify(schema.default);
    if (d !== undefined && d.length <= 60) extra.push(`default ${commentText(d, 60)}`);
  }
  if (extra.length > 0) parts.push(`(${extra.join(', ')})`);
  return parts.join(' ');
}

class Emitter {
  private readonly maxDepth: number;
  private readonly maxDescription: number;
  /** The $refs being expanded: one met again is a cycle. */
  private readonly expanding: string[] = [];

  constructor(
    private readonly root: JsonSchema,
    options: TsOptions,
  ) {
    this.maxDepth = options.maxDepth ?? 8;
    this.maxDescription = options.maxDescription ?? 400;
  }

  /** The schema a local `#/...` pointer names, or undefined. */
  private resolve(ref: string): JsonSchema | undefined {
    if (ref === '#') return this.root;
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = this.root;
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
      node = node[key];
    }
    return isObject(node) || typeof node === 'boolean' ? node : undefined;
  }

  type(schema: unknown, depth: number, indent: string): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (!isObject(schema) || depth > this.maxDepth) return 'unknown';
    if (typeof schema.$ref === 'string') {
      const ref = schema.$ref;
      const target = this.resolve(ref);
      if (target === undefined || this.expanding.includes(ref)) return 'unknown';
      this.expanding.push(ref);
      try {
        return this.type(target, depth + 1, indent);
      } finally {
        this.expanding.pop();
      }
    }
    let type = this.bare(schema, depth, indent);
    if (schema.nullable === true && type !== 'unknown' && !/\bnull\b/.test(type)) type = `${type} | null`;
    return type;
  }

  private bare(schema: Record<string, unknown>, depth: number, indent: string): string {
    if (Object.hasOwn(schema, 'const')) return literal(schema.const);
    if (Array.isArray(schema.enum)) return unionOf(schema.enum.map(literal));
    const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (alternatives) {
      const own = this.byType(schema, depth, indent);
      const options = unionOf(alternatives.map((s) => this.type(s, depth + 1, indent)));
      return own === 'unknown' ? options : options === 'unknown' ? own : `${paren(own)} & (${options})`;
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      const parts = schema.allOf.map((s) => this.type(s, depth + 1, indent)).filter((t) => t !== 'unknown');
      const own = this.byType(schema, depth, indent);
      if (own !== 'unknown') parts.unshift(own);
      return parts.length === 0 ? 'unknown' : parts.map(paren).join(' & ');
    }
    return this.byType(schema, depth, indent);
  }

  private byType(schema: Record<string, unknown>, depth: number, indent: string): string {
    const declared = Array.isArray(schema.type)
      ? schema.type.filter((t): t is string => typeof t === 'string')
      : typeof schema.type === 'string'
        ? [schema.type]
        : [];
    let types = declared;
    if (types.length === 0) {
      if (isObject(schema.properties) || schema.additionalProperties !== undefined) types = ['object'];
      else if (schema.items !== undefined || Array.isArray(schema.prefixItems)) types = ['array'];
      else return 'unknown';
    }
    return unionOf(types.map((t) => this.single(t, schema, depth, indent)));
  }

  private single(type: string, schema: Record<string, unknown>, depth: number, indent: string): string {
    switch (type) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return this.array(schema, depth, indent);
      case 'object':
        return this.object(schema, depth, indent);
      default:
        return 'unknown';
    }
  }

  private array(schema: Record<string, unknown>, depth: number, indent: string): string {
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    if (tuple) return `[${tuple.map((s) => this.type(s, depth + 1, indent)).join(', ')}]`;
    const item = this.type(schema.items, depth + 1, indent);
    return `${paren(item)}[]`;
  }

  /** An object type, one property a line with its comment. */
  object(schema: Record<string, unknown>, depth: number, indent: string): string {
    const props = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
    const inner = `${indent}  `;
    let body = '';
    for (const [key, sub] of Object.entries(props)) {
      const about = isObject(sub) ? hints(sub, this.maxDescription) : '';
      if (about !== '') body += docComment(about, inner);
      body += `${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${this.type(sub, depth + 1, inner)};\n`;
    }
    const extra = schema.additionalProperties;
    if (isObject(extra) || (Object.keys(props).length === 0 && extra !== false)) {
      body += `${inner}[key: string]: ${this.type(isObject(extra) ? extra : true, depth + 1, inner)};\n`;
    }
    return body === '' ? '{}' : `{\n${body}${indent}}`;
  }
}

/** The TypeScript type of values `schema` accepts, laid out for a declaration at `indent`. */
export function schemaToType(schema: unknown, options: TsOptions = {}, indent = ''): string {
  const root: JsonSchema = isObject(schema) || typeof schema === 'boolean' ? schema : true;
  return new Emitter(root, options).type(root, 0, indent);
}

/** The description of a schema's top level as doc-comment text (used for a tool's result). */
export function schemaHints(schema: unknown, max = 400): string {
  return isObject(schema) ? hints(schema, max) : '';
}
