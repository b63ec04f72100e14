import type { StandardSchemaV1 } from '@standard-schema/spec';
import { failure, isPlainObject, success, type SchemaRole, type ValidationResult } from './format.js';
import { detectDialect } from './dialect.js';
import { jsonSchemaCompiler, loadJsonSchemaSupport } from './json-schema-support.js';
import {
  compileShape,
  compileStandard,
  isStandardSchema,
  isStandardSchemaShape,
  shapeToJsonSchema,
  standardToJsonSchema,
  type StandardSchemaShape,
} from './standard.js';

/** Anything `compileSchema` understands; `undefined` means "no schema". */
export type SchemaInput = StandardSchemaV1 | StandardSchemaShape | Record<string, unknown>;

export interface CompileSchemaOptions {
  /**
   * `input` (default) for tool/prompt arguments, `output` for structured
   * results. Picks which side of a transforming schema is described and,
   * for `input`, enforces MCP's rule that the schema is `type: "object"`.
   */
  readonly role?: SchemaRole;
  /**
   * JSON Schema to advertise for a Standard Schema that cannot produce one
   * itself (or to override what it produces). Validation still goes through
   * the Standard Schema.
   */
  readonly jsonSchema?: Record<string, unknown>;
}

export interface CompiledSchema {
  /** The JSON Schema to advertise (tools/list, prompts, elicitation). */
  readonly jsonSchema: Record<string, unknown>;
  /**
   * Validates and, for Standard Schemas, returns the library's output value
   * (defaults filled, coercions applied). Returns a plain result whenever the
   * underlying validation is synchronous (always for JSON Schema and for zod
   * without async refinements) and a Promise only for async Standard Schemas,
   * so hot paths pay for no microtask: `const r = c.validate(v);
   * const res = r instanceof Promise ? await r : r;` or simply `await`.
   * With role `input`, omitted arguments (`undefined`) are validated as `{}`
   * because MCP lets a client leave `arguments` out.
   */
  readonly validate: (value: unknown) => ValidationResult | Promise<ValidationResult>;
}

/** What a tool without an input schema advertises. Frozen: it is shared. */
export const EMPTY_OBJECT_SCHEMA: Readonly<{ type: 'object' }> = Object.freeze({ type: 'object' });

function describeType(schema: Record<string, unknown>): string {
  if (schema.type !== undefined) return `type ${JSON.stringify(schema.type)}`;
  const combinator = ['anyOf', 'oneOf', 'allOf', '$ref'].find((k) => k in schema);
  return combinator ? `"${combinator}" without a top-level type` : 'no "type"';
}

function assertObjectSchema(jsonSchema: Record<string, unknown>, role: SchemaRole): void {
  if (role !== 'input' || jsonSchema.type === 'object') return;
  throw new TypeError(
    `An MCP input schema must be a JSON Schema with type "object" at the top level, ` +
      `but this one has ${describeType(jsonSchema)}; wrap the arguments in an object schema`,
  );
}

function compileEmpty(role: SchemaRole): CompiledSchema {
  return {
    jsonSchema: EMPTY_OBJECT_SCHEMA,
    validate: (value) => {
      const input = role === 'input' && value === undefined ? {} : value;
      return isPlainObject(input) ? success(input) : failure(role, ['value must be object']);
    },
  };
}

/**
 * A raw JSON Schema compiled once ajv has loaded: validations before that wait for it (and
 * report a schema ajv refuses); afterwards `validate` is the synchronous validator itself.
 */
function deferredJsonSchema(schema: Record<string, unknown>, role: SchemaRole): CompiledSchema {
  const compiled: { jsonSchema: Record<string, unknown>; validate: CompiledSchema['validate'] } = {
    jsonSchema: schema,
    validate: (value) => ready.then(() => compiled.validate(value)),
  };
  const ready = loadJsonSchemaSupport().then((compile) => {
    const check = compile(schema, role);
    compiled.validate = role === 'input' ? (value) => check(value === undefined ? {} : value) : check;
  });
  ready.catch(() => {}); // reported by the validations that wait for it
  return compiled;
}

/**
 * Compiles a schema once, at registration time. Accepts a Standard Schema
 * (zod 4, valibot, arktype...), a shape of Standard Schemas, a raw JSON Schema
 * (2020-12 by default, or draft-07 via `$schema`) or `undefined`.
 * Throws a TypeError for anything that could never validate correctly, so
 * mistakes surface when a tool is registered rather than when it is called
 * (for a raw JSON Schema, errors only ajv finds surface at registration once
 * ajv is loaded, see loadJsonSchemaSupport, and otherwise at the first call).
 */
export function compileSchema(schema: SchemaInput | undefined, opts: CompileSchemaOptions = {}): CompiledSchema {
  const role = opts.role ?? 'input';
  if (schema === undefined) return compileEmpty(role);

  let jsonSchema: Record<string, unknown>;
  let check: (value: unknown) => ValidationResult | Promise<ValidationResult>;

  if (isStandardSchema(schema)) {
    jsonSchema = opts.jsonSchema ?? standardToJsonSchema(schema, role);
    check = compileStandard(schema, role);
  } else if (isStandardSchemaShape(schema)) {
    jsonSchema = opts.jsonSchema ?? shapeToJsonSchema(schema, role);
    check = compileShape(schema, role);
  } else if (isPlainObject(schema)) {
    const members = Object.values(schema);
    if (members.length === 0) {
      // `{}` as a tool schema almost always means "no arguments" (it is what a
      // shape with no members looks like), not JSON Schema's "anything".
      return compileEmpty(role);
    }
    if (members.some(isStandardSchema)) {
      throw new TypeError('A schema shape must contain only Standard Schemas (e.g. { name: z.string() }); ' + 'this object mixes them with other values');
    }
    if (opts.jsonSchema) {
      throw new TypeError('The jsonSchema option only applies to Standard Schemas');
    }
    jsonSchema = schema;
    detectDialect(schema); // an unknown dialect is refused now, whether or not ajv is loaded
    assertObjectSchema(jsonSchema, role);
    const compile = jsonSchemaCompiler();
    if (compile === undefined) return deferredJsonSchema(schema, role);
    check = compile(schema, role);
  } else {
    throw new TypeError(
      `Expected a Standard Schema, a shape of Standard Schemas or a JSON Schema object, got ${
        schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema
      }`,
    );
  }

  assertObjectSchema(jsonSchema, role);
  const validate = role === 'input' ? (value: unknown) => check(value === undefined ? {} : value) : check;
  return { jsonSchema, validate };
}
