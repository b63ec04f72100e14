import type { JsonObject } from '../jsonrpc/messages.js';
import { META } from './modern.js';
import { MODERN_VERSIONS } from './versions.js';

/** The two ways a request is served: after an `initialize` handshake, or stateless (2026-07-28 on). */
export type Era = 'handshake' | 'modern';

/**
 * The one place that decides which era an inbound request belongs to. Whoever first sees the
 * request calls it once (the HTTP core, with the MCP-Protocol-Version header; the server session
 * for stream transports, without) and passes the answer on with the message; no layer above
 * decides again.
 *
 * Modern when the body carries the 2026-07-28 envelope (also under a header naming another
 * revision: the envelope reader then reports the mismatch or the unsupported version, with the
 * supported list), when the header names a modern revision, or when the method exists only in
 * that era. Everything else is the handshake era. A response (no `method`) has only the header
 * to go by.
 */
export function requestEra(method: string | undefined, params: JsonObject | undefined, headerVersion?: string): Era {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (meta !== undefined && meta !== null && typeof meta === 'object' && META.protocolVersion in meta) return 'modern';
  if (headerVersion !== undefined && isModernVersion(headerVersion)) return 'modern';
  return method === 'server/discover' || method === 'subscriptions/listen' ? 'modern' : 'handshake';
}

/** Whether `v` names a stateless-era revision this toolkit knows. */
export function isModernVersion(v: string): boolean {
  return (MODERN_VERSIONS as readonly string[]).includes(v);
}
