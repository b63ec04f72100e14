// `key=value` tool arguments typed by the tool's inputSchema: `message=123` stays the string a
// string parameter wants, `n=5` becomes a number. Without a schema, or for a parameter whose
// type the schema does not say, a value that parses as JSON is sent as that JSON.
import { UsageError } from './args.js';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';
const JSON_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

/** A parameter's types, from `type` or from every branch of `anyOf`/`oneOf`; undefined when unknown. */
function typesOf(schema: unknown): Set<JsonType> | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const s = schema as { type?: unknown; anyOf?: unknown; oneOf?: unknown };
  if (typeof s.type === 'string') return JSON_TYPES.has(s.type) ? new Set([s.type as JsonType]) : undefined;
  if (Array.isArray(s.type)) return s.type.every((t) => JSON_TYPES.has(t)) && s.type.length > 0 ? new Set(s.type as JsonType[]) : undefined;
  const alts = s.anyOf ?? s.oneOf;
  if (!Array.isArray(alts) || alts.length === 0) return undefined;
  const all = new Set<JsonType>();
  for (const alt of alts) {
    const t = typesOf(alt);
    if (!t) return undefined;
    for (const x of t) all.add(x);
  }
  return all;
}

/** The schema of parameter `key`: its property, else a typed `additionalProperties`. */
function parameterSchema(schema: unknown, key: string): unknown {
  if (!schema || typeof schema !== 'object') return undefined;
  const s = schema as { properties?: Record<string, unknown>; additionalProperties?: unknown };
  if (s.properties && Object.hasOwn(s.properties, key)) return s.properties[key];
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

function parseJson(raw: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(raw) };
  } catch {
    return undefined;
  }
}

function matches(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'null':
      return value === null;
  }
}

const EXPECTED: Record<JsonType, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a JSON array',
  object: 'a JSON object',
  null: 'null',
};

/**
 * The value of `key=raw` for a tool whose inputSchema is `schema`. A value the parameter's type
 * cannot take is a UsageError naming the parameter.
 */
export function coerceArgument(key: string, raw: string, schema: unknown): unknown {
  const types = typesOf(parameterSchema(schema, key));
  const parsed = parseJson(raw);
  if (!types) return parsed ? parsed.value : raw;
  // A string parameter takes the text as typed: `message=123` means "123".
  if (types.size === 1 && types.has('string')) return raw;
  if (parsed && typeof parsed.value !== 'string' && [...types].some((t) => matches(parsed.value, t))) return parsed.value;
  if (types.has('string')) return raw;
  const expected = [...types].map((t) => EXPECTED[t]).join(' or ');
  throw new UsageError(`${key}: expected ${expected}, got '${raw}'`);
}
