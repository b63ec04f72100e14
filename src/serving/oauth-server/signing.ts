/**
 * The keys access tokens are signed with, and the JWK Set resource servers verify them against.
 * Web Crypto only (ES256 on P-256, or RS256 with a 2048-bit modulus), so the server runs wherever
 * the fetch handler does. Without keys of its own a server generates one at start: fine for one
 * process, but instances behind a load balancer must share `signingKeys`, or a token signed by
 * one is unknown to the others' JWKS until every resource server has fetched them all.
 */
import { base64url } from '../../client/auth/encoding.js';
import { signCompact, type WebCryptoKey } from '../../client/auth/jwt.js';

export type SigningAlgorithm = 'ES256' | 'RS256';

/** A private key as a JWK (RFC 7517): EC P-256 (`crv`, `x`, `y`, `d`) or RSA (`n`, `e`, `d`, and the CRT members). */
export interface PrivateJwk {
  kty: string;
  d?: string;
  [member: string]: unknown;
}

/** A signing key: a private JWK (with `d`), or a Web Crypto key pair (the private key may be non-extractable). */
export interface SigningKeyInput {
  algorithm: SigningAlgorithm;
  privateJwk?: PrivateJwk;
  privateKey?: WebCryptoKey;
  /** The public half, needed with `privateKey` (a private CryptoKey cannot give its public JWK). */
  publicKey?: WebCryptoKey;
  /** Key id; default the RFC 7638 thumbprint of the public key. */
  kid?: string;
}

interface SigningKey {
  algorithm: SigningAlgorithm;
  kid: string;
  privateKey: WebCryptoKey;
  publicJwk: Record<string, string>;
}

const IMPORT: Record<SigningAlgorithm, RsaHashedImportParams | EcKeyImportParams> = {
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
};

function fail(message: string): never {
  throw new TypeError(`authorizationServer: ${message}`);
}

/** RFC 7638: SHA-256 over the required members in lexicographic order. */
async function thumbprint(jwk: Record<string, string>): Promise<string> {
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: 'EC', x: jwk.x, y: jwk.y } : { e: jwk.e, kty: 'RSA', n: jwk.n };
  const hash = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(members)));
  return base64url(new Uint8Array(hash));
}

function publicMembers(jwk: JsonWebKey): Record<string, string> {
  if (jwk.kty === 'EC') return { kty: 'EC', crv: String(jwk.crv), x: String(jwk.x), y: String(jwk.y) };
  if (jwk.kty === 'RSA') return { kty: 'RSA', n: String(jwk.n), e: String(jwk.e) };
  return fail(`signing keys must be EC (ES256) or RSA (RS256), not ${jwk.kty}`);
}

async function load(input: SigningKeyInput): Promise<SigningKey> {
  const alg = input.algorithm;
  if (alg !== 'ES256' && alg !== 'RS256') fail(`signing algorithm ${JSON.stringify(alg)} is not supported (ES256 or RS256)`);
  let privateKey: WebCryptoKey;
  let pub: JsonWebKey;
  if (input.privateJwk) {
    const jwk = input.privateJwk;
    if (typeof jwk.d !== 'string') fail('privateJwk must be a private key (with "d")');
    const { alg: _a, key_ops: _k, use: _u, ext: _e, ...material } = jwk;
    privateKey = await globalThis.crypto.subtle.importKey('jwk', material as JsonWebKey, IMPORT[alg], false, ['sign']);
    pub = jwk as JsonWebKey;
  } else if (input.privateKey && input.publicKey) {
    privateKey = input.privateKey;
    pub = await globalThis.crypto.subtle.exportKey('jwk', input.publicKey);
  } else return fail('a signing key needs privateJwk, or privateKey and publicKey');
  const members = publicMembers(pub);
  if (members.kty === 'RSA' && atob(members.n!.replace(/-/g, '+').replace(/_/g, '/')).length < 256) fail('RSA signing keys must be at least 2048 bits');
  const kid = input.kid ?? (await thumbprint(members));
  return { algorithm: alg, kid, privateKey, publicJwk: { ...members, kid, alg, use: 'sig' } };
}

/** A new key pair of `algorithm`, kept in memory (the private half not extractable). */
export async function generateSigningKey(algorithm: SigningAlgorithm = 'ES256'): Promise<SigningKeyInput> {
  const params =
    algorithm === 'ES256'
      ? { name: 'ECDSA', namedCurve: 'P-256' }
      : { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
  const pair = (await globalThis.crypto.subtle.generateKey(params, false, ['sign', 'verify'])) as CryptoKeyPair;
  return { algorithm, privateKey: pair.privateKey, publicKey: pair.publicKey };
}

/** The server's keys: the first signs, all are published (so a retired key verifies until its tokens expire). */
export class SigningKeys {
  private loaded: Promise<SigningKey[]> | undefined;

  constructor(private readonly inputs: readonly SigningKeyInput[] | undefined) {
    if (inputs !== undefined && (!Array.isArray(inputs) || inputs.length === 0)) fail('signingKeys must list at least one key');
  }

  private keys(): Promise<SigningKey[]> {
    this.loaded ??= (async () => Promise.all((this.inputs ?? [await generateSigningKey('ES256')]).map(load)))();
    return this.loaded;
  }

  async jwks(): Promise<{ keys: Record<string, string>[] }> {
    return { keys: (await this.keys()).map((k) => k.publicJwk) };
  }

  async algorithms(): Promise<SigningAlgorithm[]> {
    return [...new Set((await this.keys()).map((k) => k.algorithm))];
  }

  /** An RFC 9068 access token (`typ: at+jwt`) of these claims. */
  async sign(claims: Record<string, unknown>): Promise<string> {
    const [key] = await this.keys();
    return signCompact(key!.privateKey, key!.algorithm, { alg: key!.algorithm, typ: 'at+jwt', kid: key!.kid }, claims);
  }
}
