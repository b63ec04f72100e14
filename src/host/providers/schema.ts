// Tool schemas as each model API accepts them. An MCP server's inputSchema is ordinary JSON Schema
// (2020-12 by default); the model APIs accept subsets of it and refuse a whole request over one
// keyword they do not know. These pure functions turn an inputSchema into what a provider accepts,
// keeping as much meaning as possible: a constraint the target cannot express moves into the
// description, so the model still reads it. docs/host.md has the table of rules.
//
// Shared rules: schema-common.ts. OpenAI strict mode: schema-strict.ts. Gemini: schema-gemini.ts.
import { normalizeRoot, type JsonSchema } from './schema-common.js';

/** Anthropic: JSON Schema as it is, with the shared root rules. */
export function sanitizeForAnthropic(schema: Record<string, unknown>): JsonSchema {
  return normalizeRoot(schema);
}

/** OpenAI without strict mode (and every OpenAI-compatible server): JSON Schema with the shared root rules. */
export function sanitizeForOpenAI(schema: Record<string, unknown>): JsonSchema {
  return normalizeRoot(schema);
}

export { dropNullOptionals, isStrictCompatible, restoreStrictArguments, sanitizeForOpenAIStrict } from './schema-strict.js';
export { sanitizeForGemini } from './schema-gemini.js';
