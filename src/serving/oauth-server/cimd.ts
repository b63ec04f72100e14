/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, the MCP
 * 2025-11-25 authorization spec): a client whose `client_id` is an https URL is described by the
 * JSON document at that URL. Fetching a URL a stranger chose is an SSRF and resource risk, so it
 * is bounded (cimd-fetch.ts): https only, the name resolved once and every address checked, the
 * connection made to the checked address, no redirects, a size cap, a timeout, and a cache, so one
 * client's sign-ins cost one fetch. The document must name itself (`client_id` equal to its URL)
 * and may not claim a shared secret: a public document cannot keep one.
 *
 * Every failure past the URL's own form gets one answer, whatever the cause (a private address, a
 * closed port, an open port that is not a web server, a timeout, a bad document): different
 * answers would let a client map the network or the document's host through this server. The
 * detail goes to the server's `onError`.
 */
import type { Clock } from '../../engine/clock.js';
import { guardedGetOrFail, type HostLookup } from './cimd-get.js';
import { checkRedirectUri } from './redirect-uris.js';
import { OAuthError } from './http.js';
import type { ClientIdMetadataOptions, ClientRecord } from './options.js';

export interface ClientMetadataFetcher {
  options: Required<Omit<ClientIdMetadataOptions, 'allowInsecure' | 'lookup'>> & { allowInsecure: boolean };
  lookup: HostLookup | undefined;
  clock: Clock;
  onError: (error: Error) => void;
  cache: Map<string, { record: ClientRecord; expires: number }>;
  /** Fetches under way: concurrent sign-ins of one new client share one. */
  inflight: Map<string, Promise<ClientRecord>>;
}

const MAX_CACHE_SEC = 86_400;
const MAX_CACHED = 1000;
/** The one answer to a document that could not be had, whatever the reason (see above). */
export const UNAVAILABLE = 'the client metadata document could not be fetched, or is not a valid client metadata document';

export function clientMetadataFetcher(raw: ClientIdMetadataOptions, clock: Clock, onError: (error: Error) => void): ClientMetadataFetcher {
  const n = (v: number | undefined, d: number, what: string) => {
    if (v === undefined) return d;
    if (typeof v !== 'number' || !(v > 0)) throw new TypeError(`authorizationServer: clientIdMetadata.${what} must be a positive number`);
    return v;
  };
  if (raw.lookup !== undefined && typeof raw.lookup !== 'function') throw new TypeError('authorizationServer: clientIdMetadata.lookup must be a function');
  return {
    options: {
      maxBytes: n(raw.maxBytes, 5120, 'maxBytes'),
      timeoutMs: n(raw.timeoutMs, 5000, 'timeoutMs'),
      cacheSec: Math.min(n(raw.cacheSec, 300, 'cacheSec'), MAX_CACHE_SEC),
      allowInsecure: raw.allowInsecure === true,
    },
    lookup: raw.lookup,
    clock,
    onError,
    cache: new Map(),
    inflight: new Map(),
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
  return u;
}

/** How long the answer may be used: its max-age when shorter than the configured time, none with no-store. */
function cacheSeconds(f: ClientMetadataFetcher, header: string | undefined): number {
  if (!header) return f.options.cacheSec;
  if (/(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/i.test(header)) return 0;
  const m = /max-age\s*=\s*(\d+)/i.exec(header);
  return m ? Math.min(Number(m[1]), f.options.cacheSec) : f.options.cacheSec;
}

function toRecord(clientId: string, doc: Record<string, unknown>): ClientRecord {
  if (doc.client_id !== clientId) throw new Error(`names client_id ${JSON.stringify(doc.client_id)}, not its own URL`);
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw new Error('has no redirect_uris');
  let redirect_uris: string[];
  try {
    redirect_uris = uris.map(checkRedirectUri);
  } catch (err) {
    throw new Error(`has a redirect URI that is not allowed: ${(err as Error).message}`);
  }
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new Error(`asks for ${JSON.stringify(method)}; only public clients ("none") can be described by a public document`);
  if (doc.client_secret !== undefined) throw new Error('contains a client_secret');
  const grants = doc.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grants)) throw new Error('has grant_types that are not an array');
  return {
    ...doc,
    client_id: clientId,
    redirect_uris,
    token_endpoint_auth_method: 'none',
    grant_types: grants.filter((g): g is string => typeof g === 'string'),
  } as ClientRecord;
}

/** The client a URL client id names: from the cache, else fetched (one fetch per client at a time). */
export async function fetchClientMetadata(f: ClientMetadataFetcher, clientId: string): Promise<ClientRecord> {
  const hit = f.cache.get(clientId);
  if (hit && hit.expires > f.clock.now()) return hit.record;
  const url = checkUrl(f, clientId);
  let pending = f.inflight.get(clientId);
  if (!pending) {
    pending = load(f, clientId, url).finally(() => f.inflight.delete(clientId));
    f.inflight.set(clientId, pending);
  }
  return pending;
}

async function load(f: ClientMetadataFetcher, clientId: string, url: URL): Promise<ClientRecord> {
  let record: ClientRecord;
  let secs: number;
  try {
    const answer = await guardedGetOrFail()(url, {
      lookup: f.lookup,
      clock: f.clock,
      timeoutMs: f.options.timeoutMs,
      maxBytes: f.options.maxBytes,
      allowPrivate: f.options.allowInsecure,
    });
    let doc: unknown;
    try {
      doc = JSON.parse(answer.text);
    } catch {
      throw new Error('is not JSON');
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('is not a JSON object');
    record = toRecord(clientId, doc as Record<string, unknown>);
    secs = cacheSeconds(f, answer.cacheControl);
  } catch (err) {
    f.onError(new Error(`authorizationServer: the client metadata document ${clientId} was refused: ${(err as Error).message}`, { cause: err }));
    throw new OAuthError('invalid_client', UNAVAILABLE);
  }
  if (secs > 0) {
    if (f.cache.size >= MAX_CACHED) f.cache.delete(f.cache.keys().next().value as string);
    f.cache.set(clientId, { record, expires: f.clock.now() + secs * 1000 });
  }
  return record;
}
