// Raw JSON Schema validation needs ajv, the largest dependency by far, and most servers never
// use it (Standard Schemas validate themselves). So ajv is loaded by dynamic import the first
// time a raw JSON Schema is compiled, and from then on compiles synchronously as before.
import type { JsonSchemaValidator, SchemaRole } from './format.js';

type JsonSchemaCompiler = (schema: Record<string, unknown>, role: SchemaRole) => JsonSchemaValidator;

let compiler: JsonSchemaCompiler | undefined;
let loading: Promise<JsonSchemaCompiler> | undefined;

/** Called by json-schema.ts when it is evaluated. */
export function provideJsonSchemaCompiler(c: JsonSchemaCompiler): void {
  compiler = c;
}

/** The compiler if ajv is already loaded, else undefined (and the load is under way). */
export function jsonSchemaCompiler(): JsonSchemaCompiler | undefined {
  if (compiler === undefined) void loadJsonSchemaSupport().catch(() => {});
  return compiler;
}

/**
 * Loads ajv for raw JSON Schemas. Not needed for validation to work (the first validation
 * waits for it); await it before registering tools with raw JSON Schemas to have a schema
 * ajv rejects reported at registration rather than at its first call.
 */
export function loadJsonSchemaSupport(): Promise<JsonSchemaCompiler> {
  if (compiler !== undefined) return Promise.resolve(compiler);
  return (loading ??= import('./json-schema.js').then(
    (m) => m.compileJsonSchema,
    (e: unknown) => {
      loading = undefined; // a later call tries again
      throw e;
    },
  ));
}
