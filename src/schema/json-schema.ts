import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { detectDialect, type JsonSchemaDialect } from './dialect.js';
import { failure, quotedPath, success, type IssuePathSegment, type JsonSchemaValidator, type SchemaRole } from './format.js';
import { provideJsonSchemaCompiler } from './json-schema-support.js';

// ajv-formats is CommonJS whose module.exports is the plugin and also carries
// a `.default` pointing at itself; under NodeNext the type checker only sees
// the namespace, so `.default` is the spelling that is right in both worlds.
const addFormats = addFormatsModule.default;

type AjvInstance = Ajv | Ajv2020;
const instances = new Map<JsonSchemaDialect, AjvInstance>();

function ajvFor(dialect: JsonSchemaDialect): AjvInstance {
  let ajv = instances.get(dialect);
  if (!ajv) {
    // `loadSchema` is deliberately absent: a server must never fetch a remote
    // `$ref` named by a schema, so such refs fail at compile time instead.
    // `addUsedSchema: false` keeps each compiled schema out of the shared
    // registry, so two tools may reuse the same `$id` without clashing.
    // The logger drops ajv's "Error compiling schema" dump (the whole generated function, on
    // stderr): the error it goes with is thrown, and reported, anyway.
    const logger = {
      log: console.log,
      warn: console.warn,
      error: (...args: unknown[]) => {
        if (!/^Error compiling schema/.test(String(args[0]))) console.error(...args);
      },
    };
    const options = { allErrors: true, strict: false, addUsedSchema: false, logger } as const;
    ajv = dialect === 'draft-07' ? new Ajv(options) : new Ajv2020(options);
    addFormats(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

// Keyed on the caller's schema object so re-registering the same schema (say,
// one schema shared by many tools) reuses the generated code. Mutating a
// schema after it was compiled is not supported.
const compiled = new WeakMap<object, ValidateFunction>();

function compileWithAjv(schema: Record<string, unknown>): ValidateFunction {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const dialect = detectDialect(schema);
  const ajv = ajvFor(dialect);
  // The dialect is already chosen by the instance; handing ajv a `$schema` it
  // spells differently (https vs http, missing '#') would make it look the
  // meta-schema up by that exact string and fail.
  const { $schema: _ignored, ...body } = schema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof EvalError || /code generation from strings/i.test(reason)) throw codeGenerationRefused(error);
    const missing = /can't resolve reference (\S+)/i.exec(reason)?.[1];
    const hint =
      missing === undefined
        ? ''
        : missing.startsWith('#')
          ? ' (no such definition in this schema)'
          : ' (only local references such as "#/$defs/Name" are supported; remote schemas are never fetched)';
    throw new TypeError(`Invalid JSON Schema: ${reason}${hint}`);
  } finally {
    // ajv's own cache holds schemas strongly forever; ours is weak.
    ajv.removeSchema(body);
  }
  compiled.set(schema, validate);
  return validate;
}

/**
 * ajv validates by generating code, which some runtimes refuse: Cloudflare Workers (workerd)
 * everywhere but while a module loads, Node under --disallow-code-generation-from-strings, pages
 * whose CSP lacks 'unsafe-eval'. ajv's own message carries the whole generated function: say
 * what happened and what works instead.
 */
function codeGenerationRefused(error: unknown): Error {
  return new Error(
    'Cannot validate a plain JSON Schema here: this runtime refuses to generate code from strings at this point, ' +
      'and ajv (which mcpkit uses for plain JSON Schemas) validates with generated code. On Cloudflare Workers, ' +
      'register such tools while the module loads (build the McpServer at the top level, also for a Durable Object), ' +
      'or describe the input with a Standard Schema (zod, valibot, arktype), which needs no generated code',
    { cause: error },
  );
}

function pointerToPath(pointer: string): IssuePathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((token) => (/^(0|[1-9]\d*)$/.test(token) ? Number(token) : token));
}

function describeValues(values: unknown): string {
  if (!Array.isArray(values)) return JSON.stringify(values);
  const listed = values.slice(0, 10).map((v) => JSON.stringify(v));
  return listed.join(', ') + (values.length > 10 ? ', ...' : '');
}

function describeAjvError(error: ErrorObject): string {
  const path = pointerToPath(error.instancePath);
  const at = path.length > 0 ? quotedPath(path) : 'value';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${quotedPath([...path, String(params.missingProperty)])} is required`;
    case 'dependentRequired':
    case 'dependencies':
      return `${quotedPath([...path, String(params.missingProperty)])} is required when ` + `${quotedPath([...path, String(params.property)])} is present`;
    case 'additionalProperties':
      return `${quotedPath([...path, String(params.additionalProperty)])} is not an allowed property`;
    case 'unevaluatedProperties':
      return `${quotedPath([...path, String(params.unevaluatedProperty)])} is not an allowed property`;
    case 'enum':
      return `${at} must be one of ${describeValues(params.allowedValues)}`;
    case 'const':
      return `${at} must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${at} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Compiles a raw JSON Schema with the shared ajv instance for its dialect.
 * Throws a TypeError at compile time for unknown dialects, invalid schemas
 * and unresolvable (including remote) `$ref`s.
 */
export function compileJsonSchema(schema: Record<string, unknown>, role: SchemaRole): JsonSchemaValidator {
  const validate = compileWithAjv(schema);
  return (value) => {
    if (validate(value)) return success(value);
    return failure(role, (validate.errors ?? []).map(describeAjvError));
  };
}

// Whoever imports this module (statically, or through loadJsonSchemaSupport) makes raw JSON
// Schemas compile synchronously from then on.
provideJsonSchemaCompiler(compileJsonSchema);
