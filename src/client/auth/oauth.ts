/**
 * OAuth for MCP over HTTP, as a fetch wrapper: every request carries the access token; a 401,
 * or a 403 `insufficient_scope`, runs discovery and a grant, then the request is sent again.
 * Because it sits under the transports, the Streamable HTTP POSTs, GET streams and DELETE, the
 * HTTP+SSE transport and the era probe are all covered the same way.
 */
import { parseAuthChallenge, type AuthChallenge } from './challenge.js';
import { dpopProver, isDpopBound, type DpopProver } from './dpop.js';
import { OAuthFlowError } from './errors.js';
import {
  authorizationCodeGrant,
  clientCredentialsGrant,
  jwtBearerGrant,
  coversScopes,
  existingClient,
  grantOf,
  initialScope,
  obtainClient,
  refreshGrant,
  unionScopes,
  withOfflineAccess,
  type FlowContext,
} from './flow.js';
import { canonicalResource, discover, type Discovery } from './metadata.js';
import type { OAuthOptions } from './options.js';
import { MemoryOAuthStore, type OAuthStore, type StoredTokens } from './store.js';
import type { OAuthTokens } from './token-endpoint.js';
import { urlPolicy } from './url-policy.js';
import { LATEST_HANDSHAKE_VERSION } from '../../protocol/versions.js';

/** Refresh this long before the access token expires, so a request does not race the expiry. */
const EXPIRY_MARGIN_MS = 30_000;

export class OAuthClientAuth {
  /** The MCP endpoint these credentials are for (its URL without query or fragment). */
  readonly serverUrl: string;
  private readonly options: OAuthOptions;
  private readonly store: OAuthStore;
  private readonly checkUrl: (url: string, what: string) => URL;
  private baseFetch: typeof fetch;
  private discovery: Discovery | undefined;
  private discoveredFrom: string | undefined;
  private current: StoredTokens | undefined;
  /** One authorization at a time: concurrent 401s wait for it and retry with its tokens. */
  private inFlight: Promise<void> | undefined;
  /** Scope sets already authorized that the server still refused: asking again would loop. */
  private readonly failedScopes = new Set<string>();
  /** The DPoP key of this client (none when `dpop` is false); used where the AS supports DPoP. */
  private readonly dpop: DpopProver | undefined;

  constructor(serverUrl: string | URL, options: OAuthOptions = {}, baseFetch?: typeof fetch) {
    const u = new URL(serverUrl);
    u.hash = '';
    u.search = '';
    this.serverUrl = u.href;
    this.options = options;
    this.store = options.store ?? new MemoryOAuthStore();
    this.checkUrl = urlPolicy(this.serverUrl, options);
    this.baseFetch = plainCall(baseFetch ?? globalThis.fetch);
    this.dpop = dpopProver(options.dpop);
  }

  /** The fetch the transports use; bound, so it can be passed around on its own. */
  readonly fetch: typeof fetch = (input, init) => this.send(input, init);

  /** Uses `f` for the MCP requests (the authorization server calls use `options.fetch`, else this). */
  wrap(f: typeof fetch): this {
    this.baseFetch = plainCall(f);
    return this;
  }

  /** The tokens in use, if any (after a sign-in, or loaded from the store on the first 401). */
  get tokens(): OAuthTokens | undefined {
    return this.current?.tokens;
  }

  /** The authorization server found by discovery, once a request needed it. */
  get issuer(): string | undefined {
    return this.discovery?.issuer;
  }

  /** Forgets the tokens here and in the store (the client registration stays). */
  async logout(): Promise<void> {
    const d = this.discovery;
    this.current = undefined;
    if (d) await this.store.clear(d.issuer, d.resource);
  }

  private ctx(d?: Discovery): FlowContext {
    const dpop = d && this.dpop?.usableWith(d) ? this.dpop : undefined;
    return { fetch: this.options.fetch ? plainCall(this.options.fetch) : this.baseFetch, options: this.options, checkUrl: this.checkUrl, dpop };
  }

  private async send(input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> {
    // A body we cannot send twice (a stream) gets one try; MCP transports send strings.
    const replayable =
      (init?.body === undefined || init.body === null || typeof init.body === 'string' || init.body instanceof URLSearchParams) &&
      !(input instanceof Request && input.body !== null && init?.body === undefined);
    const max = this.options.maxAuthorizations ?? 3;
    let authorizations = 0;
    let nonceRetries = 0;
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    for (;;) {
      if (this.inFlight) await this.inFlight.catch(() => {});
      await this.refreshIfExpiring();
      const token = this.current?.tokens.access_token;
      const dpop = token !== undefined && isDpopBound(this.current!.tokens) ? this.dpop : undefined;
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      if (token) headers.set('authorization', `${dpop ? 'DPoP' : 'Bearer'} ${token}`);
      const nonce = dpop?.nonceFor(url);
      if (dpop) headers.set('dpop', await dpop.proof(method, url, { accessToken: token, nonce }));
      const res = await this.baseFetch(input, { ...init, headers });
      this.dpop?.remember(url, res.headers);
      if (res.status !== 401 && res.status !== 403) return res;
      const challenge = parseAuthChallenge(res.headers.get('www-authenticate'), dpop ? 'DPoP' : 'Bearer');
      // RFC 9449 §9: the server wants its nonce in the proof. The token was not refused, so this
      // is the same request again, not an authorization.
      if (dpop && res.status === 401 && challenge?.error === 'use_dpop_nonce') {
        if (!replayable || nonceRetries++ >= 2 || dpop.nonceFor(url) === nonce) return res;
        res.body?.cancel().catch(() => {});
        continue;
      }
      const stepUp = res.status === 403;
      if (stepUp && challenge?.error !== 'insufficient_scope') return res;
      if (!replayable || authorizations >= max) return res;
      // Another request is signing in, or signed in or renewed the token while this one was
      // out: wait for it and send again with its token (one sign-in for concurrent requests).
      if (this.inFlight || (this.current && this.current.tokens.access_token !== token)) {
        res.body?.cancel().catch(() => {});
        continue;
      }
      if (!this.worthTrying(token, challenge, stepUp)) return res;
      authorizations++;
      const run = this.authorize(challenge, stepUp, token);
      this.inFlight = run;
      try {
        await run;
      } catch (err) {
        // A 401 from a server with another kind of authentication (an API key): the caller
        // gets it as is, not an error from endpoints that were only guessed.
        if (this.notOAuth(err)) return res;
        res.body?.cancel().catch(() => {});
        throw err;
      } finally {
        if (this.inFlight === run) this.inFlight = undefined;
      }
      res.body?.cancel().catch(() => {});
    }
  }

  /**
   * Whether `err` shows the server does not use OAuth at all: no PRM, no authorization server
   * metadata, and the 2025-03-26 default endpoints tried on that guess do not exist (404).
   */
  private notOAuth(err: unknown): boolean {
    const d = this.discovery;
    return err instanceof OAuthFlowError && err.status === 404 && d !== undefined && !d.resourceMetadata && !d.metadata;
  }

  /**
   * Whether another authorization could change the answer. A 403 for scopes that were asked for
   * and granted would only be refused again: the MCP spec asks clients not to loop on it.
   */
  private worthTrying(token: string | undefined, challenge: AuthChallenge | undefined, stepUp: boolean): boolean {
    if (!token || !stepUp) return true;
    const cur = this.current;
    const wanted = unionScopes(cur?.requestedScope, challenge?.scope) ?? '';
    if (this.failedScopes.has(wanted)) return false;
    // Everything challenged was asked for already: if the AS (or the user) granted less, asking
    // again gets the same answer, so this is a failed upgrade too, whatever the token's `scope`.
    if (coversScopes(cur?.requestedScope, challenge?.scope)) {
      this.failedScopes.add(wanted);
      return false;
    }
    return true;
  }

  /**
   * Discovery, reused while it can be: `again` when the server refused a token it should have
   * taken, since the reason may be a new authorization server in its PRM (SEP-2352), whose
   * issuer then gets its own registration and tokens.
   */
  private async discoverFor(challenge: AuthChallenge | undefined, again = false): Promise<Discovery> {
    const from = challenge?.resourceMetadata;
    if (this.discovery && !again && (from === undefined || from === this.discoveredFrom)) return this.discovery;
    const d = await discover(
      { fetch: this.ctx().fetch, checkUrl: this.checkUrl, protocolVersion: LATEST_HANDSHAKE_VERSION },
      this.serverUrl,
      from,
      this.options.selectAuthorizationServer,
    );
    const before = this.discovery;
    this.discovery = d;
    this.discoveredFrom = from;
    // Tokens are bound to an issuer and a resource: after a change, never the previous ones.
    if (!this.current || !before || before.issuer !== d.issuer || before.resource !== d.resource)
      this.current = await this.usable(await this.store.getTokens(d.issuer, d.resource));
    return d;
  }

  /** Stored DPoP-bound tokens (the refresh token too) work only with the key that obtained them. */
  private async usable(stored: StoredTokens | undefined): Promise<StoredTokens | undefined> {
    if (!stored || (stored.dpopJkt === undefined && !isDpopBound(stored.tokens))) return stored;
    return this.dpop && stored.dpopJkt === (await this.dpop.thumbprint()) ? stored : undefined;
  }

  private async authorize(challenge: AuthChallenge | undefined, stepUp: boolean, sent: string | undefined): Promise<void> {
    const d = await this.discoverFor(challenge, !stepUp && sent !== undefined && sent === this.current?.tokens.access_token);
    const ctx = this.ctx(d);
    const previous = this.current;
    // The refused request carried these tokens (not none, nor another authorization server's).
    const hadToken = sent !== undefined && previous?.tokens.access_token === sent;
    // Tokens just loaded from the store, not sent yet, may simply work.
    if (!hadToken && previous && !stepUp && coversScopes(previous.tokens.scope ?? previous.requestedScope, challenge?.scope)) return;
    const storedClient = await this.store.getClient(d.issuer);
    const { client, fresh } = await obtainClient(ctx, d, storedClient);
    if (fresh) await this.store.saveClient(d.issuer, client);
    // A 401 on an expired or revoked token: a refresh token gets a new one without the user
    // (it belongs to the client that obtained it, so not after a new registration).
    if (!stepUp && !fresh && previous?.tokens.refresh_token && coversScopes(previous.requestedScope, challenge?.scope)) {
      try {
        const tokens = await refreshGrant(ctx, d, client, previous.tokens.refresh_token);
        tokens.refresh_token ??= previous.tokens.refresh_token;
        await this.keep(d, { tokens, requestedScope: previous.requestedScope });
        return;
      } catch {
        // Refused (revoked, expired): a full authorization follows.
      }
    }
    const scope =
      hadToken || stepUp
        ? (unionScopes(previous?.requestedScope, challenge?.scope) ?? initialScope(ctx, d, challenge?.scope))
        : initialScope(ctx, d, challenge?.scope);
    const grant = grantOf(this.options);
    const requested = grant === 'authorization_code' ? withOfflineAccess(ctx, d, scope) : scope;
    let tokens: OAuthTokens;
    try {
      tokens =
        grant === 'client_credentials'
          ? await clientCredentialsGrant(ctx, d, client, requested)
          : grant === 'jwt-bearer'
            ? await jwtBearerGrant(ctx, d, client, requested)
            : await authorizationCodeGrant(ctx, d, client, requested);
    } catch (err) {
      // A stored registration the AS no longer knows: forget it, so the next attempt registers anew.
      if (!fresh && storedClient && err instanceof OAuthFlowError && err.code === 'invalid_client') await this.store.clear(d.issuer, undefined, true);
      throw err;
    }
    await this.keep(d, { tokens, requestedScope: requested });
  }

  private async keep(d: Discovery, stored: StoredTokens): Promise<void> {
    if (this.dpop && isDpopBound(stored.tokens)) stored.dpopJkt = await this.dpop.thumbprint();
    this.current = stored;
    await this.store.saveTokens(d.issuer, d.resource, stored);
  }

  private async refreshIfExpiring(): Promise<void> {
    const cur = this.current;
    const d = this.discovery;
    if (!cur?.tokens.expires_at || !cur.tokens.refresh_token || !d) return;
    // Short-lived tokens get half their lifetime as the margin, or every request would refresh.
    const lifetime = typeof cur.tokens.expires_in === 'number' ? cur.tokens.expires_in * 1000 : Infinity;
    if (cur.tokens.expires_at - Math.min(EXPIRY_MARGIN_MS, lifetime / 2) > Date.now()) return;
    // Another request is renewing already: wait for it rather than refresh twice (a rotated
    // refresh token works once) or send the old token.
    if (this.inFlight) {
      await this.inFlight.catch(() => {});
      return;
    }
    const run = (async () => {
      const ctx = this.ctx(d);
      // Only with the client the refresh token belongs to: registering a new one (a store that
      // kept the tokens but lost the registration) would happen before every request, in vain.
      const client = existingClient(ctx, d, await this.store.getClient(d.issuer));
      if (!client) return;
      const tokens = await refreshGrant(ctx, d, client, cur.tokens.refresh_token!);
      tokens.refresh_token ??= cur.tokens.refresh_token;
      await this.keep(d, { tokens, requestedScope: cur.requestedScope });
    })();
    this.inFlight = run;
    try {
      await run;
    } catch {
      // The request goes out with the old token; a 401 then runs the full flow.
    } finally {
      if (this.inFlight === run) this.inFlight = undefined;
    }
  }
}

/**
 * `f` called as a plain function: a browser's fetch throws "Illegal invocation" when called as a
 * method of another object (`this.baseFetch(...)`, `ctx.fetch(...)`).
 */
function plainCall(f: typeof fetch): typeof fetch {
  return (input, init) => f(input, init);
}

/** The server URL a resource indicator names for `url` (exported for tests and tools). */
export { canonicalResource };
