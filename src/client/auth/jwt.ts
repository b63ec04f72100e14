/** JWT client assertions (RFC 7523, `private_key_jwt`) signed with Web Crypto. */
import { base64url, base64urlText, randomToken } from './encoding.js';
import { OAuthFlowError } from './errors.js';

export type JwtAlgorithm = 'ES256' | 'ES384' | 'RS256' | 'RS384' | 'RS512' | 'PS256';

// Web Crypto's key types, named through the global `crypto` that lib.dom and @types/node both
// declare: CryptoKey itself is a DOM name, absent when a Node project compiles our .d.ts.
/** A Web Crypto `CryptoKey`. */
export type WebCryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;
/** A Web Crypto `CryptoKeyPair`. */
export interface WebCryptoKeyPair {
  privateKey: WebCryptoKey;
  publicKey: WebCryptoKey;
}

/** A private key for `private_key_jwt`: a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) or a CryptoKey. */
export interface ClientKey {
  key: string | WebCryptoKey;
  algorithm: JwtAlgorithm;
  /** Key id, sent as the JWT header's `kid` when set. */
  kid?: string;
}

const PARAMS: Record<JwtAlgorithm, { import: RsaHashedImportParams | EcKeyImportParams; sign: AlgorithmIdentifier | EcdsaParams | RsaPssParams }> = {
  ES256: { import: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  ES384: { import: { name: 'ECDSA', namedCurve: 'P-384' }, sign: { name: 'ECDSA', hash: 'SHA-384' } },
  RS256: { import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, sign: { name: 'RSASSA-PKCS1-v1_5' } },
  RS384: { import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' }, sign: { name: 'RSASSA-PKCS1-v1_5' } },
  RS512: { import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' }, sign: { name: 'RSASSA-PKCS1-v1_5' } },
  PS256: { import: { name: 'RSA-PSS', hash: 'SHA-256' }, sign: { name: 'RSA-PSS', saltLength: 32 } },
};

async function importKey(key: ClientKey): Promise<CryptoKey> {
  if (typeof key.key !== 'string') return key.key;
  const params = PARAMS[key.algorithm];
  if (!params) throw new OAuthFlowError(`unsupported JWT signing algorithm ${JSON.stringify(key.algorithm)}`);
  const body = key.key.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '');
  if (/-----BEGIN/.test(key.key) && !/-----BEGIN PRIVATE KEY-----/.test(key.key)) {
    throw new OAuthFlowError('the private key must be PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"); convert it with `openssl pkcs8 -topk8 -nocrypt`');
  }
  let der: Uint8Array;
  try {
    der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  } catch (err) {
    throw new OAuthFlowError('the private key is not valid PEM', { cause: err });
  }
  try {
    return await globalThis.crypto.subtle.importKey('pkcs8', der.buffer as ArrayBuffer, params.import, false, ['sign']);
  } catch (err) {
    throw new OAuthFlowError(`the private key could not be imported for ${key.algorithm}: ${(err as Error).message}`, { cause: err });
  }
}

/** A signed JWT with the given claims (Web Crypto's ECDSA output is already JWS's r||s form). */
export async function signJwt(key: ClientKey, claims: Record<string, unknown>): Promise<string> {
  const header: Record<string, unknown> = { alg: key.algorithm, typ: 'JWT' };
  if (key.kid) header['kid'] = key.kid;
  return signCompact(await importKey(key), key.algorithm, header, claims);
}

/** A JWS compact serialization of `claims` under `header`, signed with a key already imported. */
export async function signCompact(
  key: WebCryptoKey,
  algorithm: JwtAlgorithm,
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
): Promise<string> {
  const input = `${base64urlText(JSON.stringify(header))}.${base64urlText(JSON.stringify(claims))}`;
  const signature = await globalThis.crypto.subtle.sign(PARAMS[algorithm].sign, key, new TextEncoder().encode(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/** A client assertion for the token endpoint: iss = sub = client_id, aud = the AS issuer, 5 minutes. */
export function clientAssertion(key: ClientKey, clientId: string, audience: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(key, { iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + 300, jti: randomToken(16) });
}
