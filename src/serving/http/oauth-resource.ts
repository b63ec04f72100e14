/**
 * The HTTP server as an OAuth 2.1 resource server, as the MCP authorization spec asks: Protected
 * Resource Metadata (RFC 9728) at the well-known paths, bearer tokens from the Authorization
 * header only (RFC 6750) or DPoP-bound ones with their proofs (RFC 9449), audience and expiry
 * checks, and scope challenges (401/403 with a `WWW-Authenticate` that sends the client to the
 * metadata and names every scope it needs). Token validation itself (signature, introspection)
 * is the application's `verifyToken`; proofs are checked in dpop-proof.ts.
 */
import { systemClock, type Clock } from '../../engine/clock.js';
import type { AuthInfo } from '../../engine/transport.js';
import { bindingError, DpopProofVerifier, type DpopProofResult, type DpopResourceOptions } from './dpop-proof.js';
import { requestOrigin, type HeaderMap, type HttpRequestView, type HttpResponder } from './exchange.js';
import { sendError } from './responses.js';

export interface OAuthResourceOptions {
  /**
   * Issuer identifiers of the authorization servers that issue tokens for this server (at least
   * one). Published as they are written: clients compare issuers exactly.
   */
  authorizationServers: readonly string[];
  /**
   * Validates a bearer token and says who it belongs to; undefined refuses it (401
   * `invalid_token`). It MUST check the signature or ask the authorization server
   * (introspection), and MUST check the audience when the token format has one: either compare
   * it with `resource` here, or return it as `audience` and the check is done for you. Return
   * `expiresAt` (seconds since the epoch) and `scopes` so that expiry and scopes are enforced.
   * A throw answers 500 and goes to the server's `onerror`.
   */
  verifyToken(token: string, req: HttpRequestView, resource: string): AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * The canonical URL of the MCP endpoint, as clients reach it (`https://api.example.com/mcp`):
   * the `resource` of the metadata and the audience tokens must name. Default: derived from each
   * request: `http://<Host header><endpoint>` (https on a TLS socket; the fetch adapter takes
   * the Request's URL).
   * Set it in production: behind a proxy the derived one is wrong, and a derived audience is
   * only as trustworthy as the Host header (see `allowedHosts`).
   */
  resource?: string;
  /** `scopes_supported` of the metadata (what a client asks for when no challenge names scopes). */
  scopesSupported?: readonly string[];
  /** Scopes every request needs; a token without them gets 403 `insufficient_scope`. */
  requiredScopes?: readonly string[];
  /**
   * More scopes one JSON-RPC request needs, beyond `requiredScopes`. `name` is the tool or
   * prompt name (`tools/call`, `prompts/get`) or the resource URI (`resources/read`,
   * `resources/subscribe`, `resources/unsubscribe`); undefined for other methods.
   */
  scopesFor?: (method: string, name: string | undefined) => readonly string[] | undefined;
  /**
   * Whether the granted scopes satisfy `needed`, for scope hierarchies (`files:write` implying
   * `files:read`...). Default: `needed` is granted literally.
   */
  hasScope?: (granted: readonly string[], needed: string) => boolean;
  /** `resource_name`: a human-readable name for consent screens. */
  resourceName?: string;
  /** `resource_documentation`: a URL of documentation for developers. */
  resourceDocumentation?: string;
  /**
   * DPoP (RFC 9449, MCP SEP-1932): tokens bound to a key the client proves it holds with a
   * signed proof on every request. Default on: `Authorization: DPoP` is accepted beside Bearer,
   * and a token whose AuthInfo has `confirmation.jkt` only as DPoP, with a valid proof of that
   * key. `false`: Bearer only, bound tokens refused. An object tunes it (`required` refuses
   * Bearer altogether).
   */
  dpop?: boolean | DpopResourceOptions;
  /**
   * Clock skew allowed on the token's `expiresAt`, in seconds: a token is refused as expired
   * once `expiresAt` is this far past. Default 30, as `jwtAccessTokens` allows on `exp` (a
   * token passes both checks, so the smaller of the two is what counts). 0: none.
   */
  clockToleranceSec?: number;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
/** About refresh tokens, not about this resource: never advertised, challenged or required. */
const OFFLINE_ACCESS = 'offline_access';
/** RFC 6750 §2.1 b64token (RFC 9449 §7.1 for DPoP), after the scheme and its spaces. */
const TOKEN = /^(?:bearer|dpop) +([A-Za-z0-9\-._~+/]+=*) *$/i;
const BEARER_SCHEME = /^bearer(?: |$)/i;
const DPOP_SCHEME = /^dpop(?: |$)/i;
/** RFC 6749 §3.3 scope-token. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** Epoch seconds beyond this are surely milliseconds (this is the year 5138 in seconds). */
const MS_THRESHOLD = 1e11;
const CORS = { 'access-control-allow-origin': '*' };

type Kind = 'endpoint' | 'sse';

function fail(message: string): never {
  throw new TypeError(`oauth: ${message}`);
}

function httpUrl(raw: unknown, what: string): URL {
  let u: URL;
  try {
    u = new URL(String(raw));
  } catch {
    return fail(`${what} ${JSON.stringify(raw)} is not an absolute URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') fail(`${what} ${JSON.stringify(raw)} must be an https (or http) URL`);
  if (u.hash || String(raw).includes('#')) fail(`${what} ${JSON.stringify(raw)} must not have a fragment`);
  return u;
}

/** The canonical form of a resource URI: lower-case scheme and host (URL does that), no "/" alone as path. */
function canonical(u: URL): string {
  const s = u.href;
  return u.pathname === '/' && !u.search && s.endsWith('/') ? s.slice(0, -1) : s;
}

/** For comparing audiences: canonical, and a trailing slash is not a different resource. */
export function audienceKey(raw: string): string | undefined {
  try {
    return canonical(new URL(raw)).replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

function scopeList(raw: readonly string[] | undefined, what: string): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail(`${what} must be an array of strings`);
  for (const s of raw)
    if (typeof s !== 'string' || !SCOPE_TOKEN.test(s)) fail(`${what} has an invalid scope ${JSON.stringify(s)} (no spaces, quotes or backslashes)`);
  return raw.filter((s) => s !== OFFLINE_ACCESS);
}

/** An auth-param value as an RFC 9110 quoted-string. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** The JSON-RPC name `scopesFor` gets for a request. */
function nameOf(method: string, params: unknown): string | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const p = params as { name?: unknown; uri?: unknown };
  let v: unknown;
  if (method === 'tools/call' || method === 'prompts/get') v = p.name;
  else if (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe') v = p.uri;
  return typeof v === 'string' ? v : undefined;
}

/** A string where an array belongs would make `includes` a substring test: only arrays count. */
function grantedOf(info: AuthInfo | undefined): readonly string[] {
  return Array.isArray(info?.scopes) ? info.scopes : [];
}

interface Challenge {
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';
  description?: string;
  scopes?: readonly string[];
  headers?: HeaderMap;
}

type Proof = Extract<DpopProofResult, { ok: true }>;

const challenge = (scheme: string, params: readonly string[]) => (params.length ? `${scheme} ${params.join(', ')}` : scheme);

/**
 * One server's resource-server side. Built once from the options (which it validates); each
 * request then costs a header parse, the application's `verifyToken` and a few comparisons.
 */
export class OAuthResourceGuard {
  private readonly o: OAuthResourceOptions;
  private readonly servers: string[];
  private readonly supported: string[] | undefined;
  private readonly required: string[];
  private readonly has: (granted: readonly string[], needed: string) => boolean;
  /** Path of each resource identifier on this server (the endpoint, and the HTTP+SSE stream). */
  private readonly paths: Record<Kind, string>;
  private messagesPath: string | undefined;
  /** With a configured `resource`: the identifiers, fixed. */
  private fixed: Record<Kind, string> | undefined;
  private readonly metadata = new Map<string, Kind>();
  /** Set when `scopesFor` is: only then is a body worth looking at. */
  readonly perMessage: boolean;
  /** Unless `dpop: false`. */
  private readonly dpop: DpopProofVerifier | undefined;
  private readonly toleranceMs: number;

  constructor(
    options: OAuthResourceOptions,
    endpoint: string,
    private readonly onError: (error: Error) => void = () => {},
    /** Where token expiry is read against (the server's clock; tests pass a ManualClock). */
    private readonly clock: Clock = systemClock,
  ) {
    if (!options || typeof options !== 'object') fail('the options must be an object');
    const servers = options.authorizationServers;
    if (!Array.isArray(servers) || servers.length === 0)
      fail('authorizationServers must list at least one authorization server issuer URL (RFC 9728 requires one)');
    for (const s of servers) {
      const u = httpUrl(s, 'authorization server');
      if (u.search) fail(`authorization server ${JSON.stringify(s)} must not have a query (RFC 8414 issuer)`);
    }
    if (typeof options.verifyToken !== 'function') fail('verifyToken(token, req, resource) is required: the server cannot accept tokens it cannot check');
    this.o = options;
    this.servers = [...servers];
    this.supported = options.scopesSupported === undefined ? undefined : scopeList(options.scopesSupported, 'scopesSupported');
    this.required = scopeList(options.requiredScopes, 'requiredScopes');
    this.has = options.hasScope ?? ((granted, needed) => granted.includes(needed));
    this.perMessage = typeof options.scopesFor === 'function';
    const tolerance = options.clockToleranceSec ?? 30;
    if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) fail('clockToleranceSec must be a non-negative number of seconds');
    this.toleranceMs = tolerance * 1000;
    const dpop = options.dpop;
    this.dpop = dpop === false ? undefined : new DpopProofVerifier(dpop === true || dpop === undefined ? {} : dpop);
    this.paths = { endpoint, sse: endpoint };
    if (options.resource !== undefined) {
      const u = httpUrl(options.resource, 'resource');
      this.fixed = { endpoint: canonical(u), sse: canonical(u) };
    }
    this.index();
  }

  /**
   * The HTTP+SSE transport on the same port: its stream path is a resource identifier of its
   * own (clients check that the metadata's `resource` covers the URL they connect to), and its
   * POSTs belong to it.
   */
  addLegacy(ssePath: string, messagesPath: string): void {
    this.paths.sse = ssePath;
    this.messagesPath = messagesPath;
    if (this.fixed) {
      // The configured URL may carry a proxy's prefix: keep it, swap the endpoint for the stream.
      const u = new URL(this.fixed.endpoint);
      const e = this.paths.endpoint;
      u.pathname = u.pathname.endsWith(e) ? u.pathname.slice(0, -e.length) + ssePath : ssePath;
      this.fixed.sse = canonical(u);
    }
    this.index();
  }

  private index(): void {
    const m = this.metadata;
    m.clear();
    m.set(WELL_KNOWN, 'endpoint');
    for (const kind of ['sse', 'endpoint'] as const) {
      m.set(WELL_KNOWN + this.paths[kind], kind);
      if (this.fixed) m.set(new URL(this.metadataUrl(this.fixed[kind])).pathname, kind);
    }
  }

  /** The paths of the Protected Resource Metadata documents (for routers that need them listed). */
  metadataPaths(): string[] {
    return [...this.metadata.keys()];
  }

  /** Whether `path` is one of the Protected Resource Metadata documents served here. */
  isMetadataPath(path: string): boolean {
    return this.metadata.has(path);
  }

  private kindOf(path: string): Kind {
    return path === this.paths.endpoint || (path !== this.paths.sse && path !== this.messagesPath) ? 'endpoint' : 'sse';
  }

  /** The resource identifier a request is for; undefined when its Host header makes no URL. */
  resourceFor(req: HttpRequestView, kind: Kind = this.kindOf(req.path)): string | undefined {
    if (this.fixed) return this.fixed[kind];
    const origin = requestOrigin(req);
    return origin === undefined ? undefined : origin + this.paths[kind];
  }

  /** RFC 9728 §3.1: the well-known suffix goes between the host and the path. */
  private metadataUrl(resource: string): string {
    const u = new URL(resource);
    return `${u.origin}${WELL_KNOWN}${u.pathname === '/' ? '' : u.pathname}${u.search}`;
  }

  /** GET of a metadata document (public, and readable by browser clients of any origin). */
  serveMetadata(req: HttpRequestView, res: HttpResponder): void {
    if (req.method === 'OPTIONS') {
      return res.send(204, { ...CORS, 'access-control-allow-methods': 'GET, OPTIONS', 'access-control-allow-headers': '*', 'access-control-max-age': '86400' });
    }
    if (req.method !== 'GET')
      return sendError(res, 405, `Method Not Allowed: ${req.method}; the protected resource metadata is read with GET`, -32600, {
        ...CORS,
        allow: 'GET, OPTIONS',
      });
    const resource = this.resourceFor(req, this.metadata.get(req.path));
    if (resource === undefined) return sendError(res, 400, 'Bad Request: the Host header does not form a valid URL');
    const doc: Record<string, unknown> = { resource, authorization_servers: this.servers };
    if (this.supported) doc.scopes_supported = this.supported;
    doc.bearer_methods_supported = ['header'];
    if (this.dpop) doc.dpop_signing_alg_values_supported = this.dpop.algorithms;
    if (this.dpop?.required) doc.dpop_bound_access_tokens_required = true;
    if (this.o.resourceName !== undefined) doc.resource_name = this.o.resourceName;
    if (this.o.resourceDocumentation !== undefined) doc.resource_documentation = this.o.resourceDocumentation;
    res.send(200, { ...CORS, 'content-type': 'application/json' }, JSON.stringify(doc));
  }

  /**
   * A Bearer challenge, and with DPoP a DPoP one too (RFC 9449 §7.1; only that one when Bearer is
   * refused). Both carry `scope` and `resource_metadata`, which MCP clients need whichever scheme
   * they read; the error goes on the scheme the request used.
   */
  private refuse(req: HttpRequestView, res: HttpResponder, status: number, message: string, c: Challenge = {}): undefined {
    const resource = this.resourceFor(req);
    const common: string[] = [];
    const scopes = c.scopes ?? this.required;
    if (scopes.length > 0) common.push(`scope=${quoted(scopes.join(' '))}`);
    if (resource !== undefined) common.push(`resource_metadata=${quoted(this.metadataUrl(resource))}`);
    const error: string[] = [];
    if (c.error) error.push(`error=${quoted(c.error)}`);
    if (c.description) error.push(`error_description=${quoted(c.description)}`);
    const dpop = this.dpop;
    const onDpop = dpop !== undefined && (dpop.required || DPOP_SCHEME.test(req.header('authorization') ?? ''));
    const challenges: string[] = [];
    if (!dpop?.required) challenges.push(challenge('Bearer', onDpop ? common : [...error, ...common]));
    if (dpop) challenges.push(challenge('DPoP', [...(onDpop ? error : []), `algs=${quoted(dpop.algs)}`, ...common]));
    sendError(res, status, message, -32600, { ...c.headers, 'www-authenticate': challenges.join(', ') });
    return undefined;
  }

  /** A `verifyToken` or nonce source that threw: the server's fault, not the caller's. */
  private crashed(res: HttpResponder, err: unknown): undefined {
    this.onError(err instanceof Error ? err : new Error(String(err)));
    sendError(res, 500, 'Internal error: the access token could not be verified', -32603);
    return undefined;
  }

  /**
   * Admission of one request: the caller's AuthInfo, or undefined once the refusal is sent
   * (400 malformed, 401 missing or invalid token, 403 missing `requiredScopes`, 500 when
   * `verifyToken` throws).
   */
  async admit(req: HttpRequestView, res: HttpResponder): Promise<AuthInfo | undefined> {
    // RFC 6750 §2.3 query tokens leak into logs and history; the MCP spec forbids them.
    if (req.query.includes('access_token') && new URLSearchParams(req.query).has('access_token')) {
      return this.refuse(req, res, 400, 'Bad Request: access tokens are accepted in the Authorization header only, never in the query string', {
        error: 'invalid_request',
        description: 'access tokens go in the Authorization header',
      });
    }
    const header = req.header('authorization');
    const dpop = this.dpop;
    const scheme = header === undefined ? undefined : BEARER_SCHEME.test(header) ? 'Bearer' : dpop && DPOP_SCHEME.test(header) ? 'DPoP' : undefined;
    // No credentials, or another scheme (Basic...): a plain challenge, without an error code (RFC 6750 §3.1).
    if (scheme === undefined)
      return this.refuse(
        req,
        res,
        401,
        `Unauthorized: ${!dpop ? 'a bearer token' : dpop.required ? 'a DPoP-bound access token' : 'an access token (Bearer or DPoP)'} is required`,
      );
    const token = TOKEN.exec(header!)?.[1];
    if (token === undefined) {
      return this.refuse(req, res, 400, `Bad Request: malformed Authorization header (expected "${scheme} <token>")`, {
        error: 'invalid_request',
        description: 'malformed Authorization header',
      });
    }
    if (scheme === 'Bearer' && dpop?.required) {
      return this.refuse(req, res, 401, 'Unauthorized: this server accepts DPoP-bound access tokens only', {
        error: 'invalid_token',
        description: 'DPoP-bound access tokens only',
      });
    }
    const resource = this.resourceFor(req);
    if (resource === undefined) {
      sendError(res, 400, 'Bad Request: the Host header does not form a valid URL');
      return undefined;
    }
    let proof: Proof | undefined;
    if (scheme === 'DPoP') {
      // Before verifyToken: a forged proof never costs an introspection or a key fetch.
      const checked = await dpop!.check(req.header('dpop'), req.method, this.requestUrl(req, resource), token).catch((err: unknown) => this.crashed(res, err));
      if (!checked) return undefined;
      if (!checked.ok) {
        const headers = checked.nonce === undefined ? undefined : { 'dpop-nonce': checked.nonce };
        return this.refuse(req, res, 401, `Unauthorized: ${checked.description}`, { error: checked.error, description: checked.description, headers });
      }
      proof = checked;
    }
    let info: AuthInfo | undefined;
    try {
      info = await this.o.verifyToken(token, req, resource);
    } catch (err) {
      return this.crashed(res, err);
    }
    if (!info)
      return this.refuse(req, res, 401, 'Unauthorized: the access token is invalid', { error: 'invalid_token', description: 'the access token is invalid' });
    const exp = info.expiresAt;
    if (typeof exp === 'number' && (exp >= MS_THRESHOLD ? exp : exp * 1000) + this.toleranceMs <= this.clock.now()) {
      return this.refuse(req, res, 401, 'Unauthorized: the access token has expired', { error: 'invalid_token', description: 'the access token has expired' });
    }
    if (info.audience !== undefined && !this.audienceMatches(info.audience, req)) {
      return this.refuse(req, res, 401, `Unauthorized: the access token was not issued for ${resource}`, {
        error: 'invalid_token',
        description: 'the access token was issued for another resource',
      });
    }
    // Only DPoP requests and bound tokens go further here: a plain Bearer request pays one read.
    if (proof || info.confirmation !== undefined) {
      const unbound = bindingError(info.confirmation, proof, dpop !== undefined);
      if (unbound) return this.refuse(req, res, 401, `Unauthorized: ${unbound}`, { error: 'invalid_token', description: unbound });
      if (proof && !dpop!.accept(proof)) {
        return this.refuse(req, res, 401, 'Unauthorized: the DPoP proof was used before', {
          error: 'invalid_dpop_proof',
          description: 'the DPoP proof was used before',
        });
      }
      if (proof?.nonce !== undefined) res.setHeader?.('dpop-nonce', proof.nonce);
    }
    if (this.required.length > 0) {
      const granted = grantedOf(info);
      if (!this.required.every((s) => this.has(granted, s))) {
        return this.refuse(req, res, 403, `Forbidden: insufficient scope; this server needs: ${this.required.join(' ')}`, { error: 'insufficient_scope' });
      }
    }
    return info;
  }

  /**
   * The URL the request was addressed to as the client sees it, for a proof's `htu`: the
   * resource itself, or for the HTTP+SSE POSTs a path beside it (under the same proxy prefix).
   */
  private requestUrl(req: HttpRequestView, resource: string): string {
    if (req.path === this.paths.endpoint || req.path === this.paths.sse) return resource;
    const u = new URL(resource);
    const own = this.paths[this.kindOf(req.path)];
    const prefix = u.pathname.endsWith(own) ? u.pathname.slice(0, -own.length) : '';
    return u.origin + prefix + req.path;
  }

  /** The endpoint and the HTTP+SSE stream are one server: a token for either is for this server. */
  private audienceMatches(audience: string | readonly string[], req: HttpRequestView): boolean {
    const mine = new Set<string | undefined>(
      [this.resourceFor(req, 'endpoint'), this.resourceFor(req, 'sse')].map((r) => (r === undefined ? undefined : audienceKey(r))),
    );
    mine.delete(undefined);
    const list = typeof audience === 'string' ? [audience] : audience;
    return Array.isArray(list) && list.some((a) => typeof a === 'string' && mine.has(audienceKey(a)));
  }

  /**
   * The per-request scopes of a POSTed body (one message or a batch). True when the token has
   * them all; otherwise a 403 naming every scope the whole body needs (no drip of one
   * challenge per missing scope) is sent. Notifications and responses need only admission.
   */
  checkMessages(messages: readonly unknown[], info: AuthInfo | undefined, req: HttpRequestView, res: HttpResponder): boolean {
    const scopesFor = this.o.scopesFor;
    if (!scopesFor) return true;
    const granted = grantedOf(info);
    let needed: Set<string> | undefined;
    let missing = false;
    for (const m of messages) {
      if (!m || typeof m !== 'object' || !('method' in m) || !('id' in m)) continue;
      const { method, params } = m as { method: unknown; params?: unknown };
      if (typeof method !== 'string') continue;
      const extra = scopesFor(method, nameOf(method, params));
      if (!extra || extra.length === 0) continue;
      for (const s of extra) {
        if (typeof s !== 'string' || s === OFFLINE_ACCESS || s === '') continue;
        (needed ??= new Set(this.required)).add(s);
        if (!missing && !this.has(granted, s)) missing = true;
      }
    }
    if (!missing) return true;
    const all = [...needed!];
    this.refuse(req, res, 403, `Forbidden: insufficient scope; this request needs: ${all.join(' ')}`, { error: 'insufficient_scope', scopes: all });
    return false;
  }
}
