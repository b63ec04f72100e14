/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, the MCP
 * 2025-11-25 authorization spec): a client whose `client_id` is an https URL is described by the
 * JSON document at that URL. Fetching a URL a stranger chose is an SSRF and resource risk, so it
 * is bounded: https only, no private or loopback hosts, no redirects, a size cap, a timeout, and a
 * cache, so one client's sign-ins cost one fetch. The document must name itself (`client_id`
 * equal to its URL) and may not claim a shared secret: a public document cannot keep one.
 */
import { isPrivate } from '../../client/auth/url-policy.js';
import type { Clock } from '../../engine/clock.js';
import { checkRedirectUri } from './redirect-uris.js';
import { readCapped } from '../http/read-capped.js';
import { OAuthError } from './http.js';
import type { ClientIdMetadataOptions, ClientRecord } from './options.js';

export interface ClientMetadataFetcher {
  options: Required<Omit<ClientIdMetadataOptions, 'allowInsecure'>> & { allowInsecure: boolean };
  fetch: typeof globalThis.fetch;
  clock: Clock;
  cache: Map<string, { record: ClientRecord; expires: number }>;
}

const MAX_CACHE_SEC = 86_400;
const MAX_CACHED = 1000;

export function clientMetadataFetcher(raw: ClientIdMetadataOptions, fetchImpl: typeof globalThis.fetch, clock: Clock): ClientMetadataFetcher {
  const n = (v: number | undefined, d: number, what: string) => {
    if (v === undefined) return d;
    if (typeof v !== 'number' || !(v > 0)) throw new TypeError(`authorizationServer: clientIdMetadata.${what} must be a positive number`);
    return v;
  };
  return {
    options: {
      maxBytes: n(raw.maxBytes, 5120, 'maxBytes'),
      timeoutMs: n(raw.timeoutMs, 5000, 'timeoutMs'),
      cacheSec: Math.min(n(raw.cacheSec, 300, 'cacheSec'), MAX_CACHE_SEC),
      allowInsecure: raw.allowInsecure === true,
    },
    fetch: fetchImpl,
    clock,
    cache: new Map(),
  };
}

/** A client id that is a URL (and so names a metadata document) rather than an opaque id. */
export function isClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

function bad(clientId: string, why: string): OAuthError {
  return new OAuthError('invalid_client', `the client metadata document ${clientId} ${why}`);
}

/** The draft's rules for the URL itself: a path, no fragment, no credentials, no dot segments. */
function checkUrl(f: ClientMetadataFetcher, clientId: string): URL {
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    throw bad(clientId, 'is not a valid URL');
  }
  if (u.href !== clientId) throw bad(clientId, 'is not in normalised form');
  if (u.protocol !== 'https:' && !(f.options.allowInsecure && u.protocol === 'http:')) throw bad(clientId, 'must be an https URL');
  if (u.pathname === '/' || u.hash || u.username || u.password) throw bad(clientId, 'must have a path and no fragment or credentials');
  if (!f.options.allowInsecure && isPrivate(u.hostname)) throw bad(clientId, 'points at a loopback or private address; refused');
  return u;
}

/** How long the answer may be used: its max-age when shorter than the configured time, none with no-store. */
function cacheSeconds(f: ClientMetadataFetcher, header: string | null): number {
  if (!header) return f.options.cacheSec;
  if (/(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/i.test(header)) return 0;
  const m = /max-age\s*=\s*(\d+)/i.exec(header);
  return m ? Math.min(Number(m[1]), f.options.cacheSec) : f.options.cacheSec;
}

function toRecord(clientId: string, doc: Record<string, unknown>): ClientRecord {
  if (doc.client_id !== clientId) throw bad(clientId, `names client_id ${JSON.stringify(doc.client_id)}, not its own URL`);
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw bad(clientId, 'has no redirect_uris');
  let redirect_uris: string[];
  try {
    redirect_uris = uris.map(checkRedirectUri);
  } catch (err) {
    throw bad(clientId, `has a redirect URI that is not allowed: ${(err as Error).message}`);
  }
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw bad(clientId, `asks for ${JSON.stringify(method)}; only public clients ("none") can be described by a public document`);
  if (doc.client_secret !== undefined) throw bad(clientId, 'contains a client_secret');
  const grants = doc.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grants)) throw bad(clientId, 'has grant_types that are not an array');
  return {
    ...doc,
    client_id: clientId,
    redirect_uris,
    token_endpoint_auth_method: 'none',
    grant_types: grants.filter((g): g is string => typeof g === 'string'),
  } as ClientRecord;
}

export async function fetchClientMetadata(f: ClientMetadataFetcher, clientId: string): Promise<ClientRecord> {
  const now = f.clock.now();
  const hit = f.cache.get(clientId);
  if (hit && hit.expires > now) return hit.record;
  checkUrl(f, clientId);
  let res: Response;
  try {
    const fetchFn = f.fetch;
    res = await fetchFn(clientId, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(f.options.timeoutMs) });
  } catch (err) {
    throw bad(clientId, `could not be fetched: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    throw bad(clientId, `answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`);
  }
  const text = await readCapped(res, f.options.maxBytes);
  if (text === undefined) throw bad(clientId, `is larger than ${f.options.maxBytes} bytes`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw bad(clientId, 'is not JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw bad(clientId, 'is not a JSON object');
  const record = toRecord(clientId, doc as Record<string, unknown>);
  const secs = cacheSeconds(f, res.headers.get('cache-control'));
  if (secs > 0) {
    if (f.cache.size >= MAX_CACHED) f.cache.delete(f.cache.keys().next().value as string);
    f.cache.set(clientId, { record, expires: now + secs * 1000 });
  }
  return record;
}
