/**
 * The few cookies proxy mode sets in the user's browser: which browser this is (its consent
 * decisions are kept server-side under that id) and the `state` of each sign-in sent upstream.
 * All HttpOnly and SameSite=Lax (sent on the provider's top-level redirect back, never on a
 * cross-site POST). Over https they are `Secure` and named with the `__Host-` prefix, which the
 * browser only accepts from this very origin, with `Path=/` and no `Domain`: a sibling subdomain
 * cannot plant one. Over plain http (development on loopback) neither is possible, and cookies are
 * shared by every port of the host.
 */
import type { HttpRequestView } from '../http/exchange.js';

/** The browser's id (an opaque random value; the server keeps its consent decisions under its digest). */
export const BROWSER_COOKIE = 'mcpkit-browser';
/** `<prefix><tag>`: one cookie per sign-in under way, so two tabs do not overwrite each other's. */
export const STATE_COOKIE_PREFIX = 'mcpkit-state-';

/** The name a cookie has on this issuer: `__Host-` prefixed over https. */
export function cookieName(issuer: string, base: string): string {
  return issuer.startsWith('https:') ? `__Host-${base}` : base;
}

/** A request's cookies by name (the first of a repeated name). */
export function readCookies(req: HttpRequestView): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** A Set-Cookie value; `maxAgeSec` 0 deletes the cookie. Values are base64url tokens, so nothing needs quoting. */
export function setCookie(issuer: string, base: string, value: string, maxAgeSec: number): string {
  const secure = issuer.startsWith('https:') ? '; Secure' : '';
  return `${cookieName(issuer, base)}=${value}; Path=/; Max-Age=${Math.floor(maxAgeSec)}; HttpOnly; SameSite=Lax${secure}`;
}

/** The cookie name of one pending sign-in: derived from its state, which is random. */
export function stateCookie(state: string): string {
  return `${STATE_COOKIE_PREFIX}${state.slice(0, 16)}`;
}
