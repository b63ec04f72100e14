// Which JSON Schema dialect a schema is written in. Apart from ajv (json-schema.ts) so that an
// unknown dialect is refused when a tool is registered, before ajv is loaded.

export type JsonSchemaDialect = 'draft-2020-12' | 'draft-07';

// MCP says a schema without `$schema` is 2020-12. Both URI schemes and the
// optional empty fragment appear in the wild, so they are normalised away.
const DIALECTS: ReadonlyMap<string, JsonSchemaDialect> = new Map([
  ['json-schema.org/draft/2020-12/schema', 'draft-2020-12'],
  ['json-schema.org/draft-07/schema', 'draft-07'],
]);

export function detectDialect(schema: Record<string, unknown>): JsonSchemaDialect {
  const uri = schema.$schema;
  if (uri === undefined) return 'draft-2020-12';
  if (typeof uri !== 'string') {
    throw new TypeError(`JSON Schema "$schema" must be a string, got ${typeof uri}`);
  }
  const key = uri
    .trim()
    .replace(/^https?:\/\//, '')
    .replace(/#$/, '');
  const dialect = DIALECTS.get(key);
  if (!dialect) {
    throw new TypeError(
      `Unsupported JSON Schema dialect "${uri}": use draft 2020-12 ` +
        `("https://json-schema.org/draft/2020-12/schema", the MCP default when "$schema" is omitted) ` +
        `or draft-07 ("http://json-schema.org/draft-07/schema#")`,
    );
  }
  return dialect;
}
