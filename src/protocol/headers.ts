/**
 * HTTP routing headers of the 2026-07-28 era (SEP-2243): `Mcp-Method`, `Mcp-Name` and the
 * `Mcp-Param-*` mirrors of tool arguments marked with `x-mcp-header`. Shared by the server's
 * validation and the client's header writing, so both encode values the same way.
 */
import { base64ToText, textToBase64 } from './encoding.js';

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Visible ASCII plus space and tab: what a received header value may hold (RFC 9110). */
const PLAIN = /^[\x20-\x7e\t]*$/;
/**
 * What a sent value may hold as-is: visible ASCII and space. A tab is a control character to
 * the value-encoding rule, so it is always Base64 even where HTTP would carry it.
 */
const SENDABLE = /^[\x20-\x7e]*$/;
/** RFC 9110 token characters, for header name suffixes. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Encodes one value for a header: plain when safe, `=?base64?…?=` otherwise. */
export function encodeHeaderValue(value: string | number | boolean): string {
  const s = String(value);
  const safe = SENDABLE.test(s) && s === s.trim() && !SENTINEL.test(s);
  return safe ? s : `=?base64?${textToBase64(s)}?=`;
}

/**
 * Decodes a received header value. Optional surrounding whitespace is not part of the value.
 * Returns undefined for a value that is malformed (bad base64 inside the sentinel, control
 * characters): the caller rejects the request.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const v = raw.trim();
  if (!PLAIN.test(v)) return undefined;
  const m = SENTINEL.exec(v);
  if (!m) return v;
  if (!BASE64.test(m[1])) return undefined;
  return base64ToText(m[1]);
}

/** Which header mirrors `Mcp-Name` for a method, and where its value lives in params. */
export function nameParamOf(method: string): 'name' | 'uri' | 'taskId' | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel') return 'taskId';
  return undefined;
}

export interface HeaderParam {
  /** Path of property names from the input schema root. */
  path: string[];
  /** The header name suffix (`Region` → `Mcp-Param-Region`). */
  header: string;
  type: 'string' | 'integer' | 'boolean';
}

/**
 * The `x-mcp-header` parameters of a tool's input schema, or a sentence saying why the
 * annotations are invalid (clients drop such tools). Only properties reachable through
 * `properties` keys count; only string, integer and boolean types; names unique regardless of case.
 */
export function headerParamsOf(inputSchema: unknown): HeaderParam[] | string {
  const out: HeaderParam[] = [];
  const seen = new Set<string>();
  const walk = (schema: unknown, path: string[]): string | undefined => {
    if (!schema || typeof schema !== 'object') return undefined;
    const props = (schema as { properties?: Record<string, unknown> }).properties;
    if (!props || typeof props !== 'object') return undefined;
    for (const [key, prop] of Object.entries(props)) {
      if (!prop || typeof prop !== 'object') continue;
      const p = prop as Record<string, unknown>;
      const name = p['x-mcp-header'];
      if (name !== undefined) {
        if (typeof name !== 'string' || name === '' || !TOKEN.test(name)) return `property "${[...path, key].join('.')}" has an invalid x-mcp-header name`;
        const lower = name.toLowerCase();
        if (seen.has(lower)) return `x-mcp-header "${name}" is used twice`;
        seen.add(lower);
        const type = p.type;
        if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
          return `x-mcp-header "${name}" is on a property of type ${JSON.stringify(type)}; only string, integer and boolean are allowed`;
        }
        out.push({ path: [...path, key], header: name, type });
      }
      const nested = walk(p, [...path, key]);
      if (nested) return nested;
    }
    return undefined;
  };
  const problem = walk(inputSchema, []);
  return problem ?? out;
}

/** The argument at `path`, or undefined. */
export function argumentAt(args: unknown, path: readonly string[]): unknown {
  let v: unknown = args;
  for (const k of path) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}
