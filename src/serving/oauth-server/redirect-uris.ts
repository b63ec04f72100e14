/** Redirect URIs: which a client may register, and when a requested one matches a registered one. */
import { isLoopback } from '../../client/auth/url-policy.js';
import { OAuthError } from './http.js';
import type { ClientRecord } from './options.js';

/**
 * A redirect URI a client may register: https; http only to a loopback host (RFC 8252 §7.3); or
 * a private-use scheme of a native app (`com.example.app:/callback`, RFC 8252 §7.1). Never a
 * fragment, and never a scheme a browser would run (`javascript:`, `data:`).
 */
export function checkRedirectUri(raw: unknown): string {
  if (typeof raw !== 'string') throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be strings');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new OAuthError('invalid_redirect_uri', `${JSON.stringify(raw)} is not an absolute URI`);
  }
  if (u.hash || raw.includes('#')) throw new OAuthError('invalid_redirect_uri', `${raw} must not have a fragment`);
  if (u.protocol === 'https:') return raw;
  if (u.protocol === 'http:') {
    if (isLoopback(u.hostname)) return raw;
    throw new OAuthError('invalid_redirect_uri', `${raw} is plain http to a non-loopback host; use https`);
  }
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/i.test(u.protocol)) return raw;
  throw new OAuthError(
    'invalid_redirect_uri',
    `${raw}: the scheme ${u.protocol} is not allowed (https, http on loopback, or a reverse-domain private-use scheme)`,
  );
}

/** Exact match, except that a registered http loopback URI matches the same URI on any port. */
export function redirectMatches(client: ClientRecord, uri: string): boolean {
  for (const registered of client.redirect_uris) {
    if (registered === uri) return true;
    let r: URL;
    let u: URL;
    try {
      r = new URL(registered);
      u = new URL(uri);
    } catch {
      continue;
    }
    if (r.protocol !== 'http:' || u.protocol !== 'http:' || !isLoopback(r.hostname)) continue;
    if (r.hostname === u.hostname && r.pathname === u.pathname && r.search === u.search && !u.hash && !u.username && !u.password) return true;
  }
  return false;
}
