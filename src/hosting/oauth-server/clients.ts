/**
 * Clients: who they are (pre-registered, dynamically registered per RFC 7591, or described by a
 * Client ID Metadata Document at their URL client id), where they may be sent back to, and how
 * they prove themselves at the token endpoint.
 */
import { randomToken } from '../../client/auth/encoding.js';
import type { HttpRequestView } from '../http/exchange.js';
import { fetchClientMetadata, isClientIdUrl, type ClientMetadataFetcher } from './cimd.js';
import { OAuthError, sameSecret, single } from './http.js';
import type { ClientAuthMethod, ClientRecord } from './options.js';
import { checkRedirectUri } from './redirect-uris.js';
import { digest, type AuthorizationStore } from './store.js';

const AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];
const GRANTS = ['authorization_code', 'refresh_token'];
const MAX_REDIRECT_URIS = 20;

export function methodOf(client: ClientRecord): ClientAuthMethod {
  return client.token_endpoint_auth_method ?? (client.client_secret ? 'client_secret_basic' : 'none');
}

export interface ClientDirectoryOptions {
  preRegistered: readonly ClientRecord[];
  store: AuthorizationStore;
  metadata: ClientMetadataFetcher | undefined;
}

export class ClientDirectory {
  private readonly fixed = new Map<string, ClientRecord>();

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
  }

  /** The client of a `client_id`, or undefined when no such client exists. Throws OAuthError for a bad metadata document. */
  async find(clientId: string): Promise<ClientRecord | undefined> {
    const fixed = this.fixed.get(clientId);
    if (fixed) return fixed;
    if (isClientIdUrl(clientId)) {
      if (!this.o.metadata) return undefined;
      return fetchClientMetadata(this.o.metadata, clientId);
    }
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(clientId)) return undefined;
    const stored = (await this.o.store.get(`client:${clientId}`)) as ClientRecord | undefined;
    return stored && typeof stored === 'object' && stored.client_id === clientId ? stored : undefined;
  }

  /** RFC 7591 §3.2.1: the registration as stored, with a fresh client id (and secret for a confidential client). */
  async register(body: Record<string, unknown>, now: number): Promise<Record<string, unknown>> {
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI');
    if (uris.length > MAX_REDIRECT_URIS) throw new OAuthError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect URIs`);
    const redirect_uris = uris.map(checkRedirectUri);
    const method = (body.token_endpoint_auth_method ?? 'client_secret_basic') as ClientAuthMethod;
    if (!AUTH_METHODS.includes(method))
      throw new OAuthError('invalid_client_metadata', `token_endpoint_auth_method ${JSON.stringify(method)} is not supported (${AUTH_METHODS.join(', ')})`);
    const grants = body.grant_types ?? ['authorization_code'];
    if (!Array.isArray(grants) || !grants.every((g) => typeof g === 'string'))
      throw new OAuthError('invalid_client_metadata', 'grant_types must be an array of strings');
    const unsupported = grants.filter((g) => !GRANTS.includes(g));
    if (unsupported.length) throw new OAuthError('invalid_client_metadata', `grant types not supported here: ${unsupported.join(', ')}`);
    const responses = body.response_types ?? ['code'];
    if (!Array.isArray(responses) || responses.some((r) => r !== 'code'))
      throw new OAuthError('invalid_client_metadata', 'response_types may only be ["code"]');
    for (const f of ['client_name', 'client_uri', 'logo_uri', 'scope', 'application_type'])
      if (body[f] !== undefined && typeof body[f] !== 'string') throw new OAuthError('invalid_client_metadata', `${f} must be a string`);
    const record: ClientRecord = {
      ...body,
      client_id: randomToken(18),
      client_id_issued_at: Math.floor(now / 1000),
      redirect_uris,
      token_endpoint_auth_method: method,
      grant_types: grants as string[],
      response_types: ['code'],
    };
    delete record.client_secret;
    delete record.client_secret_sha256;
    if (method === 'none') {
      await this.o.store.put(`client:${record.client_id}`, record);
      return record;
    }
    // The secret goes to the client once; the store keeps only its digest.
    const secret = randomToken(32);
    record.client_secret_expires_at = 0;
    await this.o.store.put(`client:${record.client_id}`, { ...record, client_secret_sha256: await digest(secret) });
    return { ...record, client_secret: secret };
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
