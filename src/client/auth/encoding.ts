/** Small encoding helpers for OAuth, on Web Crypto so the HTTP client stays usable outside Node. */

export function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function base64urlText(text: string): string {
  return base64url(new TextEncoder().encode(text));
}

/** `n` random bytes as base64url: state values, PKCE verifiers, JWT ids. */
export function randomToken(n = 32): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(n)));
}

export interface Pkce {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/** A PKCE pair (RFC 7636): a 43-character verifier and its S256 challenge. */
export async function pkcePair(): Promise<Pkce> {
  const verifier = randomToken(32);
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)), method: 'S256' };
}

/** HTTP Basic credentials for a token endpoint: both parts form-url-encoded first (RFC 6749 §2.3.1). */
export function basicCredentials(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  const raw = new TextEncoder().encode(`${enc(id)}:${enc(secret)}`);
  let bin = '';
  for (const b of raw) bin += String.fromCharCode(b);
  return `Basic ${btoa(bin)}`;
}
