/**
 * DPoP proofs (RFC 9449 §4.3) as a resource server checks them, with Web Crypto only so that the
 * fetch adapter's runtimes work too: the JWS and the public key it carries, the request it names,
 * its age, the access token it covers, replays, and the server's own nonces (§8). Whether the
 * token is bound to the proof's key is the guard's part: it alone has the token's AuthInfo.
 */
import type { AuthInfo } from '../../engine/transport.js';
import { ALGORITHMS, parseCompactJws, verifySignature, type Jwk, type JwsAlgorithm } from './jwks.js';

/** `oauth.dpop` as an object. */
export interface DpopResourceOptions {
  /**
   * Refuse Bearer tokens altogether: every request needs a DPoP-bound token and its proof, and
   * the metadata says `dpop_bound_access_tokens_required`. Default false.
   */
  required?: boolean;
  /** Accepted proof algorithms (`algs` of the challenge). Default ES256 ES384 RS256 PS256 EdDSA; `none` and HMAC never. */
  algorithms?: readonly JwsAlgorithm[];
  /** How far a proof's `iat` may be from now, either way, in seconds. Default 300 (SEP-1932's ±5 minutes). */
  maxAgeSec?: number;
  /**
   * Server nonces (RFC 9449 §8): a proof without a current one gets 401 `use_dpop_nonce` and a
   * `DPoP-Nonce` header, which limits a proof made in advance to a nonce's lifetime. `true` or
   * options: built-in nonces; an object with `current` and `valid`: nonces of your own.
   * Default: none.
   */
  nonce?: boolean | DpopNonceOptions | DpopNonceSource;
  /** How many proofs (`jti`) are remembered to refuse replays, each until it is too old anyway. Default 10000. */
  replayCacheSize?: number;
}

export interface DpopNonceOptions {
  /**
   * The key nonces are derived from. Instances behind one load balancer need the same one (at
   * least 32 random bytes), or a nonce one hands out is refused by the next. Default: random,
   * per process.
   */
  secret?: string | Uint8Array;
  /** How long one nonce is handed out, in seconds; it is accepted for as long again after. Default 300. */
  lifetimeSec?: number;
}

/** Nonces of your own (a shared store...). */
export interface DpopNonceSource {
  /** The nonce to send now in `DPoP-Nonce`. */
  current(): string | Promise<string>;
  /** Whether a proof's `nonce` is acceptable. */
  valid(nonce: string): boolean | Promise<boolean>;
}

export type DpopProofResult =
  /** `nonce`: a newer nonce for a `DPoP-Nonce` header on the response. */
  | { ok: true; jkt: string; jti: string; expiresAtMs: number; nonce?: string }
  | { ok: false; error: 'invalid_dpop_proof' | 'use_dpop_nonce'; description: string; nonce?: string };

const DEFAULT_ALGORITHMS: readonly JwsAlgorithm[] = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'];
/** A proof is a key and a few short claims: a few kilobytes at most (an RSA-4096 key is under one). */
const MAX_PROOF_CHARS = 16 * 1024;
const MAX_JTI_CHARS = 256;
/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function fail(message: string): never {
  throw new TypeError(`oauth.dpop: ${message}`);
}

export function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function sha256(text: string): Promise<string> {
  return base64url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/**
 * RFC 7638: the SHA-256 of the key's required members in lexicographic order, the `jkt` a token
 * is bound to. Undefined for a key type DPoP does not use.
 */
export function jwkThumbprint(jwk: Jwk): Promise<string> | undefined {
  const members =
    jwk.kty === 'EC'
      ? { crv: jwk.crv, kty: 'EC', x: jwk.x, y: jwk.y }
      : jwk.kty === 'RSA'
        ? { e: jwk.e, kty: 'RSA', n: jwk.n }
        : jwk.kty === 'OKP'
          ? { crv: jwk.crv, kty: 'OKP', x: jwk.x }
          : undefined;
  return members && sha256(JSON.stringify(members));
}

/** The public key of a proof header, when it is one that can verify `alg` and holds nothing private. */
function publicKeyOf(raw: unknown, alg: JwsAlgorithm): Jwk | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const j = raw as Record<string, unknown>;
  // A private key here means the client leaked it: whatever it signs proves nothing.
  if (PRIVATE_MEMBERS.some((m) => j[m] !== undefined)) return undefined;
  const spec = ALGORITHMS[alg];
  if (j.kty !== spec.kty || (spec.crv !== undefined && j.crv !== spec.crv)) return undefined;
  const needed = spec.kty === 'RSA' ? ['n', 'e'] : spec.kty === 'EC' ? ['crv', 'x', 'y'] : ['crv', 'x'];
  if (!needed.every((m) => typeof j[m] === 'string' && j[m] !== '')) return undefined;
  return spec.kty === 'RSA'
    ? { kty: 'RSA', n: j.n as string, e: j.e as string }
    : spec.kty === 'EC'
      ? { kty: 'EC', crv: j.crv as string, x: j.x as string, y: j.y as string }
      : { kty: 'OKP', crv: j.crv as string, x: j.x as string };
}

/** htu comparison per RFC 9449 §4.3: scheme and host case-insensitively, default ports and dot segments normalized, query and fragment ignored. */
export function normalizeHtu(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
  u.search = '';
  u.hash = '';
  return u.href;
}

/**
 * The `jti`s of accepted proofs, each kept until its proof is too old to be accepted anyway.
 * Bounded: when full, the oldest entry goes first (its proof is the nearest to expiring).
 */
export class ReplayCache {
  private readonly seen = new Map<string, number>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.seen.size;
  }

  has(jti: string, now = Date.now()): boolean {
    const until = this.seen.get(jti);
    return until !== undefined && until > now;
  }

  /** Records `jti` unless it is already there (a replay): false then. */
  add(jti: string, untilMs: number, now = Date.now()): boolean {
    if (this.has(jti, now)) return false;
    // Insertion order is close to expiry order (every entry lives about as long): expired ones
    // sit at the front, so this stops at the first live entry once there is room.
    for (const [key, until] of this.seen) {
      if (until > now && this.seen.size < this.max) break;
      this.seen.delete(key);
    }
    this.seen.delete(jti);
    this.seen.set(jti, untilMs);
    return true;
  }
}

/** Nonces derived from a secret and the time slot: nothing to store, and the same on every instance sharing the secret. */
class SlotNonces implements DpopNonceSource {
  private readonly key: Promise<CryptoKey>;
  private readonly slots = new Map<number, Promise<string>>();

  constructor(
    secret: string | Uint8Array | undefined,
    private readonly lifetimeMs: number,
  ) {
    const bytes =
      secret === undefined
        ? globalThis.crypto.getRandomValues(new Uint8Array(32))
        : typeof secret === 'string'
          ? new TextEncoder().encode(secret)
          : new Uint8Array(secret);
    this.key = globalThis.crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  private of(slot: number): Promise<string> {
    let nonce = this.slots.get(slot);
    if (!nonce) {
      nonce = (async () => {
        const mac = await globalThis.crypto.subtle.sign('HMAC', await this.key, new TextEncoder().encode(`mcpkit dpop nonce ${slot}`));
        return base64url(new Uint8Array(mac).subarray(0, 16));
      })();
      this.slots.set(slot, nonce);
      for (const s of this.slots.keys()) if (s < slot - 1) this.slots.delete(s);
    }
    return nonce;
  }

  current(): Promise<string> {
    return this.of(Math.floor(Date.now() / this.lifetimeMs));
  }

  async valid(nonce: string): Promise<boolean> {
    const slot = Math.floor(Date.now() / this.lifetimeMs);
    return nonce === (await this.of(slot)) || nonce === (await this.of(slot - 1));
  }
}

function positive(raw: number | undefined, fallback: number, what: string): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw <= 0) fail(`${what} must be a positive number`);
  return raw;
}

function nonceSource(option: DpopResourceOptions['nonce']): DpopNonceSource | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return new SlotNonces(undefined, 300_000);
  if (typeof option !== 'object' || option === null) return fail('nonce must be a boolean, nonce options, or an object with current() and valid()');
  const custom = option as Partial<DpopNonceSource>;
  if (typeof custom.current === 'function' || typeof custom.valid === 'function') {
    if (typeof custom.current !== 'function' || typeof custom.valid !== 'function') fail('a nonce source needs both current() and valid()');
    return option as DpopNonceSource;
  }
  const o = option as DpopNonceOptions;
  if (o.secret !== undefined && typeof o.secret !== 'string' && !(o.secret instanceof Uint8Array)) fail('nonce.secret must be a string or bytes');
  if (o.secret !== undefined && o.secret.length < 16) fail('nonce.secret is too short to be a secret (use at least 32 random bytes)');
  return new SlotNonces(o.secret, positive(o.lifetimeSec, 300, 'nonce.lifetimeSec') * 1000);
}

type Refusal = Extract<DpopProofResult, { ok: false }>;
const invalid = (description: string): Refusal => ({ ok: false, error: 'invalid_dpop_proof', description });

/** The proof checks of one server, built once from `oauth.dpop`. */
export class DpopProofVerifier {
  readonly required: boolean;
  readonly algorithms: readonly JwsAlgorithm[];
  /** The `algs` auth-param of the DPoP challenge. */
  readonly algs: string;
  private readonly allowed: ReadonlySet<string>;
  private readonly maxAgeMs: number;
  private readonly nonces: DpopNonceSource | undefined;
  private readonly replays: ReplayCache;

  constructor(options: DpopResourceOptions = {}) {
    if (!options || typeof options !== 'object') fail('must be a boolean or an object');
    this.required = options.required === true;
    const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
    if (!Array.isArray(algorithms) || algorithms.length === 0) fail('algorithms must list at least one algorithm');
    for (const a of algorithms as readonly string[]) {
      if (/^(none|HS\d+)$/i.test(a)) fail(`${JSON.stringify(a)} is never accepted: a proof must be signed with a private key only the client has`);
      if (!Object.hasOwn(ALGORITHMS, a)) fail(`unsupported algorithm ${JSON.stringify(a)} (supported: ${Object.keys(ALGORITHMS).join(', ')})`);
    }
    this.algorithms = [...algorithms];
    this.algs = this.algorithms.join(' ');
    this.allowed = new Set(algorithms);
    this.maxAgeMs = positive(options.maxAgeSec, 300, 'maxAgeSec') * 1000;
    this.nonces = nonceSource(options.nonce);
    this.replays = new ReplayCache(Math.floor(positive(options.replayCacheSize, 10_000, 'replayCacheSize')));
  }

  /**
   * Checks the `DPoP` header of a request to `url` (what the client addressed, as the guard
   * sees it) presenting `accessToken`. The proof is not recorded yet: `accept` does that once
   * the token it covers was accepted, so that proofs of anyone holding no valid token cannot
   * fill the replay cache.
   */
  async check(header: string | undefined, method: string, url: string, accessToken: string): Promise<DpopProofResult> {
    if (header === undefined || header === '') return invalid('a DPoP proof is required with a DPoP-bound token');
    if (header.length > MAX_PROOF_CHARS) return invalid('the DPoP proof is too large');
    // Adapters join repeated headers with ", "; a compact JWS has neither character.
    if (header.includes(',') || header.includes(' ')) return invalid('exactly one DPoP header is allowed');
    const jws = parseCompactJws(header);
    if (!jws) return invalid('the DPoP proof is not a compact JWS');
    const { header: jose, payload: claims } = jws;
    const typ = typeof jose.typ === 'string' ? jose.typ.toLowerCase() : undefined;
    if (typ !== 'dpop+jwt' && typ !== 'application/dpop+jwt') return invalid('the DPoP proof typ is not dpop+jwt');
    if (typeof jose.alg !== 'string' || !this.allowed.has(jose.alg)) return invalid(`the DPoP proof alg is not one of ${this.algs}`);
    const alg = jose.alg as JwsAlgorithm;
    // RFC 7515 §4.1.11: extensions we do not implement must be refused, not ignored.
    if (jose.crit !== undefined) return invalid('the DPoP proof has a crit header');
    const jwk = publicKeyOf(jose.jwk, alg);
    if (!jwk) return invalid('the DPoP proof jwk is not a public key for its alg');
    if (jws.signature.length === 0) return invalid('the DPoP proof is not a compact JWS');

    // The claims first: they cost nothing, and a stale or misdirected proof never costs a signature check.
    const { jti, htm, htu, iat, ath } = claims;
    if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_CHARS) return invalid('the DPoP proof has no valid jti');
    if (htm !== method) return invalid('the DPoP proof htm does not match the request method');
    const target = normalizeHtu(url);
    if (typeof htu !== 'string' || target === undefined || normalizeHtu(htu) !== target) return invalid('the DPoP proof htu does not match the request URL');
    const now = Date.now();
    if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(iat * 1000 - now) > this.maxAgeMs)
      return invalid('the DPoP proof iat is outside the accepted window');
    if (typeof ath !== 'string') return invalid('the DPoP proof has no ath');
    if (this.replays.has(jti, now)) return invalid('the DPoP proof was used before');
    if (!(await verifySignature(jwk, alg, jws.signingInput, jws.signature))) return invalid('the DPoP proof signature is invalid');
    if (ath !== (await sha256(accessToken))) return invalid('the DPoP proof ath does not match the access token');

    let fresh: string | undefined;
    if (this.nonces) {
      const nonce = claims.nonce;
      if (typeof nonce !== 'string' || !(await this.nonces.valid(nonce))) {
        return {
          ok: false,
          error: 'use_dpop_nonce',
          description: 'the resource server requires a nonce in the DPoP proof',
          nonce: await this.nonces.current(),
        };
      }
      const current = await this.nonces.current();
      // A nonce about to be retired: the next proofs should carry the newer one (RFC 9449 §8.2).
      if (nonce !== current) fresh = current;
    }
    const jkt = await jwkThumbprint(jwk);
    return { ok: true, jkt: jkt!, jti, expiresAtMs: iat * 1000 + this.maxAgeMs, nonce: fresh };
  }

  /**
   * Records an accepted proof; false when its `jti` was recorded in the meantime (the same
   * proof on two requests at once). Synchronous, so check-and-record cannot interleave.
   */
  accept(proof: Extract<DpopProofResult, { ok: true }>): boolean {
    return this.replays.add(proof.jti, proof.expiresAtMs);
  }
}

/**
 * Why a token's key binding and the request's proof do not go together (RFC 9449 §7.1, §7.2),
 * when they do not: a bound token needs a proof of its key, a proof needs a bound token, and a
 * binding of another kind (an mTLS certificate...) cannot be checked here at all.
 */
export function bindingError(cnf: AuthInfo['confirmation'], proof: { jkt: string } | undefined, dpopEnabled: boolean): string | undefined {
  if (cnf !== undefined) {
    const other = !cnf || typeof cnf !== 'object' || Object.keys(cnf).some((k) => k !== 'jkt' && cnf[k] !== undefined);
    if (other || (cnf.jkt !== undefined && typeof cnf.jkt !== 'string')) return 'the access token is bound to a key in a way this server cannot check';
  }
  const jkt = cnf?.jkt;
  if (!proof) {
    if (jkt === undefined) return undefined;
    return dpopEnabled
      ? 'the access token is DPoP-bound: present it with the DPoP scheme and a proof'
      : 'the access token is DPoP-bound, and this server does not accept DPoP';
  }
  if (jkt === undefined) return 'the access token is not DPoP-bound';
  return jkt === proof.jkt ? undefined : 'the DPoP proof is not signed with the key the access token is bound to';
}
