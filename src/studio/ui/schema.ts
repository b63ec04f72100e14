// Reading JSON Schemas for the forms: local $refs, the ways nullability is spelled (a type list
// with "null", an anyOf/oneOf with a null branch, OpenAPI's `nullable: true`), the branches of a
// union, and the value a new field starts with.
export type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v);

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root). */
export function deref(schema: unknown, root: Schema, depth = 0): Schema {
  if (!isObj(schema)) return schema === false ? { not: {} } : {};
  const ref = schema.$ref;
  if (typeof ref !== 'string' || depth > 32) return schema;
  if (!ref.startsWith('#')) return { ...schema, $ref: undefined, description: `${String(schema.description ?? '')} (remote $ref ${ref} not followed)`.trim() };
  let target: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObj(target) ? target[key] : undefined;
  }
  const { $ref: _, ...rest } = schema;
  return { ...deref(target, root, depth + 1), ...rest };
}

export function typesOf(s: Schema): string[] {
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === 'string');
  if (typeof s.type === 'string') return [s.type];
  if (isObj(s.properties)) return ['object'];
  if (s.items !== undefined) return ['array'];
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map(jsonType))];
  if ('const' in s) return [jsonType(s.const)];
  return [];
}

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const isNullBranch = (b: unknown, root: Schema) => {
  const s = deref(b, root);
  return s.type === 'null' || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null) || s.const === null;
};

/**
 * The schema with null split off: `{ base, nullable }`. The base keeps every keyword of the
 * original (title, description, default) except the null-spelling ones.
 */
export function splitNull(schema: Schema, root: Schema): { base: Schema; nullable: boolean } {
  const s = deref(schema, root);
  if (s.nullable === true) {
    const { nullable: _, ...rest } = s;
    return { base: rest, nullable: true };
  }
  if (Array.isArray(s.type) && s.type.includes('null')) {
    const others = s.type.filter((t) => t !== 'null');
    const base: Schema = { ...s, type: others.length === 1 ? others[0] : others };
    // A nullable enum often lists null among its values too.
    if (Array.isArray(s.enum)) base.enum = s.enum.filter((v) => v !== null);
    return { base, nullable: true };
  }
  if (Array.isArray(s.enum) && s.enum.includes(null) && s.enum.length > 1) return { base: { ...s, enum: s.enum.filter((v) => v !== null) }, nullable: true };
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches) || !branches.some((b) => isNullBranch(b, root))) continue;
    const rest = branches.filter((b) => !isNullBranch(b, root));
    const { [key]: _, ...outer } = s;
    const base = rest.length === 1 ? { ...deref(rest[0], root), ...pick(outer, ['title', 'description', 'default']) } : { ...outer, [key]: rest };
    return { base, nullable: true };
  }
  return { base: s, nullable: false };
}

function pick(s: Schema, keys: string[]): Schema {
  const out: Schema = {};
  for (const k of keys) if (s[k] !== undefined) out[k] = s[k];
  return out;
}

/** The branches of a union (anyOf/oneOf), or undefined. */
export function unionOf(s: Schema): { key: 'anyOf' | 'oneOf'; branches: Schema[] } | undefined {
  for (const key of ['oneOf', 'anyOf'] as const) {
    const b = s[key];
    if (Array.isArray(b) && b.length > 0) return { key, branches: b.filter(isObj) };
  }
  return undefined;
}

/** A short name for a union branch. */
export function branchLabel(b: Schema, root: Schema, i: number): string {
  const s = deref(b, root);
  if (typeof s.title === 'string') return s.title;
  if ('const' in s) return JSON.stringify(s.const);
  const props = isObj(s.properties) ? Object.keys(s.properties) : [];
  const types = typesOf(s);
  if (types[0] === 'object' && props.length > 0) return `{ ${props.slice(0, 3).join(', ')}${props.length > 3 ? ', …' : ''} }`;
  return types.join(' | ') || `option ${i + 1}`;
}

/** The branch a value most likely belongs to (first whose type and required keys fit). */
export function branchFor(value: unknown, branches: Schema[], root: Schema): number {
  if (value === undefined) return 0;
  const t = jsonType(value);
  for (let i = 0; i < branches.length; i++) {
    const s = deref(branches[i], root);
    const types = typesOf(s);
    if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) continue;
    if (types.length > 0 && !types.includes(t) && !(t === 'integer' && types.includes('number'))) continue;
    if (t === 'object' && Array.isArray(s.required) && !s.required.every((k) => isObj(value) && k in value)) continue;
    return i;
  }
  return 0;
}

/** The value a field starts with: its default, its const, or an empty value of its type (undefined for optional fields). */
export function initialValue(schema: Schema, root: Schema, required: boolean): unknown {
  const s = deref(schema, root);
  if (s.default !== undefined) return structuredClone(s.default);
  if ('const' in s) return s.const;
  if (!required) return undefined;
  const { base, nullable } = splitNull(s, root);
  if (nullable && base.default === undefined) return null;
  const u = unionOf(base);
  if (u) return initialValue(u.branches[0], root, true);
  if (Array.isArray(base.enum) && base.enum.length > 0) return base.enum[0];
  switch (typesOf(base)[0]) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isObj(base.properties) ? base.properties : {};
      const req = Array.isArray(base.required) ? base.required : [];
      for (const [k, p] of Object.entries(props)) {
        const v = initialValue(p as Schema, root, req.includes(k));
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return undefined;
    default:
      return undefined;
  }
}

/** An `{}`-ish root for a tool: its inputSchema, or an empty object schema. */
export function rootOf(schema: unknown): Schema {
  return isObj(schema) ? schema : { type: 'object', properties: {} };
}

export { isObj };
