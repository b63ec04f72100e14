/**
 * DPoP (RFC 9449; the MCP extension io.modelcontextprotocol/auth/dpop, SEP-1932): tokens bound to
 * a key the client holds, so a stolen access or refresh token is useless without it. Every token
 * request and every request carrying a bound token gets a fresh proof, a JWT signed with that
 * key naming the method and URL. Web Crypto only, so the client still runs outside Node.
 */
import { base64url, randomToken } from './encoding.js';
import { OAuthFlowError } from './errors.js';
import { signCompact, type JwtAlgorithm, type WebCryptoKey, type WebCryptoKeyPair } from './jwt.js';
import type { Discovery } from './metadata.js';
import type { OAuthTokens } from './token-endpoint.js';

export interface DpopOptions {
  /**
   * The key proofs are signed with (ECDSA P-256 or P-384, RSASSA-PKCS1-v1_5 or RSA-PSS with
   * SHA-256). A bound token, and its refresh token, only work with the key that obtained them:
   * keep the key to keep stored tokens usable across runs. Default: a non-extractable P-256
   * key generated for each OAuthClientAuth.
   */
  keyPair?: WebCryptoKeyPair;
  /** Send proofs even when the authorization server's metadata does not list the key's algorithm. */
  always?: boolean;
}

interface ProofKey {
  privateKey: WebCryptoKey;
  jwk: Record<string, string>;
  jkt: string;
}

/** Whether the authorization server bound these tokens to a DPoP key. */
export function isDpopBound(tokens: OAuthTokens): boolean {
  return typeof tokens.token_type === 'string' && tokens.token_type.toLowerCase() === 'dpop';
}

/** The prover for `OAuthOptions.dpop`: none when it is false. */
export function dpopProver(option: boolean | DpopOptions | undefined): DpopProver | undefined {
  return option === false ? undefined : new DpopProver(option === true ? { always: true } : (option ?? {}));
}

/** One key, the proofs signed with it, and the nonces servers asked for (RFC 9449 §8, §9). */
export class DpopProver {
  readonly algorithm: JwtAlgorithm;
  private readonly always: boolean;
  private readonly given: WebCryptoKeyPair | undefined;
  private key: Promise<ProofKey> | undefined;
  /** By origin: a nonce belongs to the server that issued it. */
  private readonly nonces = new Map<string, string>();

  constructor(options: DpopOptions) {
    this.always = options.always === true;
    this.given = options.keyPair;
    const alg = this.given ? algorithmOf(this.given.privateKey) : 'ES256';
    if (!alg) {
      const a = this.given!.privateKey.algorithm as KeyAlgorithm & { namedCurve?: string; hash?: { name: string } };
      const kind = [a.name, a.namedCurve ?? a.hash?.name].filter(Boolean).join(' ');
      throw new OAuthFlowError(`the DPoP key (${kind}) cannot sign proofs; use ECDSA P-256 or P-384, or RSASSA-PKCS1-v1_5 or RSA-PSS with SHA-256`);
    }
    this.algorithm = alg;
  }

  /** Whether to ask this authorization server for bound tokens. */
  usableWith(d: Discovery): boolean {
    const algs = d.metadata?.['dpop_signing_alg_values_supported'];
    return this.always || (Array.isArray(algs) && algs.includes(this.algorithm));
  }

  /** The key's JWK SHA-256 thumbprint (RFC 7638), the `jkt` the tokens are bound to. */
  async thumbprint(): Promise<string> {
    return (await this.load()).jkt;
  }

  nonceFor(url: string): string | undefined {
    return this.nonces.get(originOf(url));
  }

  /** Keeps the nonce a response names: the server wants it in the next proofs. */
  remember(url: string, headers: Headers): void {
    const nonce = headers.get('dpop-nonce');
    if (nonce) this.nonces.set(originOf(url), nonce);
  }

  /** A proof for one request; `accessToken` for a resource request (its hash goes in `ath`). */
  async proof(method: string, url: string, options: { accessToken?: string; nonce?: string } = {}): Promise<string> {
    const key = await this.load();
    const htu = new URL(url);
    htu.search = '';
    htu.hash = '';
    const claims: Record<string, unknown> = { jti: randomToken(16), htm: method.toUpperCase(), htu: htu.href, iat: Math.floor(Date.now() / 1000) };
    if (options.accessToken !== undefined) claims['ath'] = await sha256(options.accessToken);
    if (options.nonce !== undefined) claims['nonce'] = options.nonce;
    return signCompact(key.privateKey, this.algorithm, { typ: 'dpop+jwt', alg: this.algorithm, jwk: key.jwk }, claims);
  }

  private load(): Promise<ProofKey> {
    this.key ??= (async () => {
      const subtle = globalThis.crypto.subtle;
      const pair = this.given ?? (await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']));
      let full: JsonWebKey;
      try {
        full = await subtle.exportKey('jwk', pair.publicKey);
      } catch (err) {
        throw new OAuthFlowError(`the DPoP public key cannot be exported as a JWK: ${(err as Error).message}`, { cause: err });
      }
      // Only the required members: they are what the thumbprint covers, and no private part leaks.
      const jwk: Record<string, string> = full.kty === 'EC' ? { crv: full.crv!, kty: 'EC', x: full.x!, y: full.y! } : { e: full.e!, kty: 'RSA', n: full.n! };
      return { privateKey: pair.privateKey, jwk, jkt: await sha256(JSON.stringify(jwk)) };
    })();
    return this.key;
  }
}

/** A URL's origin; a relative one (a browser resolves it against the page) stands for itself. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function algorithmOf(key: CryptoKey): JwtAlgorithm | undefined {
  const a = key.algorithm as KeyAlgorithm & { namedCurve?: string; hash?: { name: string } };
  if (a.name === 'ECDSA') return a.namedCurve === 'P-256' ? 'ES256' : a.namedCurve === 'P-384' ? 'ES384' : undefined;
  if (a.hash?.name !== 'SHA-256') return undefined;
  return a.name === 'RSASSA-PKCS1-v1_5' ? 'RS256' : a.name === 'RSA-PSS' ? 'PS256' : undefined;
}

async function sha256(text: string): Promise<string> {
  return base64url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}
