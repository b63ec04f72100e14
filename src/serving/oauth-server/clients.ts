/**
 * Clients: who they are (pre-registered, dynamically registered per RFC 7591, or described by a
 * Client ID Metadata Document at their URL client id), where they may be sent back to, and how
 * they prove themselves at the token endpoint.
 */
import { randomToken } from '../../client/auth/encoding.js';
import type { Clock } from '../../engine/clock.js';
import type { HttpRequestView } from '../http/exchange.js';
import { fetchClientMetadata, isClientIdUrl, type ClientMetadataFetcher } from './cimd.js';
import { OAuthError, sameSecret, single } from './http.js';
import type { ClientAuthMethod, ClientRecord } from './options.js';
import { checkRedirectUri } from './redirect-uris.js';
import { AUTH_METHODS, type RegistrationMetadata } from './registration-metadata.js';
import type { RegistrationLimits } from './registration.js';
import { BoundedSets, digest, type AuthorizationStore } from './store.js';

/** The bounded set registrations are counted in. */
const REGISTERED = 'clients';
const REGISTERED_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function methodOf(client: ClientRecord): ClientAuthMethod {
  return client.token_endpoint_auth_method ?? (client.client_secret ? 'client_secret_basic' : 'none');
}

export interface ClientDirectoryOptions {
  preRegistered: readonly ClientRecord[];
  store: AuthorizationStore;
  metadata: ClientMetadataFetcher | undefined;
  /** How many registrations are kept and for how long. */
  registration: RegistrationLimits;
  clock: Clock;
}

/**
 * Registrations are bounded three ways: at most `maxClients` of them at once (counted with the
 * store's `reserve`, else per instance); one that never got a token is removed `unusedTtlMs`
 * after it was made, so abandoned and hostile ones go by themselves; one that did is kept
 * `idleTtlMs` past its last use of the token endpoint, so a client in use never disappears
 * (by default that is the refresh token lifetime: its refresh tokens never outlive it).
 */
export class ClientDirectory {
  private readonly fixed = new Map<string, ClientRecord>();
  private readonly reserve: (set: string, member: string, ttlMs: number, max: number) => Promise<boolean> | boolean;

  constructor(private readonly o: ClientDirectoryOptions) {
    for (const c of o.preRegistered) {
      if (!c || typeof c.client_id !== 'string' || !c.client_id) throw new TypeError('authorizationServer: every client needs a client_id');
      if (!Array.isArray(c.redirect_uris)) throw new TypeError(`authorizationServer: client ${c.client_id} needs redirect_uris`);
      for (const u of c.redirect_uris) checkRedirectUri(u);
      const m = c.token_endpoint_auth_method;
      if (m !== undefined && !AUTH_METHODS.includes(m)) throw new TypeError(`authorizationServer: client ${c.client_id}: unsupported auth method ${m}`);
      if (m !== undefined && m !== 'none' && !c.client_secret)
        throw new TypeError(`authorizationServer: client ${c.client_id} uses ${m} but has no client_secret`);
      this.fixed.set(c.client_id, c);
    }
    const store = o.store;
    if (typeof store.reserve === 'function') this.reserve = store.reserve.bind(store);
    else {
      const local = new BoundedSets(o.clock);
      this.reserve = local.reserve.bind(local);
    }
  }

  /** The client of a `client_id`, or undefined when no such client exists. Throws OAuthError for a bad metadata document. */
  async find(clientId: string): Promise<ClientRecord | undefined> {
    const fixed = this.fixed.get(clientId);
    if (fixed) return fixed;
    if (isClientIdUrl(clientId)) {
      if (!this.o.metadata) return undefined;
      return fetchClientMetadata(this.o.metadata, clientId);
    }
    if (!REGISTERED_ID.test(clientId)) return undefined;
    const stored = (await this.o.store.get(`client:${clientId}`)) as ClientRecord | undefined;
    return stored && typeof stored === 'object' && stored.client_id === clientId ? stored : undefined;
  }

  /**
   * RFC 7591 §3.2.1: registers checked `metadata` (registration-metadata.ts) under a fresh client
   * id (and secret, for a confidential client), and answers it as stored. Refused with 503 when
   * `maxClients` registrations are kept already.
   */
  async register(metadata: RegistrationMetadata, now: number): Promise<Record<string, unknown>> {
    const { maxClients, unusedTtlMs } = this.o.registration;
    const record: ClientRecord = { ...metadata, client_id: randomToken(18), client_id_issued_at: Math.floor(now / 1000) };
    if (!(await this.reserve(REGISTERED, record.client_id, unusedTtlMs, maxClients))) {
      throw new OAuthError(
        'temporarily_unavailable',
        `registration store full: ${maxClients} clients are registered, the most this server keeps; try again later (unused registrations expire)`,
        503,
      );
    }
    if (methodOf(record) === 'none') {
      await this.o.store.put(`client:${record.client_id}`, record, unusedTtlMs);
      return record;
    }
    // The secret goes to the client once; the store keeps only its digest. It does not expire
    // (0), though the registration does if it is never used.
    const secret = randomToken(32);
    record.client_secret_expires_at = 0;
    await this.o.store.put(`client:${record.client_id}`, { ...record, client_secret_sha256: await digest(secret) }, unusedTtlMs);
    return { ...record, client_secret: secret };
  }

  /**
   * A client got tokens: a registered one is kept `idleTtlMs` from now. Pre-registered clients
   * and metadata documents have no registration to keep.
   */
  async used(client: ClientRecord): Promise<void> {
    const id = client.client_id;
    if (this.fixed.has(id) || isClientIdUrl(id) || !REGISTERED_ID.test(id)) return;
    const { maxClients, idleTtlMs } = this.o.registration;
    if (await this.reserve(REGISTERED, id, idleTtlMs, maxClients)) await this.o.store.put(`client:${id}`, client, idleTtlMs);
  }
}

/**
 * RFC 6749 §2.3 at the token and revocation endpoints: the client the request is from, having
 * checked its credentials the way it registered (Basic header, form fields, or none for a public
 * client, which only names itself).
 */
export async function authenticateClient(clients: ClientDirectory, req: HttpRequestView, form: URLSearchParams): Promise<ClientRecord> {
  const header = req.header('authorization');
  let id: string | undefined;
  let secret: string | undefined;
  let via: ClientAuthMethod;
  if (header && /^basic /i.test(header)) {
    let decoded: string;
    try {
      decoded = atob(header.slice(6).trim());
    } catch {
      throw new OAuthError('invalid_client', 'the Basic credentials are not base64', 401);
    }
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'the Basic credentials have no ":"', 401);
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    try {
      id = dec(decoded.slice(0, colon));
      secret = dec(decoded.slice(colon + 1));
    } catch {
      throw new OAuthError('invalid_client', 'the Basic credentials are not form-encoded', 401);
    }
    via = 'client_secret_basic';
    const bodyId = single(form, 'client_id');
    if (bodyId !== undefined && bodyId !== id) throw new OAuthError('invalid_request', 'client_id in the body differs from the Basic credentials');
    if (form.has('client_secret')) throw new OAuthError('invalid_request', 'use one client authentication method, not two');
  } else {
    id = single(form, 'client_id');
    secret = single(form, 'client_secret');
    via = secret === undefined ? 'none' : 'client_secret_post';
  }
  if (!id) throw new OAuthError('invalid_client', 'the client is not identified (client_id or Basic credentials)', 401);
  const client = await clients.find(id);
  if (!client) throw new OAuthError('invalid_client', `unknown client ${JSON.stringify(id)}`, 401);
  const expected = methodOf(client);
  if (expected !== via) throw new OAuthError('invalid_client', `the client ${id} authenticates with ${expected}, not ${via}`, 401);
  if (expected !== 'none' && !(secret !== undefined && (await secretMatches(client, secret))))
    throw new OAuthError('invalid_client', 'client authentication failed', 401);
  return client;
}

export type { ClientMetadataFetcher };

/** A registered client's secret is kept as a digest; a pre-registered one as configured. */
async function secretMatches(client: ClientRecord, secret: string): Promise<boolean> {
  if (typeof client.client_secret_sha256 === 'string') return sameSecret(await digest(secret), client.client_secret_sha256);
  return typeof client.client_secret === 'string' && sameSecret(secret, client.client_secret);
}
