/**
 * A built-in `verifyToken` for JWT access tokens (RFC 9068 and the plain JWTs most authorization
 * servers issue), so that an OAuth-protected server needs no JWT library: the signature is
 * checked with Web Crypto against the issuer's published keys, then the issuer, audience and
 * validity window. Every refusal is `undefined` (the guard answers 401 `invalid_token`); the
 * reason is deliberately not surfaced, since telling a caller which check failed helps forgers.
 * A DPoP-bound token (`cnf.jkt`) comes out with its `confirmation`, for the guard to demand the
 * proof.
 */
import type { AuthInfo } from '../../engine/transport.js';
import { systemClock, type Clock } from '../../engine/clock.js';
import type { HttpRequestView } from './exchange.js';
import { ALGORITHMS, parseCompactJws, RemoteJwks, verifySignature, type JwsAlgorithm } from './jwks.js';
import { audienceKey } from './oauth-resource.js';

export type { JwsAlgorithm } from './jwks.js';

/** The payload of a JWT access token; the registered and RFC 9068 claims typed, the rest `unknown`. */
export interface JwtClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  /** RFC 9068 / RFC 8693: space-separated scopes. */
  scope?: string;
  /** Okta, Entra ID and others: scopes as an array (Okta) or a space-separated string (Entra ID). */
  scp?: string | string[];
  client_id?: string;
  /** OIDC's authorized party: the client, for servers that put it here instead of `client_id`. */
  azp?: string;
  /** RFC 7800 confirmation: `jkt` for a DPoP-bound token (RFC 9449 §6). */
  cnf?: { jkt?: string; [method: string]: unknown };
  [claim: string]: unknown;
}

export interface JwtAccessTokenOptions {
  /** The authorization server's issuer identifier; the `iss` claim must equal it exactly. */
  issuer: string;
  /**
   * The audience(s) a token must name in `aud`, any one sufficing. Default: the `resource`
   * verifyToken is given (the server's canonical URL), which is what RFC 8707 clients ask for.
   * When set, the audience check is done here only: the AuthInfo carries no `audience` for the
   * guard to compare with the resource again (an `api://…` audience would never match it).
   */
  audience?: string | readonly string[];
  /** The JWK Set URL. Default: `jwks_uri` of the issuer's RFC 8414 metadata, else its OpenID configuration. */
  jwksUri?: string;
  /** Accepted `alg`s. Default RS256, PS256, ES256, ES384, EdDSA (Ed25519). `none` and HMAC are never accepted. */
  algorithms?: readonly JwsAlgorithm[];
  /** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. Default 30. */
  clockToleranceSec?: number;
  /** Claims a token must carry (any value but null), beyond `iss`, `aud` and `exp`. */
  requiredClaims?: readonly string[];
  /**
   * RFC 9068 to the letter: `typ` must be `at+jwt` (so that an ID token or another JWT signed
   * by the same keys cannot pass as an access token), and `sub`, `client_id`, `iat`, `jti` must
   * be present. Default false: `typ` may also be `JWT` or absent, as many servers issue them.
   */
  strict?: boolean;
  /**
   * Builds the AuthInfo from verified claims. `mapped` is the default mapping (undefined when the
   * token has neither `sub` nor `client_id`). Returning undefined refuses the token; a throw is a
   * bug and answers 500 through the server's `onerror`. A bound token's `confirmation` is set on
   * what it returns whatever it does, so that a mapping cannot turn it into a bearer token.
   */
  toAuthInfo?: (claims: JwtClaims, mapped: AuthInfo | undefined) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** For the metadata and JWKS requests (a proxy agent, a test double). Default: globalThis.fetch. */
  fetch?: typeof globalThis.fetch;
  /** How long fetched keys are used before they are fetched again, in seconds. Default 600. */
  jwksMaxAgeSec?: number;
  /** The least time between two fetches of the keys, in seconds: bounds refetches for unknown `kid`s and retries after a failure. Default 30. */
  jwksCooldownSec?: number;
  /** Timeout of each metadata or JWKS request, in milliseconds. Default 5000. */
  fetchTimeoutMs?: number;
  /** Where token times (exp, nbf, iat) and key age are checked against (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
  /**
   * Told once when the keys cannot be loaded (unreachable JWKS, bad metadata), and again only
   * after they loaded in between. Bad tokens are not reported. Default: a line on stderr.
   */
  onError?: (error: Error) => void;
}

/** A function to pass as `oauth.verifyToken`; `resource` is needed unless `audience` was given. */
export type JwtAccessTokenVerifier = (token: string, req?: HttpRequestView, resource?: string) => Promise<AuthInfo | undefined>;

interface JwsHeader {
  alg?: unknown;
  kid?: unknown;
  typ?: unknown;
  crit?: unknown;
}

interface Parsed {
  header: JwsHeader;
  claims: JwtClaims;
  signingInput: string;
  signature: Uint8Array<ArrayBuffer>;
}

const DEFAULT_ALGORITHMS: readonly JwsAlgorithm[] = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];
/** RFC 9068 §2.2. */
const STRICT_CLAIMS = ['sub', 'client_id', 'iat', 'jti'];
/** Far beyond any real access token; keeps a hostile header from costing more than a parse of this much. */
const MAX_TOKEN_CHARS = 64 * 1024;

function fail(message: string): never {
  throw new TypeError(`jwtAccessTokens: ${message}`);
}

function httpUrl(raw: unknown, what: string): string {
  let u: URL | undefined;
  try {
    u = new URL(String(raw));
  } catch {
    // reported below
  }
  if (typeof raw !== 'string' || !u || (u.protocol !== 'https:' && u.protocol !== 'http:'))
    fail(`${what} must be an absolute https (or http) URL, got ${JSON.stringify(raw)}`);
  return raw;
}

function amount(raw: number | undefined, fallback: number, what: string): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0) fail(`${what} must be a non-negative number`);
  return raw;
}

/** A compact JWS with a JSON object payload, and not too large to be an access token. */
function parse(token: string): Parsed | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return undefined;
  const jws = parseCompactJws(token);
  if (!jws || jws.signature.length === 0) return undefined;
  return { header: jws.header as JwsHeader, claims: jws.payload as JwtClaims, signingInput: jws.signingInput, signature: jws.signature };
}

/** RFC 9068 §4: `at+jwt`, with or without the `application/` prefix, case-insensitively. */
function typeAccepted(typ: unknown, strict: boolean): boolean {
  if (typ === undefined) return !strict;
  if (typeof typ !== 'string') return false;
  const t = typ.toLowerCase().replace(/^application\//, '');
  return t === 'at+jwt' || (!strict && t === 'jwt');
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const audKey = (a: string): string => audienceKey(a) ?? a;

function scopesOf(claims: JwtClaims): string[] {
  const raw = typeof claims.scope === 'string' ? claims.scope : claims.scp;
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return list.filter((s): s is string => typeof s === 'string' && s !== '');
}

/** A DPoP key binding's `jkt` (a base64url SHA-256), '' for a token not bound, undefined for a binding that cannot be checked here (RFC 8705 mTLS...). */
function bindingOf(claims: JwtClaims): string | undefined {
  const cnf: unknown = claims.cnf;
  if (cnf === undefined) return '';
  if (!cnf || typeof cnf !== 'object' || Array.isArray(cnf)) return undefined;
  const members = Object.keys(cnf);
  const jkt = (cnf as { jkt?: unknown }).jkt;
  return members.length === 1 && typeof jkt === 'string' && /^[A-Za-z0-9_-]{43}$/.test(jkt) ? jkt : undefined;
}

/** The default AuthInfo of verified claims; undefined when nothing names the caller. */
function mapClaims(claims: JwtClaims, token: string, withAudience: boolean): AuthInfo | undefined {
  const clientId = text(claims.client_id) ?? text(claims.azp);
  const principal = text(claims.sub) ?? clientId;
  if (principal === undefined) return undefined;
  const info: AuthInfo = { principal, scopes: scopesOf(claims), token, expiresAt: claims.exp, extra: { claims } };
  if (clientId !== undefined) info.clientId = clientId;
  if (withAudience && claims.aud !== undefined) info.audience = typeof claims.aud === 'string' ? claims.aud : claims.aud.filter((a) => typeof a === 'string');
  return info;
}

/**
 * A `verifyToken` for JWT access tokens issued by `options.issuer`:
 *
 * ```ts
 * serve(server, { oauth: { authorizationServers: [issuer], resource, verifyToken: jwtAccessTokens({ issuer }) } });
 * ```
 *
 * Build it once: it holds the issuer's keys between requests.
 */
export function jwtAccessTokens(options: JwtAccessTokenOptions): JwtAccessTokenVerifier {
  if (!options || typeof options !== 'object') fail('the options must be an object');
  const issuer = httpUrl(options.issuer, 'issuer');
  const jwksUri = options.jwksUri === undefined ? undefined : httpUrl(options.jwksUri, 'jwksUri');
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  if (!Array.isArray(algorithms) || algorithms.length === 0) fail('algorithms must list at least one algorithm');
  for (const a of algorithms as readonly string[]) {
    if (/^(none|HS\d+)$/i.test(a)) fail(`${JSON.stringify(a)} is never accepted: unsigned tokens, and HMAC ones would need the authorization server's secret`);
    if (!Object.hasOwn(ALGORITHMS, a)) fail(`unsupported algorithm ${JSON.stringify(a)} (supported: ${Object.keys(ALGORITHMS).join(', ')})`);
  }
  const allowed = new Set<string>(algorithms);
  let fixedAudiences: Set<string> | undefined;
  if (options.audience !== undefined) {
    const list = typeof options.audience === 'string' ? [options.audience] : options.audience;
    if (!Array.isArray(list) || list.length === 0 || !list.every((a) => typeof a === 'string' && a !== ''))
      fail('audience must be a non-empty string or array of strings');
    fixedAudiences = new Set(list.map(audKey));
  }
  const toleranceMs = amount(options.clockToleranceSec, 30, 'clockToleranceSec') * 1000;
  const strict = options.strict === true;
  const extraClaims = options.requiredClaims ?? [];
  if (!Array.isArray(extraClaims) || !extraClaims.every((c) => typeof c === 'string')) fail('requiredClaims must be an array of claim names');
  const required = [...(strict ? STRICT_CLAIMS : []), ...extraClaims];
  const toAuthInfo = options.toAuthInfo;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') fail('no fetch: pass options.fetch');
  const clock = options.clock ?? systemClock;
  const jwks = new RemoteJwks({
    issuer,
    jwksUri,
    fetch: fetchImpl,
    maxAgeMs: amount(options.jwksMaxAgeSec, 600, 'jwksMaxAgeSec') * 1000,
    cooldownMs: amount(options.jwksCooldownSec, 30, 'jwksCooldownSec') * 1000,
    timeoutMs: amount(options.fetchTimeoutMs, 5000, 'fetchTimeoutMs'),
    onError: options.onError ?? ((e) => console.error(`[mcpkit] ${e.message}`)),
    clock,
  });

  /** Everything but the signature: cheap, and a token failing here never costs a JWKS fetch. */
  function claimsValid(claims: JwtClaims, audiences: ReadonlySet<string>): boolean {
    if (claims.iss !== issuer) return false;
    const aud = claims.aud;
    const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (!auds.some((a) => typeof a === 'string' && audiences.has(audKey(a)))) return false;
    const now = clock.now();
    if (!isTime(claims.exp) || claims.exp * 1000 + toleranceMs <= now) return false;
    if (claims.nbf !== undefined && (!isTime(claims.nbf) || claims.nbf * 1000 - toleranceMs > now)) return false;
    if (claims.iat !== undefined && (!isTime(claims.iat) || claims.iat * 1000 - toleranceMs > now)) return false;
    return required.every((name) => claims[name] !== undefined && claims[name] !== null);
  }

  return async function verifyJwtAccessToken(token: string, _req?: HttpRequestView, resource?: string): Promise<AuthInfo | undefined> {
    const audiences = fixedAudiences ?? (typeof resource === 'string' ? new Set([audKey(resource)]) : undefined);
    if (!audiences) fail('no audience to check the token against: call it with the resource (as the OAuth guard does) or set options.audience');
    const parsed = parse(token);
    if (!parsed) return undefined;
    const { header, claims } = parsed;
    if (typeof header.alg !== 'string' || !allowed.has(header.alg)) return undefined;
    const alg = header.alg as JwsAlgorithm;
    // RFC 7515 §4.1.11: extensions we do not implement must be refused, not ignored.
    if (header.crit !== undefined) return undefined;
    if (header.kid !== undefined && typeof header.kid !== 'string') return undefined;
    if (!typeAccepted(header.typ, strict) || !claimsValid(claims, audiences)) return undefined;
    // A sender-constrained token is only good with proof of its key: the guard checks DPoP
    // proofs, but nothing here could check another binding (an mTLS certificate...), and such a
    // token must not pass as a bearer one.
    const jkt = bindingOf(claims);
    if (jkt === undefined) return undefined;
    const key = await jwks.key(alg, header.kid);
    if (!key || !(await verifySignature(key, alg, parsed.signingInput, parsed.signature))) return undefined;
    const mapped = mapClaims(claims, token, fixedAudiences === undefined);
    if (mapped && jkt) mapped.confirmation = { jkt };
    if (!toAuthInfo) return mapped;
    const info = await toAuthInfo(claims, mapped);
    return info && jkt && info.confirmation?.jkt !== jkt ? { ...info, confirmation: { ...info.confirmation, jkt } } : info;
  };
}
