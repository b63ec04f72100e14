import type { HeaderMap, HttpRequestView, HttpResponder } from './exchange.js';

/** A JSON-RPC-shaped error body for transport-level refusals, so MCP clients can show it. */
export function sendError(res: HttpResponder, status: number, message: string, code = -32600, headers: HeaderMap = {}): void {
  res.send(status, { ...headers, 'content-type': 'application/json' }, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** Whether an Accept header admits a media type (absent header admits everything). */
export function accepts(accept: string | undefined, type: 'application/json' | 'text/event-stream'): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  const [major] = type.split('/');
  for (const part of accept.split(',')) {
    const media = part.split(';')[0].trim().toLowerCase();
    if (media === type || media === '*/*' || media === `${major}/*`) return true;
  }
  return false;
}

/** Whether an Accept header names `type` itself (wildcards do not count). */
export function names(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((part) => part.split(';')[0].trim().toLowerCase() === type);
}

export function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return false;
  // The common spellings first: no split, no lower-casing, no garbage.
  if (ct === 'application/json' || ct === 'application/json; charset=utf-8') return true;
  return ct.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** What an Accept header allows, as bits (see `negotiate`). */
export const ACCEPT_JSON = 1;
export const ACCEPT_SSE = 2;
/** The header names text/event-stream itself, not through a wildcard. */
export const NAMES_SSE = 4;

/**
 * Clients send one of a handful of Accept values, over and over: parsing each value once and
 * caching the answer saves three splits and a lower-casing of every part on every POST. The cache
 * is bounded (a client cycling through random values only refills it).
 */
const acceptCache = new Map<string, number>();

/** ACCEPT_JSON | ACCEPT_SSE | NAMES_SSE for an Accept header (absent: everything, naming nothing). */
export function negotiate(accept: string | undefined): number {
  if (accept === undefined) return ACCEPT_JSON | ACCEPT_SSE;
  let bits = acceptCache.get(accept);
  if (bits !== undefined) return bits;
  bits =
    (accepts(accept, 'application/json') ? ACCEPT_JSON : 0) |
    (accepts(accept, 'text/event-stream') ? ACCEPT_SSE : 0) |
    (names(accept, 'text/event-stream') ? NAMES_SSE : 0);
  if (acceptCache.size >= 64) acceptCache.clear();
  acceptCache.set(accept, bits);
  return bits;
}

/** A value no JSON text can parse to, marking "already answered". */
export const REFUSED: unique symbol = Symbol('refused');

/**
 * Reads and parses a JSON body within `limit` bytes. On failure it answers (413, or 400 with
 * -32700) and returns REFUSED, so callers only deal with the parsed value.
 */
export async function readJsonBody(req: HttpRequestView, res: HttpResponder, limit: number): Promise<unknown> {
  return parseJsonBody(await req.readBody(limit), res, limit);
}

/**
 * readJsonBody's second half, for a body already read (`undefined`: over `limit`): the hot POST
 * path awaits `readBody` itself, one async function and its promise fewer per request.
 */
export function parseJsonBody(body: string | undefined, res: HttpResponder, limit: number): unknown {
  if (body === undefined) {
    sendError(res, 413, `Payload Too Large: the body exceeds ${limit} bytes`);
    return REFUSED;
  }
  try {
    return JSON.parse(body);
  } catch (e) {
    sendError(res, 400, `Parse error: ${(e as Error).message}`, -32700);
    return REFUSED;
  }
}
