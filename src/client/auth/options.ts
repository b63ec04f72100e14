import type { DpopOptions } from './dpop.js';
import type { ClientKey } from './jwt.js';
import type { OAuthStore } from './store.js';
import type { UrlPolicyOptions } from './url-policy.js';

/** What the application is asked to do when the user must sign in. */
export interface AuthorizationRequest {
  /** The authorization URL to open in the user's browser. */
  url: URL;
  /** Where the authorization server will send the browser back to. */
  redirectUri: string;
  /** The `state` value in `url`; the callback must carry it back. */
  state: string;
  /** The authorization server's issuer, for display ("Sign in at ..."). */
  issuer: string;
}

/** Where a JWT bearer assertion will be presented. */
export interface AssertionTarget {
  /** The authorization server's issuer: the audience an assertion names. */
  issuer: string;
  /** The MCP server's resource identifier. */
  resource: string;
  tokenEndpoint: string;
  scope?: string;
}

/**
 * OAuth 2.1 for an MCP client over HTTP: what the MCP authorization spec asks of a client
 * (discovery, registration, PKCE, resource indicators, scope selection and step-up, refresh).
 */
export interface OAuthOptions extends UrlPolicyOptions {
  /**
   * Sends the user to `request.url` and resolves the URL the authorization server redirected
   * back to (with `code`, `state` and maybe `iss`), or the bare authorization code. Needed for
   * the authorization code grant. `loopbackAuthorize()` is a ready one for CLIs and desktop apps.
   */
  authorize?: (request: AuthorizationRequest) => Promise<string | URL>;
  /** The redirect URI registered for this client. Required with `authorize`. */
  redirectUri?: string;
  /**
   * For a sign-in by full-page redirect (a browser app whose `authorize` navigates away): the URL
   * the page was loaded at when the authorization server sent it back (`location.href`). With a
   * `store` that keeps pending authorizations (`WebStorageOAuthStore`), its code is exchanged
   * with the PKCE verifier saved before the page left, instead of signing in again.
   */
  callbackUrl?: string | URL;
  /**
   * `authorization_code` (a user signs in; the default when `authorize` is set),
   * `jwt-bearer` (an assertion from elsewhere; the default when `assertion` is set) or
   * `client_credentials` (machine to machine; the default otherwise).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  /**
   * For the JWT bearer grant (RFC 7523; the default grant when set): the assertion to present, or
   * a function that produces one for the authorization server found by discovery: a workload
   * identity token (SEP-1933), or an ID-JAG from `idJagAssertion()` (SEP-990).
   */
  assertion?: string | ((target: AssertionTarget) => string | Promise<string>);
  /** A pre-registered client id. Takes precedence over CIMD and dynamic registration. */
  clientId?: string;
  /** The pre-registered client's secret (for client_secret_basic / client_secret_post). */
  clientSecret?: string;
  /** A key for `private_key_jwt` client authentication. */
  privateKey?: ClientKey;
  /** How to authenticate at the token endpoint; by default from the registration and the AS metadata. */
  tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  /**
   * An https URL serving this client's Client ID Metadata Document. Used as the client id when
   * the authorization server supports CIMD (and no `clientId` is given).
   */
  clientMetadataUrl?: string;
  /** Fields for dynamic client registration (client_name, logo_uri...); defaults fill the rest. */
  clientMetadata?: Record<string, unknown>;
  /** The scope to ask for, instead of the challenge's or the server's `scopes_supported`. */
  scope?: string;
  /** Ask for `offline_access` (a refresh token) when the authorization server lists it. Default true. */
  offlineAccess?: boolean;
  /** Where registrations and tokens are kept. Default: in memory. */
  store?: OAuthStore;
  /** The fetch used to talk to the authorization server. Default: the transport's fetch. */
  fetch?: typeof fetch;
  /** Authorizations tried for one request before its 401/403 is handed back. Default 3. */
  maxAuthorizations?: number;
  /** Picks one of the PRM's authorization servers. Default: the first. */
  selectAuthorizationServer?: (servers: string[]) => string;
  /**
   * DPoP-bound tokens (RFC 9449, SEP-1932). By default they are asked for when the authorization
   * server's metadata lists the key's algorithm (ES256 for the generated key) in
   * `dpop_signing_alg_values_supported`; `false` never, `true` always. An object can bring the
   * key, so stored bound tokens stay usable across runs.
   */
  dpop?: boolean | DpopOptions;
}
