import { ErrorCode } from './errors.js';
import type { JsonRpcErrorResponse, JsonRpcMessage, RequestId } from './messages.js';

export interface DecodeLimits {
  /** Largest accepted frame, in UTF-16 code units of the JSON text (≈ bytes for ASCII). */
  maxMessageSize: number;
  /** Deepest accepted nesting of arrays/objects. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: DecodeLimits = { maxMessageSize: 4 * 1024 * 1024, maxDepth: 64 };

/** What one inbound frame turned into. */
export interface Decoded {
  /** Valid messages, in order. */
  messages: JsonRpcMessage[];
  /** True when the frame was a JSON array (a batch). */
  batch: boolean;
  /** Error responses to send back for the invalid parts of the frame. */
  errors: JsonRpcErrorResponse[];
  /**
   * Malformed responses. They are never answered: an error response would carry the id of one
   * of *our* requests back to the peer, which would take it as the answer to its own request
   * with that id. The engine reports them locally instead.
   */
  badResponses: BadResponse[];
}

export interface BadResponse {
  /** The id, when it could be read (it names one of our pending requests). */
  id: RequestId | null;
  reason: string;
}

export function errorResponse(id: RequestId | null | undefined, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  const error = data === undefined ? { code, message } : { code, message, data };
  // Ids that could not be read are sent as null: every SDK in the field parses that, while an
  // absent id is only allowed from 2025-11-25 on.
  return { jsonrpc: '2.0', id: id ?? null, error };
}

/**
 * Like decodeFrame, for a value already parsed from JSON (an HTTP body): a string here is a JSON
 * string, never text to parse again, so `"hello"` is an invalid request (-32600), not a parse error.
 */
export function decodeValue(value: unknown, limits: DecodeLimits = DEFAULT_LIMITS, textLength?: number): Decoded {
  if (typeof value === 'string') return fail(null, ErrorCode.InvalidRequest, NOT_AN_OBJECT);
  return decodeFrame(value, limits, textLength);
}

/**
 * Turns a frame (raw JSON text, or a value a memory transport already holds) into validated
 * JSON-RPC messages. Never throws: every problem becomes an error response.
 */
export function decodeFrame(frame: unknown, limits: DecodeLimits = DEFAULT_LIMITS, textLength?: number): Decoded {
  let value: unknown = frame;
  if (typeof frame === 'string') {
    if (frame.length > limits.maxMessageSize) {
      return fail(null, ErrorCode.InvalidRequest, `Message too large: ${frame.length} bytes exceeds the limit of ${limits.maxMessageSize}`);
    }
    try {
      value = JSON.parse(frame);
    } catch (e) {
      return fail(null, ErrorCode.ParseError, `Parse error: ${(e as Error).message}`);
    }
    // A text of n characters cannot nest deeper than n/2, so short frames skip the walk.
    if (frame.length > limits.maxDepth * 2 && exceedsDepth(value, limits.maxDepth)) {
      return fail(peekId(value), ErrorCode.InvalidRequest, `Message nested deeper than the limit of ${limits.maxDepth}`);
    }
    // A value parsed from a text of `textLength` characters: a short one is not walked either.
  } else if (!(textLength !== undefined && textLength <= limits.maxDepth * 2) && exceedsDepth(value, limits.maxDepth)) {
    return fail(peekId(value), ErrorCode.InvalidRequest, `Message nested deeper than the limit of ${limits.maxDepth}`);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return fail(null, ErrorCode.InvalidRequest, 'Invalid request: empty batch');
    const out: Decoded = { messages: [], batch: true, errors: [], badResponses: [] };
    for (const item of value) invalid(item, validateMessage(item), out);
    return out;
  }
  const out: Decoded = { messages: [], batch: false, errors: [], badResponses: [] };
  invalid(value, validateMessage(value), out);
  return out;
}

const NOT_AN_OBJECT = 'Invalid request: a JSON-RPC message must be an object';

/** Files one validated item: a message, an error to answer, or a bad response to report. */
function invalid(item: unknown, r: JsonRpcMessage | string, out: Decoded): void {
  if (typeof r !== 'string') out.messages.push(r);
  else if (looksLikeResponse(item)) out.badResponses.push({ id: peekId(item), reason: r });
  else out.errors.push(errorResponse(peekId(item), ErrorCode.InvalidRequest, r));
}

function looksLikeResponse(v: unknown): boolean {
  return !!v && typeof v === 'object' && !Array.isArray(v) && !('method' in v) && ('result' in v || 'error' in v);
}

function fail(id: RequestId | null, code: number, message: string): Decoded {
  return { messages: [], batch: false, errors: [errorResponse(id, code, message)], badResponses: [] };
}

function isId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

function peekId(v: unknown): RequestId | null {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const id = (v as { id?: unknown }).id;
    if (isId(id)) return id;
  }
  return null;
}

/** Returns the message, or a sentence saying why it is not one. Unknown fields are kept. */
export function validateMessage(v: unknown): JsonRpcMessage | string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return NOT_AN_OBJECT;
  const m = v as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'Invalid request: "jsonrpc" must be "2.0"';
  const hasId = 'id' in m;
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') return 'Invalid request: "method" must be a non-empty string';
    if (m.params !== undefined && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params))) {
      return 'Invalid request: "params" must be an object';
    }
    if (hasId && !isId(m.id)) return 'Invalid request: "id" must be a string or an integer (never null)';
    return m as unknown as JsonRpcMessage;
  }
  // A response.
  if ('result' in m) {
    if (!isId(m.id)) return 'Invalid response: "id" must be a string or an integer';
    if (m.result === null || typeof m.result !== 'object' || Array.isArray(m.result)) return 'Invalid response: "result" must be an object';
    return m as unknown as JsonRpcMessage;
  }
  if ('error' in m) {
    const e = m.error as Record<string, unknown> | null;
    if (!e || typeof e !== 'object' || !Number.isInteger(e.code) || typeof e.message !== 'string') {
      return 'Invalid response: "error" must have an integer "code" and a string "message"';
    }
    if (m.id !== undefined && m.id !== null && !isId(m.id)) return 'Invalid response: bad "id"';
    return m as unknown as JsonRpcMessage;
  }
  return 'Invalid request: neither a request, a notification nor a response';
}

/**
 * Iterative for large limits, so that a hostile frame cannot overflow the stack while being
 * measured; recursive (no allocation) when the limit itself bounds the recursion.
 */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (maxDepth <= 256) return deeper(value, 1, maxDepth);
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > maxDepth) return true;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
    } else {
      for (const k in v as object) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
      }
    }
  }
  return false;
}

function deeper(v: object, d: number, maxDepth: number): boolean {
  if (d > maxDepth) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x !== null && typeof x === 'object' && deeper(x, d + 1, maxDepth)) return true;
    }
  } else {
    for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object' && deeper(x, d + 1, maxDepth)) return true;
    }
  }
  return false;
}

/** Compact JSON: no embedded newlines, as stdio framing requires. */
export function encodeMessage(m: JsonRpcMessage | JsonRpcMessage[]): string {
  return JSON.stringify(m);
}
