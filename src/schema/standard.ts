import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { failure, isPlainObject, isThenable, quotedPath, success, type IssuePathSegment, type SchemaRole, type ValidationResult } from './format.js';

/** A plain object whose values are all Standard Schemas, e.g. `{ q: z.string() }`. */
export type StandardSchemaShape = { readonly [key: string]: StandardSchemaV1 };

/**
 * The value a schema (or a shape of them) accepts: what code must hand it, as opposed to what it
 * produces. A shape member that accepts `undefined` may be left out, as `compileShape` allows.
 */
export type InferSchemaInput<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<S>
  : S extends StandardSchemaShape
    ? Flatten<
        { [K in keyof S as undefined extends StandardSchemaV1.InferInput<S[K]> ? never : K]: StandardSchemaV1.InferInput<S[K]> } & {
          [K in keyof S as undefined extends StandardSchemaV1.InferInput<S[K]> ? K : never]?: StandardSchemaV1.InferInput<S[K]>;
        }
      >
    : unknown;

/** The value a schema (or a shape of them) produces once it has validated. */
export type InferSchemaOutput<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends StandardSchemaShape
    ? { [K in keyof S]: StandardSchemaV1.InferOutput<S[K]> }
    : unknown;

// One object type instead of an intersection, so editors show the fields.
type Flatten<T> = { [K in keyof T]: T[K] } & {};

type MaybeAsync<T> = T | Promise<T>;
type StandardResult = StandardSchemaV1.Result<unknown>;

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return typeof props === 'object' && props !== null && typeof (props as { validate?: unknown }).validate === 'function';
}

/** True for a non-empty plain object whose every value is a Standard Schema. */
export function isStandardSchemaShape(value: unknown): value is StandardSchemaShape {
  if (!isPlainObject(value) || isStandardSchema(value)) return false;
  const members = Object.values(value);
  return members.length > 0 && members.every(isStandardSchema);
}

/** What a schema that yields no JSON Schema can do about it, where tools and prompts take one. */
const COMPILE_REMEDY = 'pass one alongside it with compileSchema(schema, { jsonSchema: {...} })';

/**
 * Asks the schema library for its JSON Schema through the Standard JSON
 * Schema interface (zod >= 4.2, valibot and arktype adapters). `$schema` is
 * removed: MCP already defaults to 2020-12, and several clients and model
 * providers reject tool parameter schemas that carry the keyword.
 */
export function standardToJsonSchema(schema: StandardSchemaV1, role: SchemaRole, remedy = COMPILE_REMEDY): Record<string, unknown> {
  const props = schema['~standard'] as Partial<StandardJSONSchemaV1.Props>;
  const converter = props.jsonSchema;
  const convert = converter?.[role];
  if (typeof convert !== 'function') {
    throw new TypeError(
      `This ${props.vendor ?? 'unknown'} schema does not implement Standard JSON Schema ` +
        `("~standard.jsonSchema"), so its JSON Schema cannot be derived; ` +
        remedy,
    );
  }
  let produced: Record<string, unknown>;
  try {
    produced = convert.call(converter, { target: 'draft-2020-12' });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`Cannot convert this ${props.vendor ?? 'unknown'} schema to JSON Schema (${reason}); ` + remedy);
  }
  const { $schema: _dropped, ...rest } = produced;
  return rest;
}

// A key is "missing" rather than "wrong" when its parent object lacks it;
// saying so beats a vendor message like "expected string, received undefined".
function missingKey(input: unknown, path: readonly IssuePathSegment[]): boolean {
  if (path.length === 0) return false;
  let parent = input;
  for (const segment of path.slice(0, -1)) {
    if (!isPlainObject(parent) && !Array.isArray(parent)) return false;
    const key = typeof segment === 'object' ? segment.key : segment;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  const last = path[path.length - 1];
  const key = typeof last === 'object' ? last.key : last;
  return isPlainObject(parent) && typeof key === 'string' && !Object.hasOwn(parent, key);
}

function describeIssues(issues: readonly StandardSchemaV1.Issue[], input: unknown, prefix: readonly IssuePathSegment[] = []): string[] {
  return issues.map((issue) => {
    const path = [...prefix, ...(issue.path ?? [])];
    if (path.length === 0) return issue.message;
    if (missingKey(input, path)) return `${quotedPath(path)} is required`;
    return `${quotedPath(path)}: ${issue.message}`;
  });
}

export type StandardValidator = (value: unknown) => MaybeAsync<ValidationResult>;

/** Validates with `~standard.validate`, staying synchronous when the library is. */
export function compileStandard(schema: StandardSchemaV1, role: SchemaRole): StandardValidator {
  const std = schema['~standard'];
  const finish = (input: unknown, result: StandardResult): ValidationResult =>
    result.issues ? failure(role, describeIssues(result.issues, input)) : success(result.value);
  return (value) => {
    const result = std.validate(value);
    return isThenable(result) ? Promise.resolve(result).then((r) => finish(value, r)) : finish(value, result);
  };
}

interface Member {
  readonly key: string;
  readonly std: StandardSchemaV1.Props;
}

// A member may be left out when it accepts `undefined`. For the output role a
// member with a default always ends up present, so it stays required there.
// Async-only libraries cannot answer synchronously; they are treated as
// required, which is the safe direction for advertising a schema.
function isOptional(schema: StandardSchemaV1, role: SchemaRole): boolean {
  const result = schema['~standard'].validate(undefined);
  if (isThenable(result)) {
    Promise.resolve(result).catch(() => undefined);
    return false;
  }
  if (result.issues) return false;
  return role === 'input' || result.value === undefined;
}

function escapePointerToken(key: string): string {
  return encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));
}

// Member schemas are generated as standalone documents, so their local refs
// ("#", "#/$defs/x") point at their own root. Once nested under
// `properties/<key>` they must be re-rooted or they would resolve against the
// combined object schema.
function reroot(node: unknown, base: string): unknown {
  if (Array.isArray(node)) return node.map((item) => reroot(item, base));
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${base}${value.slice(1)}` : reroot(value, base);
  }
  return out;
}

export function shapeToJsonSchema(shape: StandardSchemaShape, role: SchemaRole, remedy = COMPILE_REMEDY): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [key, member] of Object.entries(shape)) {
    properties[key] = reroot(standardToJsonSchema(member, role, remedy), `#/properties/${escapePointerToken(key)}`);
    if (!isOptional(member, role)) required.push(key);
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}

/**
 * Validates each member with its own library. Keys not in the shape are
 * dropped, matching what `z.object(shape)` would do with the same shape.
 */
export function compileShape(shape: StandardSchemaShape, role: SchemaRole): StandardValidator {
  const members: Member[] = Object.entries(shape).map(([key, schema]) => ({
    key,
    std: schema['~standard'],
  }));

  const finish = (input: Record<string, unknown>, results: readonly StandardResult[]): ValidationResult => {
    const out: Record<string, unknown> = {};
    const issues: string[] = [];
    results.forEach((result, index) => {
      const { key } = members[index];
      const present = Object.hasOwn(input, key);
      if (result.issues) {
        if (!present) issues.push(`${quotedPath([key])} is required`);
        else issues.push(...describeIssues(result.issues, input, [key]));
      } else if (present || result.value !== undefined) {
        out[key] = result.value;
      }
    });
    return issues.length > 0 ? failure(role, issues) : success(out);
  };

  return (value) => {
    if (!isPlainObject(value)) {
      const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
      return failure(role, [`expected an object, received ${got}`]);
    }
    const results = members.map(({ key, std }) => std.validate(Object.hasOwn(value, key) ? value[key] : undefined));
    if (!results.some(isThenable)) return finish(value, results as StandardResult[]);
    return Promise.all(results).then((settled) => finish(value, settled));
  };
}
