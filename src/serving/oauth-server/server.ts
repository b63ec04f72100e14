/**
 * A small OAuth 2.1 authorization server for MCP deployments: RFC 8414 metadata, the
 * authorization code grant with PKCE (S256 only), refresh tokens rotated on every use, dynamic
 * registration (RFC 7591), client ID metadata documents, resource indicators (RFC 8707: the
 * token's audience is the resource), and JWT access tokens (RFC 9068) signed with keys published
 * at the JWKS endpoint, which `jwtAccessTokens()` in mcpkit's resource server verifies. Sign-in is
 * the application's `login` step, or federated to an upstream provider (`upstream`).
 *
 * Served over the same two-method exchange as the MCP HTTP core: `handle` for any adapter,
 * `fetch` for web-standard runtimes, `serveAuthorizationServer` (mcpkit/node) on node:http.
 */
import { systemClock } from '../../engine/clock.js';
import { requestOrigin, type HttpRequestView, type HttpResponder, type HeaderMap } from '../http/exchange.js';
import { authorizeEndpoint } from './authorize.js';
import { clientMetadataFetcher } from './cimd.js';
import { ClientDirectory } from './clients.js';
import { defaultConsent } from './consent.js';
import type { ServerContext } from './context.js';
import { Grants } from './grants.js';
import { readCapped } from '../http/read-capped.js';
import { CORS, preflight, sendJson } from './http.js';
import type { AuthorizationServerOptions, Login } from './options.js';
import { RegistrationPolicy } from './registration.js';
import { SigningKeys } from './signing.js';
import { callbackEndpoint, consentEndpoint } from './proxy.js';
import { InMemoryAuthorizationStore } from './store.js';
import { registerEndpoint, revokeEndpoint, tokenEndpoint } from './token.js';

const WELL_KNOWN = '/.well-known/oauth-authorization-server';
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

function fail(message: string): never {
  throw new TypeError(`authorizationServer: ${message}`);
}

function seconds(v: number | undefined, fallback: number, what: string): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(`${what} must be a positive number of seconds`);
  return v;
}

/** Approves every request for `subject`: for tests and the conformance suite, never for real users. */
export function autoApprove(subject = 'user', claims?: Record<string, unknown>): Login {
  return () => (claims ? { subject, claims } : { subject });
}

type Route = 'metadata' | 'authorize' | 'token' | 'register' | 'jwks' | 'revoke' | 'callback' | 'consent';

export class AuthorizationServer {
  /** The configured issuer; undefined when each request's origin is used. */
  readonly issuer: string | undefined;
  private readonly ctx: ServerContext;
  private readonly keys: SigningKeys;
  private readonly base: string;
  private readonly routes = new Map<string, Route>();
  private readonly options: AuthorizationServerOptions;

  constructor(options: AuthorizationServerOptions) {
    if (!options || typeof options !== 'object') fail('the options must be an object');
    this.options = options;
    if (options.issuer !== undefined) {
      const u = URL.canParse(options.issuer) ? new URL(options.issuer) : fail(`issuer ${JSON.stringify(options.issuer)} is not an absolute URL`);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') fail('issuer must be an https (or, for development, http) URL');
      if (u.search || u.hash || options.issuer.includes('#') || options.issuer.includes('?')) fail('issuer must have no query or fragment (RFC 8414)');
      this.issuer = options.issuer.replace(/\/+$/, '');
      this.base = new URL(this.issuer).pathname.replace(/\/+$/, '');
    } else this.base = '';
    if (!options.login && !options.upstream) fail('give login (who signs in, e.g. autoApprove() for tests) or upstream (federated sign-in)');
    if (options.login && options.upstream) fail('give login or upstream, not both');
    if (!options.upstream && (options.consent !== undefined || options.consentTtlSec !== undefined))
      fail('consent and consentTtlSec are for proxy mode (upstream); with login, your login step asks for consent');
    if (options.consent !== undefined && typeof options.consent !== 'function') fail('consent must be a function');
    const clock = options.clock ?? systemClock;
    const store = options.store ?? new InMemoryAuthorizationStore({ clock });
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const onError = options.onError ?? ((e: Error) => console.error(`[mcpkit] ${e.message}`));
    const cimd = options.clientIdMetadata;
    this.keys = new SigningKeys(options.signingKeys);
    const refreshTtlSec = seconds(options.refreshTokenTtlSec, 30 * 86_400, 'refreshTokenTtlSec');
    const grants = new Grants({
      store,
      keys: this.keys,
      clock,
      accessTtlSec: seconds(options.accessTokenTtlSec, 3600, 'accessTokenTtlSec'),
      refreshTtlSec,
      codeTtlSec: seconds(options.codeTtlSec, 60, 'codeTtlSec'),
    });
    const dcr = options.dynamicRegistration;
    if (dcr !== undefined && typeof dcr !== 'boolean' && (typeof dcr !== 'object' || dcr === null)) fail('dynamicRegistration must be a boolean or an object');
    const registration = new RegistrationPolicy(typeof dcr === 'object' ? dcr : {}, refreshTtlSec, clock);
    const clients = new ClientDirectory({
      preRegistered: options.clients ?? [],
      store,
      metadata: cimd === false ? undefined : clientMetadataFetcher(cimd === true || cimd === undefined ? {} : cimd, clock, onError),
      registration: registration.limits,
      clock,
    });
    for (const list of [options.scopesSupported, options.defaultScopes, options.resources] as const)
      if (list !== undefined && (!Array.isArray(list) || !list.every((s) => typeof s === 'string')))
        fail('scopesSupported, defaultScopes and resources must be arrays of strings');
    this.ctx = {
      store,
      clients,
      grants,
      clock,
      fetch: fetchImpl,
      login: options.login,
      upstream: options.upstream,
      consent: options.upstream
        ? {
            decide: options.consent ?? defaultConsent,
            ttlMs: seconds(options.consentTtlSec, 30 * 86_400, 'consentTtlSec') * 1000,
            preRegistered: new Set((options.clients ?? []).map((c) => c.client_id)),
          }
        : undefined,
      scopesSupported: options.scopesSupported,
      defaultScopes: options.defaultScopes ?? [],
      resources: options.resources,
      defaultResource: options.defaultResource,
      requireResource: options.requireResource === true,
      refreshTokens: options.refreshTokens !== false,
      registration: dcr === false ? undefined : registration,
      onError,
    };
    const b = this.base;
    this.routes.set(WELL_KNOWN + b, 'metadata');
    this.routes.set(`${b}/authorize`, 'authorize');
    this.routes.set(`${b}/token`, 'token');
    this.routes.set(`${b}/jwks.json`, 'jwks');
    this.routes.set(`${b}/revoke`, 'revoke');
    if (dcr !== false) this.routes.set(`${b}/register`, 'register');
    if (options.upstream) {
      this.routes.set(`${b}/callback`, 'callback');
      this.routes.set(`${b}/consent`, 'consent');
    }
  }

  /** The issuer a request is answered as: the configured one, else the request's origin. */
  issuerFor(req: HttpRequestView): string | undefined {
    return this.issuer ?? requestOrigin(req);
  }

  /** The RFC 8414 metadata document for `issuer`. */
  metadata(issuer: string): Record<string, unknown> {
    const o = this.options;
    const doc: Record<string, unknown> = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks.json`,
      revocation_endpoint: `${issuer}/revoke`,
    };
    if (o.dynamicRegistration !== false) doc.registration_endpoint = `${issuer}/register`;
    if (o.scopesSupported) doc.scopes_supported = [...o.scopesSupported];
    Object.assign(doc, {
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: this.ctx.refreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: AUTH_METHODS,
      revocation_endpoint_auth_methods_supported: AUTH_METHODS,
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: o.clientIdMetadata !== false,
    });
    return doc;
  }

  /**
   * Serves a request if it is for one of this server's endpoints; false (nothing sent) otherwise,
   * so it can share a port with an MCP endpoint or anything else.
   */
  async handle(req: HttpRequestView, res: HttpResponder): Promise<boolean> {
    const route = this.routes.get(req.path);
    if (!route) return false;
    const issuer = this.issuerFor(req);
    if (issuer === undefined) {
      sendJson(res, 400, { error: 'invalid_request', error_description: 'the Host header does not form a valid URL' });
      return true;
    }
    try {
      await this.route(route, issuer, req, res);
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      this.ctx.onError(e);
      sendJson(res, 500, { error: 'server_error', error_description: 'the authorization server failed; try again later' }, { 'cache-control': 'no-store' });
    }
    return true;
  }

  private async route(route: Route, issuer: string, req: HttpRequestView, res: HttpResponder): Promise<void> {
    const m = req.method;
    const allowed = route === 'authorize' ? 'GET, POST' : route === 'metadata' || route === 'jwks' || route === 'callback' ? 'GET' : 'POST';
    // The browser-only endpoints get no CORS preflight: no other site's script has business there.
    if (m === 'OPTIONS' && route !== 'authorize' && route !== 'callback' && route !== 'consent') return preflight(res, `${allowed}, OPTIONS`);
    if (!allowed.split(', ').includes(m) && !(m === 'HEAD' && allowed.startsWith('GET'))) {
      return sendJson(res, 405, { error: 'invalid_request', error_description: `${m} is not allowed here (${allowed})` }, { allow: allowed });
    }
    switch (route) {
      case 'metadata':
        return sendJson(res, 200, this.metadata(issuer), { 'cache-control': 'public, max-age=3600' });
      case 'jwks':
        return sendJson(res, 200, await this.keys.jwks(), { 'cache-control': 'public, max-age=600' });
      case 'authorize':
        return authorizeEndpoint(this.ctx, issuer, req, res);
      case 'callback':
        return callbackEndpoint(this.ctx, issuer, req, res);
      case 'consent':
        return consentEndpoint(this.ctx, issuer, req, res);
      case 'token':
        return tokenEndpoint(this.ctx, issuer, req, res);
      case 'revoke':
        return revokeEndpoint(this.ctx, req, res);
      case 'register':
        return registerEndpoint(this.ctx, req, res);
    }
  }

  /** A web-standard fetch handler (Bun, Deno, Workers, Hono...): 404 for paths that are not the server's. */
  readonly fetch = async (request: Request, info?: { remoteAddress?: string }): Promise<Response> => {
    const url = new URL(request.url);
    const req: HttpRequestView = {
      method: request.method,
      path: url.pathname,
      query: url.search.slice(1),
      header: (name) => request.headers.get(name) ?? undefined,
      remoteAddress: info?.remoteAddress,
      urlOrigin: url.origin,
      readBody: (limit) => readCapped(request, limit),
    };
    let response: Response | undefined;
    const res: HttpResponder = {
      send(status: number, headers: HeaderMap, body?: string) {
        response = new Response(status === 204 || status === 302 ? null : (body ?? null), { status, headers });
      },
      stream() {
        throw new Error('the authorization server does not stream');
      },
    };
    if (!(await this.handle(req, res)) || !response) return new Response('Not Found', { status: 404, headers: CORS });
    return response;
  };
}

/** A new authorization server (see AuthorizationServerOptions). */
export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  return new AuthorizationServer(options);
}
