// Turns validation issues into one sentence a model can act on. Tool errors
// are returned to the model as plain text, so paths are rendered the way a
// person would write them (`items[0].name`) rather than as JSON pointers.

export type SchemaRole = 'input' | 'output';

export type ValidationResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** A compiled raw JSON Schema: always synchronous. */
export type JsonSchemaValidator = (value: unknown) => ValidationResult;

export type IssuePathSegment = PropertyKey | { readonly key: PropertyKey };

// Long lists (e.g. every branch of an anyOf) drown the useful part; the first
// few issues are enough for a model to correct its call.
const MAX_ISSUES = 8;

export function formatPath(path: readonly IssuePathSegment[]): string {
  let out = '';
  for (const segment of path) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function quotedPath(path: readonly IssuePathSegment[]): string {
  return `"${formatPath(path)}"`;
}

export function failure(role: SchemaRole, issues: readonly string[]): ValidationResult {
  const unique = [...new Set(issues)];
  const shown = unique.slice(0, MAX_ISSUES);
  const rest = unique.length - shown.length;
  const body = shown.length > 0 ? shown.join('; ') : 'value does not match the schema';
  const prefix = role === 'input' ? 'Invalid arguments' : 'Invalid output';
  return { ok: false, message: `${prefix}: ${body}${rest > 0 ? ` (and ${rest} more)` : ''}` };
}

export function success(value: unknown): ValidationResult {
  return { ok: true, value };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
