/** The authorization server's options and the records and callbacks they are made of. */
import type { Clock } from '../../engine/clock.js';
import type { HttpRequestView } from '../http/exchange.js';
import type { HostLookup } from './cimd-get.js';
import type { SigningKeyInput } from './signing.js';
import type { AuthorizationStore } from './store.js';
import type { Upstream } from './upstream.js';

export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** A client the server knows: pre-registered, registered dynamically, or read from its metadata document. */
export interface ClientRecord {
  client_id: string;
  /** Confidential clients only. */
  client_secret?: string;
  /** Default `none` when there is no secret, else `client_secret_basic`. */
  token_endpoint_auth_method?: ClientAuthMethod;
  /**
   * Exact redirect URIs. An `http` loopback one (127.0.0.1, [::1], localhost) matches any port,
   * as RFC 8252 §7.3 asks for native apps whose port is picked when they start.
   */
  redirect_uris: string[];
  /** Default ['authorization_code', 'refresh_token']. */
  grant_types?: string[];
  client_name?: string;
  /**
   * Other metadata: of a dynamic registration, only the RFC 7591 fields this server keeps
   * (`client_uri`, `logo_uri`, `contacts`, `scope`...; see registration-metadata.ts); of a
   * pre-registered client or a metadata document, whatever it carries. Never interpreted.
   */
  [field: string]: unknown;
}

/** The validated authorization request the login step decides on. */
export interface AuthorizationParams {
  clientId: string;
  redirectUri: string;
  state?: string;
  scopes: string[];
  /** RFC 8707 resources (the audiences asked for); empty when none was named. */
  resources: string[];
  codeChallenge: string;
}

export interface LoginContext {
  /** The request to the authorization endpoint (cookies, headers: whatever the application signs users in with). */
  request: HttpRequestView;
  /** The form posted back to the authorization endpoint by the application's own sign-in page, if any. */
  form?: URLSearchParams;
  params: AuthorizationParams;
  client: ClientRecord;
}

/**
 * What the login step decides: `subject` approves for that user (optionally granting fewer
 * `scopes`, adding `claims` to the access token); `deny` sends the client `access_denied`;
 * `respond` shows a page of the application's (a sign-in form, a consent screen) that comes back
 * to the same authorization URL, by GET or by POSTing a form to it.
 */
export type LoginDecision =
  | { subject: string; scopes?: string[]; claims?: Record<string, unknown> }
  | { deny: true; description?: string }
  | { respond: { status?: number; headers?: Record<string, string>; body: string } };

export type Login = (context: LoginContext) => LoginDecision | Promise<LoginDecision>;

export interface ClientIdMetadataOptions {
  /** Largest document accepted, in bytes. Default 5120 (the draft's recommendation). */
  maxBytes?: number;
  /** The whole fetch (resolution, connection, document), in milliseconds of the server's `clock`. Default 5000. */
  timeoutMs?: number;
  /** How long a fetched document is used, in seconds, unless its Cache-Control says less. Default 300, at most 86400. */
  cacheSec?: number;
  /**
   * Accept `http` client ids and hosts that resolve to loopback or private addresses. For tests
   * and local development only: in production a client id URL pointing inside the network is an
   * SSRF vector.
   */
  allowInsecure?: boolean;
  /**
   * Resolves a document's host name to all its addresses. Default node:dns `lookup` (`all: true`).
   * It is asked once per fetch, and the connection goes to the address it gave: tests make a name
   * resolve to loopback with it, without touching /etc/hosts.
   */
  lookup?: HostLookup;
}

/** Who may register a client, how often, how many are kept and for how long (RFC 7591). */
export interface DynamicRegistrationOptions {
  /**
   * RFC 7591 §3: registration needs `Authorization: Bearer <initial access token>` with one of
   * these tokens (compared in constant time), or one the function accepts; without one it is
   * 401. Default: open registration (anyone may register, within the limits below).
   */
  initialAccessToken?: string | readonly string[] | ((token: string, request: HttpRequestView) => boolean | Promise<boolean>);
  /**
   * Registrations per client address, counted in this process: at most `requests` in any
   * `windowSec` (a token bucket), beyond which 429 with `Retry-After`. Default 20 an hour;
   * false turns it off.
   */
  rateLimit?: false | RegistrationRateLimit;
  /**
   * Most registrations kept at once (expired ones do not count). A registration beyond it is
   * refused with 503 "registration store full" until some expire: nobody's is evicted. Shared by
   * every instance on one store when the store implements `reserve` (both built-in stores do).
   * Default 10000.
   */
  maxClients?: number;
  /** A registration no authorization has been completed with (no token issued) is removed after this many seconds. Default 86400 (one day). */
  unusedTtlSec?: number;
  /** A registration that got tokens is kept this many seconds past its last use of the token endpoint. Default: `refreshTokenTtlSec`. */
  idleTtlSec?: number;
  /** Largest registration request, in bytes (413 beyond it). Default 8192. */
  maxBodyBytes?: number;
  /** Most redirect URIs one client may register. Default 10. */
  maxRedirectUris?: number;
}

export interface RegistrationRateLimit {
  /** Registrations allowed in a window, and the burst allowed at once. Default 20. */
  requests?: number;
  /** The window, in seconds. Default 3600. */
  windowSec?: number;
  /**
   * The address a request counts against. Default: the connection's remote address (IPv6
   * addresses by their /64, which one host usually has whole). Behind a reverse proxy every
   * request comes from the proxy: derive it from the header your proxy sets (and only that
   * proxy can set). Requests with no address share one count.
   */
  key?: (request: HttpRequestView) => string | undefined;
}

/** How the server knows a client: configured, registered at `/register`, or described by its metadata document. */
export type ClientRegistrationKind = 'pre-registered' | 'dynamic' | 'metadata-document';

export interface ConsentContext {
  client: ClientRecord;
  registration: ClientRegistrationKind;
  params: AuthorizationParams;
  /** The request to the authorization endpoint. */
  request: HttpRequestView;
}

/**
 * Proxy mode's consent step, decided before the user is sent upstream: `allow` goes on without a
 * page, `deny` sends the client `access_denied`, `ask` shows the consent page (unless this browser
 * and user already allowed this client). Default: pre-registered clients `allow`, others `ask`.
 */
export type ConsentDecider = (context: ConsentContext) => 'allow' | 'deny' | 'ask' | Promise<'allow' | 'deny' | 'ask'>;

export interface AuthorizationServerOptions {
  /**
   * The issuer identifier (`https://auth.example.com`, or with a path where the server is
   * mounted). Endpoints are served under its path. Default: derived per request from the Host
   * header, with no path: for development only (a token's `iss` then depends on the Host the
   * client used).
   */
  issuer?: string;
  /**
   * The login step of the authorization endpoint: who the user is and whether they approve.
   * Required unless `upstream` federates sign-in. `autoApprove(subject)` approves everything
   * (tests, the conformance suite).
   */
  login?: Login;
  /** Federate sign-in to an upstream identity provider (`githubUpstream`, `googleUpstream`, `oidcUpstream`). */
  upstream?: Upstream;
  /**
   * Proxy mode only: which clients need the user's consent page before the user is sent upstream
   * (docs/oauth-server.md, "Consent"). Default: every client but the pre-registered ones.
   */
  consent?: ConsentDecider;
  /** Proxy mode: how long the user's Allow for a client is remembered in this browser, seconds. Default 30 days. */
  consentTtlSec?: number;
  /** Pre-registered clients. */
  clients?: readonly ClientRecord[];
  /**
   * Dynamic client registration (RFC 7591) at `<issuer>/register`. Default true (with the
   * default limits of DynamicRegistrationOptions); false turns it off; an object sets limits,
   * the initial access token, expiry.
   */
  dynamicRegistration?: boolean | DynamicRegistrationOptions;
  /** Client ID metadata documents (URL client ids, MCP 2025-11-25). Default on; false turns them off. */
  clientIdMetadata?: boolean | ClientIdMetadataOptions;
  /** Scopes clients may ask for (`scopes_supported`); undefined accepts any. */
  scopesSupported?: readonly string[];
  /** Scopes granted when a client names none. Default none. */
  defaultScopes?: readonly string[];
  /**
   * The resources (RFC 8707) tokens may be issued for: a request naming another is refused with
   * `invalid_target`. Undefined accepts any absolute URI.
   */
  resources?: readonly string[];
  /** The audience of tokens when the client names no resource. Default: the only entry of `resources`, else the issuer. */
  defaultResource?: string;
  /** Refuse authorization requests without a `resource`. Default false. */
  requireResource?: boolean;
  /** Access token lifetime, seconds. Default 3600. */
  accessTokenTtlSec?: number;
  /** Refresh token lifetime, seconds (each rotation starts it again). Default 30 days. */
  refreshTokenTtlSec?: number;
  /** Authorization code lifetime, seconds. Default 60. */
  codeTtlSec?: number;
  /** Issue refresh tokens (rotated on every use). Default true. */
  refreshTokens?: boolean;
  /** Signing keys; default one ES256 key generated at start (see signing.ts for what that means with several instances). */
  signingKeys?: readonly SigningKeyInput[];
  /** Where codes, refresh tokens and registrations live. Default in memory. */
  store?: AuthorizationStore;
  /**
   * For the upstream provider (a proxy agent, a test double). Default globalThis.fetch. Client
   * metadata documents are not fetched with it: their fetch must connect to the address it
   * checked (see `clientIdMetadata.lookup`).
   */
  fetch?: typeof globalThis.fetch;
  clock?: Clock;
  /**
   * Told about failures that are the server's, not the client's (a store or an upstream down),
   * and why a client metadata document was refused (the client only hears that it was). Default: stderr.
   */
  onError?: (error: Error) => void;
}
