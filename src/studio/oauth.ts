// OAuth sign-in for the studio's HTTP servers, done by mcpkit's own client (client/auth) and
// shown step by step (oauth-steps.ts). Each HTTP server's requests go through one
// OAuthClientAuth kept across reconnections; its HTTP exchanges (with the MCP server and with the
// authorization server) are watched to write the steps down. The authorization itself happens in
// the person's browser: the page shows the authorization URL, the authorization server sends the
// browser back to the studio's /oauth/callback, and the `state` it carries (128 random bits the
// client made for this one sign-in) is what lets the answer in: that route cannot ask for the
// studio's cookie, which a SameSite=Strict cookie does not send on a redirect from another site.
import { createHash } from 'node:crypto';
import { OAuthClientAuth } from '../client/auth/oauth.js';
import type { AuthorizationRequest, OAuthOptions } from '../client/auth/options.js';
import type { DpopOptions } from '../client/auth/dpop.js';
import type { OAuthStore } from '../client/auth/store.js';
import { keptTokensShown } from './oauth-store.js';
import type { Clock } from '../engine/clock.js';
import type { Target } from '../pool/targets.js';
import { jwtClaims, maskBody, maskHeaders, StepLog, type Exchange, type OAuthStep, type OAuthView, type StepKind } from './oauth-steps.js';

/** What the studio is told on its command line about OAuth. */
export interface StudioOAuthOptions {
  /** No sign-in at all: a 401 is reported as it is. */
  disabled?: boolean;
  clientId?: string;
  clientSecret?: string;
  clientMetadataUrl?: string;
  scope?: string;
  /**
   * Where client registrations and tokens are kept across runs (`--oauth-file`); default: in
   * memory for this run. `storeName` says where, in the steps the page shows.
   */
  store?: OAuthStore;
  storeName?: string;
  /** The DPoP key (kept with the store, since bound tokens work only with the key that got them). */
  dpop?: DpopOptions;
}

interface Pending {
  server: string;
  resolve(url: string): void;
  reject(err: Error): void;
}

const WELL_KNOWN_PRM = '/.well-known/oauth-protected-resource';
const WELL_KNOWN_AS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];

function urlOf(input: RequestInfo | URL): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** One server's sign-in: the client's OAuth, and the steps it took. */
class ServerAuth {
  readonly auth: OAuthClientAuth;
  readonly log: StepLog;
  private tokenEndpoint: string | undefined;
  private registrationEndpoint: string | undefined;
  /** A token was obtained and no request has gone through with it yet. */
  private fresh = false;
  private challenge: string | undefined;
  issuer: string | undefined;
  registration: OAuthView['registration'];
  waiting: { url: string; issuer: string; state: string } | undefined;

  constructor(
    readonly server: string,
    url: string,
    private readonly owner: StudioOAuth,
    traced: typeof fetch,
  ) {
    this.log = new StepLog(owner.clock, () => owner.changed(server));
    const o = owner.options;
    const options: OAuthOptions = {
      authorize: (request) => this.authorize(request),
      redirectUri: owner.redirectUri,
      grant: 'authorization_code',
      clientMetadata: { client_name: 'mcpkit studio' },
      fetch: this.watchAs(traced),
      ...(o.clientId ? { clientId: o.clientId } : {}),
      ...(o.clientSecret ? { clientSecret: o.clientSecret } : {}),
      ...(o.clientMetadataUrl ? { clientMetadataUrl: o.clientMetadataUrl } : {}),
      ...(o.scope ? { scope: o.scope } : {}),
      ...(o.store ? { store: keptTokensShown(o.store, (issuer, step) => this.kept(issuer, step), o.storeName) } : {}),
      ...(o.dpop ? { dpop: o.dpop } : {}),
    };
    this.auth = new OAuthClientAuth(url, options, this.watchMcp(traced));
  }

  /** Tokens found in the store: a step of their own, and the next request that goes through is "authorized". */
  private kept(issuer: string, step: Omit<OAuthStep, 'n' | 'at'>): void {
    this.issuer = issuer;
    this.fresh = true;
    this.log.add(step);
  }

  /** A new connection's traced fetch (the client keeps its tokens). */
  rewire(traced: typeof fetch): void {
    this.auth.wrap(this.watchMcp(traced));
  }

  view(): OAuthView {
    return {
      server: this.server,
      enabled: true,
      steps: this.log.steps,
      ...(this.waiting ? { waiting: { url: this.waiting.url, issuer: this.waiting.issuer } } : {}),
      signedIn: this.auth.tokens !== undefined,
      ...(this.issuer ? { issuer: this.issuer } : {}),
      ...(this.registration ? { registration: this.registration } : {}),
      redirectUri: this.owner.redirectUri,
    };
  }

  /** The MCP server's side: its 401 (and challenge), and the first request that goes through after a token. */
  private watchMcp(traced: typeof fetch): typeof fetch {
    return async (input, init) => {
      const res = await traced(input, init);
      const www = res.headers.get('www-authenticate');
      if (res.status === 401 || (res.status === 403 && www?.includes('insufficient_scope'))) {
        // One step per challenge, not per request that met it.
        if (www !== this.challenge || this.fresh || this.auth.tokens === undefined) {
          this.challenge = www ?? '';
          const sent = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).has('authorization');
          this.log.add({
            kind: 'challenge',
            title: res.status === 401 ? `The server answered 401${sent ? ': it refused the token' : ''}` : 'The server answered 403: it wants more scopes',
            detail: www
              ? `WWW-Authenticate: ${www}`
              : 'No WWW-Authenticate header: the client looks for the resource metadata at the well-known address itself.',
            status: 'info',
            exchange: {
              method: (init?.method ?? 'GET').toUpperCase(),
              url: urlOf(input),
              requestHeaders: maskHeaders(new Headers(init?.headers)),
              status: res.status,
              responseHeaders: maskHeaders(res.headers),
            },
          });
          this.fresh = false;
        }
      } else if (this.fresh && res.ok) {
        this.fresh = false;
        this.challenge = undefined;
        this.log.add({
          kind: 'authorized',
          title: `The request went through with the token (${res.status})`,
          detail: `${(init?.method ?? 'GET').toUpperCase()} ${urlOf(input)} carried the access token and was answered ${res.status}.`,
          status: 'ok',
        });
      }
      return res;
    };
  }

  /** The authorization server's side (and the metadata documents): each exchange, classified and masked. */
  private watchAs(traced: typeof fetch): typeof fetch {
    return async (input, init) => {
      const url = new URL(urlOf(input));
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      const bodyText = typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : undefined;
      const form = headers.get('content-type')?.includes('x-www-form-urlencoded') && bodyText !== undefined ? new URLSearchParams(bodyText) : undefined;
      const kind = this.classify(url, method, form);
      const exchange: Exchange = { method, url: url.href, requestHeaders: maskHeaders(headers) };
      const body = maskBody(bodyText, headers.get('content-type'));
      if (body !== undefined) exchange.requestBody = body;
      const started = this.owner.clock.now();
      let res: Response;
      try {
        res = await traced(input, init);
      } catch (err) {
        exchange.error = err instanceof Error ? err.message : String(err);
        this.log.add({ kind, title: `${TITLE[kind]}: no answer`, detail: exchange.error, status: 'failed', exchange });
        throw err;
      }
      const text = await res
        .clone()
        .text()
        .catch(() => '');
      Object.assign(exchange, {
        status: res.status,
        responseHeaders: maskHeaders(res.headers),
        durationMs: this.owner.clock.now() - started,
        responseBody: maskBody(text, res.headers.get('content-type')),
      });
      this.record(kind, exchange, text, res.ok, form);
      return res;
    };
  }

  private classify(url: URL, method: string, form: URLSearchParams | undefined): StepKind {
    if (url.pathname.startsWith(WELL_KNOWN_PRM)) return 'resource-metadata';
    if (WELL_KNOWN_AS.some((p) => url.pathname.startsWith(p) || url.pathname.endsWith(p))) return 'server-metadata';
    if (method === 'POST' && url.href === this.registrationEndpoint) return 'registration';
    if (method === 'POST' && (url.href === this.tokenEndpoint || form?.has('grant_type')))
      return form?.get('grant_type') === 'refresh_token' ? 'refresh' : 'token';
    return 'other';
  }

  private record(kind: StepKind, exchange: Exchange, text: string, ok: boolean, form: URLSearchParams | undefined): void {
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    const facts: Record<string, string> = {};
    const put = (k: string, v: unknown) => {
      if (v !== undefined && v !== null) facts[k] = Array.isArray(v) ? v.join(' ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
    };
    let detail = ok
      ? ''
      : `The answer was ${exchange.status}${json?.error ? `: ${String(json.error)}${json.error_description ? ` (${String(json.error_description)})` : ''}` : ''}.`;
    if (ok && json && kind === 'resource-metadata') {
      put('resource', json.resource);
      put('authorization_servers', json.authorization_servers);
      put('scopes_supported', json.scopes_supported);
      detail = 'The MCP server names its authorization server(s) and the resource identifier tokens must be for.';
    } else if (ok && json && kind === 'server-metadata') {
      this.issuer = typeof json.issuer === 'string' ? json.issuer : this.issuer;
      this.tokenEndpoint = typeof json.token_endpoint === 'string' ? json.token_endpoint : this.tokenEndpoint;
      this.registrationEndpoint = typeof json.registration_endpoint === 'string' ? json.registration_endpoint : this.registrationEndpoint;
      for (const k of [
        'issuer',
        'authorization_endpoint',
        'token_endpoint',
        'registration_endpoint',
        'code_challenge_methods_supported',
        'client_id_metadata_document_supported',
        'dpop_signing_alg_values_supported',
      ])
        put(k, json[k]);
      detail = 'Where to send the browser, where to get tokens, and how a client may register.';
    } else if (ok && json && kind === 'registration') {
      this.registration = 'dynamic registration';
      put('client_id', json.client_id);
      put('token_endpoint_auth_method', json.token_endpoint_auth_method);
      put('redirect_uris', json.redirect_uris);
      detail = 'The studio registered itself as a client (RFC 7591), with its own /oauth/callback as the redirect URI.';
    } else if (kind === 'token' || kind === 'refresh') {
      put('grant_type', form?.get('grant_type'));
      put('resource', form?.get('resource'));
      if (ok && json) {
        put('token_type', json.token_type);
        put('expires_in', json.expires_in);
        put('scope', json.scope);
        put('refresh_token', typeof json.refresh_token === 'string' ? 'issued' : undefined);
        const claims = typeof json.access_token === 'string' ? jwtClaims(json.access_token) : undefined;
        if (claims) put('access token (JWT) claims', (claims as { claims: unknown }).claims);
        this.fresh = true;
        this.owner.signedIn(this.server);
      }
      const verifier = form?.get('code_verifier');
      const challenge = this.log.last('authorization')?.facts?.code_challenge;
      if (verifier && challenge) {
        const computed = createHash('sha256').update(verifier).digest('base64url');
        put('PKCE check', computed === challenge ? 'BASE64URL(SHA256(code_verifier)) = code_challenge ✓' : 'the verifier does not match the challenge');
      }
      if (ok)
        detail =
          kind === 'token'
            ? `The code (with the PKCE verifier) was exchanged for an access token${json?.refresh_token ? ' and a refresh token' : ''}.`
            : 'The refresh token got a new access token, without the browser.';
    }
    this.log.add({ kind, title: TITLE[kind], detail, status: ok ? 'ok' : 'failed', exchange, ...(Object.keys(facts).length ? { facts } : {}) });
  }

  /** The client wants the person to sign in: the page shows the URL; the callback route answers. */
  private authorize(request: AuthorizationRequest): Promise<string> {
    const q = request.url.searchParams;
    const clientId = q.get('client_id') ?? '';
    const o = this.owner.options;
    const kind: OAuthView['registration'] =
      clientId === o.clientId
        ? 'pre-registered'
        : this.log.last('registration')?.facts?.client_id === clientId
          ? 'dynamic registration'
          : /^https?:\/\//.test(clientId)
            ? 'client ID metadata document'
            : 'dynamic registration';
    // Said once per client: a second sign-in with the same client is no news.
    if (kind !== 'dynamic registration' && this.log.last('client')?.facts?.client_id !== clientId)
      this.log.add({
        kind: 'client',
        title: kind === 'pre-registered' ? 'A pre-registered client' : 'A client ID metadata document',
        detail:
          kind === 'pre-registered'
            ? 'The client id given to the studio (--client-id): the authorization server knows it already, no registration.'
            : 'The client id is a URL: the authorization server fetches the client’s metadata from it, no registration.',
        status: 'ok',
        facts: { client_id: clientId },
      });
    this.registration = kind;
    this.issuer = request.issuer;
    const facts: Record<string, string> = {};
    for (const k of ['response_type', 'client_id', 'redirect_uri', 'scope', 'resource', 'code_challenge', 'code_challenge_method', 'state', 'dpop_jkt']) {
      const v = q.get(k);
      if (v !== null) facts[k] = v;
    }
    const step = this.log.add({
      kind: 'authorization',
      title: `Sign in at ${request.issuer}`,
      detail:
        'PKCE: the client made a random code_verifier and sends only its SHA-256 (code_challenge, S256); the verifier goes with the code to the token endpoint. Open the address to sign in; the authorization server sends the browser back to the studio.',
      status: 'waiting',
      facts,
      url: request.url.href,
    });
    this.waiting = { url: request.url.href, issuer: request.issuer, state: request.state };
    return new Promise<string>((resolve, reject) => {
      this.owner.expect(request.state, {
        server: this.server,
        resolve: (url) => {
          this.waiting = undefined;
          this.log.update(step, { status: 'ok' });
          const back = new URL(url);
          const code = back.searchParams.get('code');
          const error = back.searchParams.get('error');
          this.log.add({
            kind: 'callback',
            title: error ? `The authorization server refused: ${error}` : 'The browser came back with a code',
            detail: `The redirect to ${back.origin}${back.pathname} carried the state this sign-in made${back.searchParams.get('iss') ? ' and the issuer (iss, RFC 9207)' : ''}.`,
            status: error ? 'failed' : 'ok',
            facts: {
              ...(code ? { code: `•••• (${code.length} characters)` } : {}),
              state: 'matches',
              ...(back.searchParams.get('iss') ? { iss: back.searchParams.get('iss')! } : {}),
              ...(error
                ? { error, ...(back.searchParams.get('error_description') ? { error_description: back.searchParams.get('error_description')! } : {}) }
                : {}),
            },
          });
          resolve(url);
        },
        reject: (err) => {
          this.waiting = undefined;
          this.log.update(step, { status: 'failed', detail: err.message });
          reject(err);
        },
      });
    });
  }

  async signOut(): Promise<void> {
    await this.auth.logout();
    this.fresh = false;
    this.log.add({ kind: 'signed-out', title: 'Signed out', detail: 'The tokens were forgotten; the next request signs in again.', status: 'info' });
  }
}

const TITLE: Record<StepKind, string> = {
  challenge: 'The server asks for authorization',
  'resource-metadata': 'Protected resource metadata (RFC 9728)',
  'server-metadata': 'Authorization server metadata (RFC 8414)',
  client: 'The client',
  registration: 'Dynamic client registration (RFC 7591)',
  authorization: 'Authorization in the browser',
  callback: 'Back from the authorization server',
  token: 'Token request',
  refresh: 'Refresh',
  authorized: 'Authorized',
  'signed-out': 'Signed out',
  other: 'Another exchange',
};

/** The sign-ins of every HTTP server of the studio. */
export class StudioOAuth {
  private readonly servers = new Map<string, ServerAuth>();
  private readonly pending = new Map<string, Pending>();
  /** Closed, or the server forgotten: a sign-in that starts after it gives up at once. */
  private closed = false;
  private readonly gone = new Set<string>();
  redirectUri = 'http://127.0.0.1/oauth/callback';

  constructor(
    readonly options: StudioOAuthOptions,
    readonly clock: Clock,
    private readonly onChange: (view: OAuthView) => void,
    private readonly onSignedIn: (server: string) => void,
  ) {}

  /** The studio's address, once it listens: the redirect URI is its /oauth/callback. */
  setOrigin(origin: string): void {
    this.redirectUri = `${origin}/oauth/callback`;
  }

  /**
   * The fetch of `server`'s transport: through the sign-in for an HTTP target that brings no
   * credentials of its own (an Authorization header given on the command line is used as is).
   */
  fetchFor(server: string, target: Target | undefined, traced: typeof fetch): typeof fetch {
    if (this.options.disabled || target?.kind !== 'http' || Object.keys(target.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) return traced;
    this.gone.delete(server);
    let s = this.servers.get(server);
    if (s) s.rewire(traced);
    else {
      s = new ServerAuth(server, target.url, this, traced);
      this.servers.set(server, s);
    }
    return s.auth.fetch;
  }

  view(server: string): OAuthView {
    return this.servers.get(server)?.view() ?? { server, enabled: false, steps: [], signedIn: false };
  }

  async signOut(server: string): Promise<boolean> {
    const s = this.servers.get(server);
    if (!s || s.auth.tokens === undefined) return false;
    await s.signOut();
    return true;
  }

  /** Gives up a sign-in waiting for the browser. */
  cancel(server: string): boolean {
    for (const [state, p] of this.pending) {
      if (p.server !== server) continue;
      this.pending.delete(state);
      p.reject(new Error('The sign-in was cancelled in the studio'));
      return true;
    }
    return false;
  }

  /**
   * The redirect back from an authorization server: handed to the sign-in that made its `state`.
   * Returns the server's name, or undefined when no sign-in waits for that state (nothing happens).
   */
  callback(url: URL): string | undefined {
    const state = url.searchParams.get('state');
    if (!state) return undefined;
    const p = this.pending.get(state);
    if (!p) return undefined;
    this.pending.delete(state);
    p.resolve(url.href);
    return p.server;
  }

  forget(server: string): void {
    this.cancel(server);
    if (this.servers.delete(server)) this.gone.add(server);
  }

  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new Error('The studio is closing'));
    this.pending.clear();
  }

  /** @internal */
  expect(state: string, p: Pending): void {
    // A connection still discovering when the studio closed (or the server went) must not wait for a browser.
    if (this.closed || this.gone.has(p.server) || this.servers.get(p.server)?.auth === undefined) {
      p.reject(new Error(this.closed ? 'The studio is closing' : 'The server was removed from the studio'));
      return;
    }
    this.pending.set(state, p);
  }

  /** @internal */
  changed(server: string): void {
    const s = this.servers.get(server);
    if (s) this.onChange(s.view());
  }

  /** @internal */
  signedIn(server: string): void {
    this.onSignedIn(server);
  }
}

export type { OAuthStep, OAuthView };
