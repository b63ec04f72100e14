import { utf8Bytes } from '../../protocol/encoding.js';
import type { AuthInfo } from '../../engine/transport.js';
import type { HttpRequestView } from './exchange.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase());
}

/** The hostname part of a Host header (`example.com:8080` → `example.com`, `[::1]:3000` → `[::1]`). */
export function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    return end > 0 ? hostHeader.slice(0, end + 1).toLowerCase() : hostHeader.toLowerCase();
  }
  const colon = hostHeader.indexOf(':');
  return (colon >= 0 ? hostHeader.slice(0, colon) : hostHeader).toLowerCase();
}

export interface OriginPolicy {
  /** Origins allowed to call the server from a browser. Default: loopback origins only. '*' allows any. */
  allowedOrigins?: readonly string[] | '*';
  /** Host header values accepted (hostnames, any port). Unset: any. `serve()` sets loopback names when bound to loopback. */
  allowedHosts?: readonly string[];
}

/**
 * DNS-rebinding and cross-site defences. Returns a sentence when the request must be refused
 * (403), undefined when it may proceed. Requests without an Origin (not from a browser) pass.
 */
export function checkOriginAndHost(req: HttpRequestView, policy: OriginPolicy): string | undefined {
  if (policy.allowedHosts) {
    const host = req.header('host');
    if (!host || !policy.allowedHosts.includes(hostnameOf(host))) {
      return `Forbidden: Host "${host ?? ''}" is not allowed for this server`;
    }
  }
  const origin = req.header('origin');
  if (origin === undefined || policy.allowedOrigins === '*') return undefined;
  if (policy.allowedOrigins) {
    return policy.allowedOrigins.includes(origin) ? undefined : `Forbidden: Origin "${origin}" is not allowed`;
  }
  let hostname: string;
  try {
    hostname = new URL(origin).hostname;
  } catch {
    return `Forbidden: Origin "${origin}" is not a valid origin`;
  }
  return isLoopbackHost(hostname) || hostname === '[::1]'
    ? undefined
    : `Forbidden: Origin "${origin}" is not allowed (only localhost origins are accepted unless configured)`;
}

/** Decides who is calling. Return undefined to refuse with 401. */
export type Authenticate = (req: HttpRequestView) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

export interface ApiKeyGuardOptions {
  /** Accepted keys, or a lookup returning the caller for a key. */
  keys: readonly string[] | ((key: string) => AuthInfo | undefined | Promise<AuthInfo | undefined>);
}

/** The key from `Authorization: Bearer`, `X-API-Key`, or the `api_key` query parameter. */
export function extractApiKey(req: HttpRequestView): string | undefined {
  const auth = req.header('authorization');
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim() || undefined;
  const header = req.header('x-api-key');
  if (header) return header;
  if (req.query) return new URLSearchParams(req.query).get('api_key') ?? undefined;
  return undefined;
}

/**
 * Compares two secrets in time that depends only on their lengths, never on where they first
 * differ, so a caller cannot find a key byte by byte by timing the answers.
 */
function sameSecret(a: string, b: string): boolean {
  const x = utf8Bytes(a);
  const y = utf8Bytes(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}

/** A ready `authenticate` hook for API keys. The principal is a short, non-secret key label. */
export function apiKeyGuard(options: ApiKeyGuardOptions): Authenticate {
  const { keys } = options;
  return async (req) => {
    const key = extractApiKey(req);
    if (!key) return undefined;
    if (typeof keys === 'function') return keys(key);
    const index = keys.findIndex((k) => sameSecret(k, key));
    return index < 0 ? undefined : { principal: `api-key-${index}`, token: key };
  };
}
