// How calls to the API authenticate. Credentials go into request headers only: they are never
// part of a tool's schema or result, so the model never sees them.
import { systemClock, type Clock } from '../../engine/clock.js';
import type { AuthInfo } from '../../engine/transport.js';
import { OpenApiError } from './errors.js';
import { networkReason } from './load.js';
import { fetchFollowing, RedirectRefused } from './redirects.js';
import { textToBase64 } from '../../protocol/encoding.js';

export type OpenApiAuth =
  /** A fixed header on every call: `{ type: 'header', name: 'X-API-Key', value: '...' }`. */
  | { type: 'header'; name: string; value: string }
  /** `Authorization: Bearer ...` with `token`, or with the value of the environment variable `env` (read when the tools are set up). */
  | { type: 'bearer'; token?: string; env?: string }
  /** OAuth 2.0 client credentials: a token is fetched from `tokenUrl` and reused until it expires. */
  | ({ type: 'clientCredentials' } & ClientCredentials)
  /**
   * The caller's own token (the MCP request's `authInfo.token`, set by the HTTP server's OAuth
   * or API-key check) sent on to the API, as `Authorization: Bearer ...` unless `header` names
   * another header (then the bare token). A call that carries no token fails with a clear result.
   */
  | { type: 'passThrough'; header?: string };

export interface ClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scopes?: string[];
  /** Sent as `audience` (Auth0 and others want it). */
  audience?: string;
  /** How the client authenticates to the token endpoint: HTTP Basic (default) or form fields. */
  authMethod?: 'basic' | 'body';
}

/** Adds one credential to a request's headers. */
export interface AuthApplier {
  apply(headers: Record<string, string>, caller: AuthInfo | undefined, signal: AbortSignal): Promise<void> | void;
  /** The API answered 401: a cached credential is dropped (the call is retried once with a new one). */
  invalidate?(): boolean;
}

export interface AuthSetup {
  env?: Record<string, string | undefined>;
  fetch?: typeof fetch;
  clock?: Clock;
}

/** Checks an auth option and returns what applies it (an unset env var is refused here, at setup). */
export function authApplier(auth: OpenApiAuth, setup: AuthSetup = {}): AuthApplier {
  switch (auth.type) {
    case 'header':
      if (!auth.name || typeof auth.value !== 'string') throw new OpenApiError('auth "header": needs a header name and a value');
      return { apply: (h) => void (h[auth.name.toLowerCase()] = auth.value) };
    case 'bearer': {
      let token = auth.token;
      if (auth.env !== undefined) {
        token = (setup.env ?? process.env)[auth.env];
        if (!token) throw new OpenApiError(`auth "bearer": the environment variable ${auth.env} is not set (it should hold the API's token)`);
      }
      if (!token) throw new OpenApiError('auth "bearer": give a token or the name of an environment variable holding it (env)');
      const value = `Bearer ${token}`;
      return { apply: (h) => void (h.authorization = value) };
    }
    case 'clientCredentials':
      return new ClientCredentialsAuth(auth, setup.fetch ?? fetch, setup.clock ?? systemClock);
    case 'passThrough': {
      const header = auth.header?.toLowerCase() ?? 'authorization';
      return {
        apply: (h, caller) => {
          if (!caller?.token) {
            throw new OpenApiError(
              "This API is called with the caller's own credentials, and this MCP request carried none (serve with OAuth or --api-key so that requests are authenticated)",
            );
          }
          h[header] = header === 'authorization' ? `Bearer ${caller.token}` : caller.token;
        },
      };
    }
    default:
      throw new OpenApiError(`Unknown auth type ${JSON.stringify((auth as { type?: unknown }).type)} (header, bearer, clientCredentials or passThrough)`);
  }
}

/** Renews this long before expiry (ms), so a token never expires on its way to the API. */
const EXPIRY_MARGIN = 30_000;

/** OAuth 2.0 client credentials (RFC 6749 §4.4), one token shared by all calls until it expires. */
export class ClientCredentialsAuth implements AuthApplier {
  private token: { value: string; type: string; expiresAt: number } | undefined;
  private pending: Promise<{ value: string; type: string; expiresAt: number }> | undefined;

  constructor(
    private readonly options: ClientCredentials,
    private readonly fetchFn: typeof fetch,
    private readonly clock: Clock,
  ) {
    if (!options.tokenUrl || !options.clientId || !options.clientSecret)
      throw new OpenApiError('auth "clientCredentials": needs tokenUrl, clientId and clientSecret');
  }

  async apply(headers: Record<string, string>): Promise<void> {
    let token = this.token;
    if (token === undefined || this.clock.now() >= token.expiresAt) {
      // Calls that arrive while a token is being fetched wait for the same one.
      this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
      token = this.token = await this.pending;
    }
    headers.authorization = `${token.type} ${token.value}`;
  }

  invalidate(): boolean {
    const had = this.token !== undefined;
    this.token = undefined;
    return had;
  }

  private async fetchToken(): Promise<{ value: string; type: string; expiresAt: number }> {
    const { tokenUrl, clientId, clientSecret, scopes, audience, authMethod } = this.options;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes?.length) form.set('scope', scopes.join(' '));
    if (audience) form.set('audience', audience);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const credentials: Record<string, string> = {};
    if (authMethod === 'body') {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    } else {
      // RFC 6749 §2.3.1: each part form-encoded before Base64.
      const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      credentials.authorization = `Basic ${textToBase64(`${enc(clientId)}:${enc(clientSecret)}`)}`;
    }
    const started = this.clock.now();
    let res: Response;
    try {
      // The client secret (in a header, or in the body a 307 would repeat) never follows a
      // redirect to another origin.
      res = await fetchFollowing(
        { url: tokenUrl, method: 'POST', headers, credentials, body: form.toString() },
        { fetch: this.fetchFn, maxRedirects: 5, crossOrigin: 'refuse' },
      );
    } catch (err) {
      if (err instanceof RedirectRefused) throw new OpenApiError(`Could not get an access token from ${tokenUrl}: ${err.message}`);
      throw new OpenApiError(`Could not get an access token from ${tokenUrl}: ${networkReason(err)}`);
    }
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Reported below with the text itself.
    }
    if (!res.ok || typeof json.access_token !== 'string') {
      const why =
        typeof json.error === 'string' ? `${json.error}${typeof json.error_description === 'string' ? `: ${json.error_description}` : ''}` : text.slice(0, 200);
      throw new OpenApiError(`Could not get an access token from ${tokenUrl}: HTTP ${res.status}${why ? ` (${why})` : ''}`);
    }
    const lifetime = typeof json.expires_in === 'number' ? json.expires_in * 1000 : 3600_000;
    const type = typeof json.token_type === 'string' && json.token_type.toLowerCase() !== 'bearer' ? json.token_type : 'Bearer';
    return { value: json.access_token, type, expiresAt: started + Math.max(lifetime - EXPIRY_MARGIN, lifetime / 2) };
  }
}
