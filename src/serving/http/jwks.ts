/**
 * An authorization server's signing keys, for the JWT access token verifier: found through its
 * RFC 8414 (or OIDC) metadata unless the JWKS URI is given, fetched with Web Crypto-only code
 * (no Node APIs, so the fetch adapter's runtimes work too), and kept. Refreshes are bounded: a
 * token naming an unknown `kid` triggers one refetch (the AS rotated its keys), but never more
 * than once per cooldown, so that made-up `kid`s cannot turn this server into a JWKS fetch loop
 * against its own authorization server.
 */

import type { Clock } from '../../engine/clock.js';

/** A public key of a JWK Set (RFC 7517), as far as verification reads it. */
export interface Jwk {
  kty: string;
  kid?: string;
  use?: string;
  key_ops?: string[];
  alg?: string;
  crv?: string;
  n?: string;
  e?: string;
  x?: string;
  y?: string;
}

/** The JWS algorithms the verifier can check. HMAC and `none` are absent on purpose: a resource server must never share the AS's secret. */
export type JwsAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'Ed25519';

interface AlgSpec {
  kty: 'RSA' | 'EC' | 'OKP';
  crv?: string;
  // Web Crypto's parameter types through the global `crypto` (lib.dom and @types/node both
  // declare it), so the .d.ts compiles in a Node project without the DOM lib.
  import: Parameters<typeof globalThis.crypto.subtle.importKey>[2];
  verify: Parameters<typeof globalThis.crypto.subtle.verify>[0];
  /** ECDSA signatures are raw r||s of a fixed size. */
  sigBytes?: number;
}

const rsa = (name: 'RSASSA-PKCS1-v1_5' | 'RSA-PSS', bits: 256 | 384 | 512): AlgSpec => ({
  kty: 'RSA',
  import: { name, hash: `SHA-${bits}` },
  verify: name === 'RSA-PSS' ? { name, saltLength: bits / 8 } : { name },
});
const ec = (crv: 'P-256' | 'P-384' | 'P-521', bits: 256 | 384 | 512, sigBytes: number): AlgSpec => ({
  kty: 'EC',
  crv,
  import: { name: 'ECDSA', namedCurve: crv },
  verify: { name: 'ECDSA', hash: `SHA-${bits}` },
  sigBytes,
});
// Ed448 is left out: Node 20 marks it experimental (a warning on first use); Ed25519 is stable there.
const ed25519: AlgSpec = { kty: 'OKP', crv: 'Ed25519', import: { name: 'Ed25519' }, verify: { name: 'Ed25519' } };

export const ALGORITHMS: Readonly<Record<JwsAlgorithm, AlgSpec>> = {
  RS256: rsa('RSASSA-PKCS1-v1_5', 256),
  RS384: rsa('RSASSA-PKCS1-v1_5', 384),
  RS512: rsa('RSASSA-PKCS1-v1_5', 512),
  PS256: rsa('RSA-PSS', 256),
  PS384: rsa('RSA-PSS', 384),
  PS512: rsa('RSA-PSS', 512),
  ES256: ec('P-256', 256, 64),
  ES384: ec('P-384', 384, 96),
  ES512: ec('P-521', 512, 132),
  EdDSA: ed25519,
  Ed25519: ed25519,
};

/** RSA moduli below 2048 bits are factorable by a determined attacker (NIST SP 800-131A). */
const MIN_RSA_BYTES = 256;
/** A JWKS or metadata document is a few kilobytes; anything far larger is not one. */
const MAX_DOCUMENT_CHARS = 1 << 20;

export function base64urlDecode(s: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return undefined;
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function jsonSegment(segment: string): Record<string, unknown> | undefined {
  const bytes = base64urlDecode(segment);
  if (!bytes) return undefined;
  try {
    const v: unknown = JSON.parse(utf8.decode(bytes));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A compact JWS with JSON object header and payload (a JWE, with five parts, is not one). */
export interface CompactJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Uint8Array<ArrayBuffer>;
}

/**
 * Parses a compact JWS; undefined for anything that is not one (never throws). The signature may
 * be empty (`alg: none`): callers refuse that by their own rules, and say why.
 */
export function parseCompactJws(token: string): CompactJws | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  const header = jsonSegment(h);
  const payload = jsonSegment(p);
  const signature = base64urlDecode(s);
  if (!header || !payload || !signature) return undefined;
  return { header, payload, signingInput: `${h}.${p}`, signature };
}

function isJwk(k: unknown): k is Jwk {
  if (!k || typeof k !== 'object') return false;
  const j = k as Record<string, unknown>;
  return typeof j.kty === 'string' && (j.kid === undefined || typeof j.kid === 'string') && (j.key_ops === undefined || Array.isArray(j.key_ops));
}

/** Whether `k` may verify `alg` signatures: its type and curve, and whatever use it declares. */
function suits(k: Jwk, alg: JwsAlgorithm): boolean {
  const spec = ALGORITHMS[alg];
  if (k.kty !== spec.kty || (spec.crv !== undefined && k.crv !== spec.crv)) return false;
  if (k.use !== undefined && k.use !== 'sig') return false;
  if (k.key_ops !== undefined && !k.key_ops.includes('verify')) return false;
  // A JWK pinned to "EdDSA" also serves "Ed25519" tokens: the same signature scheme, renamed by RFC 9864.
  if (k.alg !== undefined && k.alg !== alg && !(spec === ed25519 && (k.alg === 'EdDSA' || k.alg === 'Ed25519'))) return false;
  return true;
}

/**
 * The key for a token's header: the one its `kid` names, or without a `kid` the only key that
 * suits the algorithm (several would leave the choice to guessing).
 */
function selectKey(keys: readonly Jwk[], alg: JwsAlgorithm, kid: string | undefined): Jwk | undefined {
  if (kid !== undefined) {
    const k = keys.find((key) => key.kid === kid);
    return k && suits(k, alg) ? k : undefined;
  }
  const fit = keys.filter((key) => suits(key, alg));
  return fit.length === 1 ? fit[0] : undefined;
}

/** Imported keys, per JWK object (a refetch brings new objects, so old imports go with the old set). */
const imported = new WeakMap<Jwk, Map<JwsAlgorithm, Promise<CryptoKey | undefined>>>();

function importJwk(k: Jwk, alg: JwsAlgorithm): Promise<CryptoKey | undefined> {
  let perAlg = imported.get(k);
  if (!perAlg) imported.set(k, (perAlg = new Map()));
  let p = perAlg.get(alg);
  if (!p) {
    const spec = ALGORITHMS[alg];
    // Only the key material: the JWK's own `alg`/`use`/`key_ops` were judged by suits(), and Web Crypto would re-judge them against its own names.
    const material: JsonWebKey =
      spec.kty === 'RSA' ? { kty: 'RSA', n: k.n, e: k.e } : spec.kty === 'EC' ? { kty: 'EC', crv: k.crv, x: k.x, y: k.y } : { kty: 'OKP', crv: k.crv, x: k.x };
    if (spec.kty === 'RSA' && (base64urlDecode(k.n ?? '')?.length ?? 0) < MIN_RSA_BYTES) p = Promise.resolve(undefined);
    else p = globalThis.crypto.subtle.importKey('jwk', material, spec.import, false, ['verify']).catch(() => undefined);
    perAlg.set(alg, p);
  }
  return p;
}

export async function verifySignature(k: Jwk, alg: JwsAlgorithm, signingInput: string, signature: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const spec = ALGORITHMS[alg];
  if (spec.sigBytes !== undefined && signature.length !== spec.sigBytes) return false;
  const key = await importJwk(k, alg);
  if (!key) return false;
  try {
    return await globalThis.crypto.subtle.verify(spec.verify, key, signature, new TextEncoder().encode(signingInput));
  } catch {
    return false;
  }
}

/** Metadata URLs for an issuer, in the order the MCP spec gives (RFC 8414 §3.1 path insertion, then OIDC's two forms). */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (!path) return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** Issuers compare exactly; only the "/" of an empty path is not significant (`https://as.example.com/`). */
function sameIssuer(a: string, b: string): boolean {
  const strip = (s: string) => (/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/$/i.test(s) ? s.slice(0, -1) : s);
  return a === b || strip(a) === strip(b);
}

export interface RemoteJwksOptions {
  issuer: string;
  jwksUri: string | undefined;
  fetch: typeof globalThis.fetch;
  maxAgeMs: number;
  cooldownMs: number;
  timeoutMs: number;
  onError: (error: Error) => void;
  /** Where key age and the refetch cooldown read the time. */
  clock: Clock;
}

/** One issuer's key set: discovered once, fetched lazily, refetches coalesced and rate-limited. */
export class RemoteJwks {
  private uri: string | undefined;
  private keys: Jwk[] | undefined;
  private fetchedAt = -Infinity;
  private lastAttempt = -Infinity;
  private inflight: Promise<void> | undefined;
  /** Set from the first failure until the next success: an outage is reported once, not per request. */
  private failing = false;

  constructor(private readonly o: RemoteJwksOptions) {
    this.uri = o.jwksUri;
  }

  /**
   * The key for a token's header. The keys are refreshed first when stale, and once more when
   * the token names one not among them (the AS rotated), unless this call just fetched them. A
   * refresh that fails keeps the previous keys: an AS outage should not lock out holders of
   * tokens it already issued.
   */
  async key(alg: JwsAlgorithm, kid: string | undefined): Promise<Jwk | undefined> {
    const fetched = await this.refreshIf(this.keys === undefined || this.o.clock.now() - this.fetchedAt >= this.o.maxAgeMs);
    const key = selectKey(this.keys ?? [], alg, kid);
    if (key || fetched) return key;
    return (await this.refreshIf(true)) ? selectKey(this.keys ?? [], alg, kid) : undefined;
  }

  /** Whether keys at least as new as this call are now in hand: fetched, or joined in flight. */
  private async refreshIf(due: boolean): Promise<boolean> {
    if (!due) return false;
    if (!this.inflight) {
      if (this.o.clock.now() - this.lastAttempt < this.o.cooldownMs) return false;
      this.inflight = this.refresh().finally(() => (this.inflight = undefined));
    }
    await this.inflight;
    return true;
  }

  private async refresh(): Promise<void> {
    this.lastAttempt = this.o.clock.now();
    try {
      this.uri ??= await this.discover();
      const { json } = await this.getJson(this.uri, true);
      const list = json && typeof json === 'object' ? (json as { keys?: unknown }).keys : undefined;
      if (!Array.isArray(list)) throw new Error(`${this.uri} is not a JWK Set (no "keys" array)`);
      this.keys = list.filter(isJwk);
      this.fetchedAt = this.o.clock.now();
      this.failing = false;
    } catch (err) {
      if (this.failing) return;
      this.failing = true;
      const why = err instanceof Error ? err.message : String(err);
      try {
        this.o.onError(new Error(`jwtAccessTokens: cannot load the signing keys of ${this.o.issuer}: ${why}`, { cause: err }));
      } catch {
        // A failing reporter must not turn every request into a 500 through the shared fetch.
      }
    }
  }

  /** The `jwks_uri` of the issuer's metadata, which must name this issuer (RFC 8414 §3.3: no mix-up). */
  private async discover(): Promise<string> {
    const tried: string[] = [];
    for (const url of metadataUrls(this.o.issuer)) {
      const { status, json } = await this.getJson(url, false);
      if (json === undefined) {
        tried.push(`${url} (${status})`);
        continue;
      }
      if (!json || typeof json !== 'object') throw new Error(`${url} is not a metadata document`);
      const meta = json as { issuer?: unknown; jwks_uri?: unknown };
      if (typeof meta.issuer !== 'string' || !sameIssuer(meta.issuer, this.o.issuer)) throw new Error(`${url} names issuer ${JSON.stringify(meta.issuer)}`);
      if (typeof meta.jwks_uri !== 'string') throw new Error(`${url} has no jwks_uri`);
      let jwks: URL;
      try {
        jwks = new URL(meta.jwks_uri);
      } catch {
        throw new Error(`${url} has an invalid jwks_uri ${JSON.stringify(meta.jwks_uri)}`);
      }
      // Keys over plain http could be swapped in transit; only an http issuer (local development) may use one.
      const ok = jwks.protocol === 'https:' || (jwks.protocol === 'http:' && new URL(this.o.issuer).protocol === 'http:');
      if (!ok) throw new Error(`${url} has a jwks_uri that is not https: ${meta.jwks_uri}`);
      return jwks.href;
    }
    throw new Error(`no authorization server metadata at ${tried.join(', ')}; set jwksUri to skip discovery`);
  }

  /** `json` is undefined for a non-2xx answer; `required` turns that into an error. */
  private async getJson(url: string, required: boolean): Promise<{ status: number; json?: unknown }> {
    let res: Response;
    try {
      // Called unbound: Workers and browsers throw "Illegal invocation" for fetch with a foreign `this`.
      const fetchFn = this.o.fetch;
      res = await fetchFn(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.o.timeoutMs) });
    } catch (err) {
      // undici says only "fetch failed"; the cause (ECONNREFUSED, a DNS or TLS error) is the useful part.
      const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
      const detail = cause ? String(cause.code ?? cause.message) : err instanceof Error ? err.message : String(err);
      throw new Error(`GET ${url} failed: ${detail}`, { cause: err });
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      if (required) throw new Error(`GET ${url} answered ${res.status}`);
      return { status: res.status };
    }
    if (Number(res.headers.get('content-length') ?? 0) > MAX_DOCUMENT_CHARS) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`${url} is too large`);
    }
    const text = await res.text();
    if (text.length > MAX_DOCUMENT_CHARS) throw new Error(`${url} is too large`);
    try {
      return { status: res.status, json: JSON.parse(text) as unknown };
    } catch {
      throw new Error(`${url} is not JSON`);
    }
  }
}
