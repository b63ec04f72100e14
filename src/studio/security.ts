// The studio's gate: every request passes here before any route runs. A studio can start processes
// and call tools with the user's credentials, so a web page the user happens to visit must not be
// able to drive it (two inspectors shipped unauthenticated remote code execution exactly so). The
// rules, all checked on the values routing uses:
//   - Host must be one of the names the studio answers to, with its port (DNS rebinding: a
//     hostile name resolved to 127.0.0.1 arrives with its own Host);
//   - the page is loaded once with the per-run token in the URL; that sets an HttpOnly,
//     SameSite=Strict cookie scoped to this port's name and redirects to a URL without it;
//   - every API request carries the cookie AND the per-run API key in a header. The key is only
//     in the page's HTML, which only a holder of the cookie gets and which no other origin can
//     read; a custom header also forces a CORS preflight that the studio never grants;
//   - a request that changes anything must come with an Origin equal to the studio's own (the
//     scheme, host and port the Host header names), and a browser's Sec-Fetch-Site, when sent,
//     must say same-origin;
//   - every answer carries a strict Content-Security-Policy (no inline script, no eval, no other
//     origin, no framing), nosniff, no-referrer.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';

/** 32 random bytes, base64url: 256 bits. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares a secret in constant time (for equal lengths; lengths are not secret). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The policy sent with every answer. `connect-src 'self'` is the API and the event stream. */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Tool results carry images and audio as data: URLs; nothing is loaded from anywhere else.
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  // MCP App views: documents of the studio's own (/apps/view/…), sandboxed without same-origin.
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether an address given to --host is a loopback one. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * The host names (without port) the studio answers to: the loopback names, and when bound to
 * another address that address (every address of this machine for a wildcard bind).
 */
export function allowedHostNames(bindHost: string): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bracket = (a: string) => (a.includes(':') ? `[${a.toLowerCase()}]` : a.toLowerCase());
  const h = bindHost.replace(/^\[|\]$/g, '');
  if (h === '0.0.0.0' || h === '::') {
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) names.add(bracket(i.address));
  } else if (!isLoopbackAddress(h)) names.add(bracket(h));
  return names;
}

export interface Gate {
  token: string;
  apiKey: string;
  port: number;
  hostNames: Set<string>;
}

/** The cookie's name: cookies are shared by every port of a host, so the port is in the name. */
export function cookieName(port: number): string {
  return `mcpkit-studio-${port}`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The Host header if it names this studio (an allowed name and its port), else undefined. */
export function checkedHost(req: IncomingMessage, gate: Gate): string | undefined {
  const host = header(req, 'host')?.toLowerCase();
  if (!host) return undefined;
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d+)$/.exec(host);
  if (!m || Number(m[2]) !== gate.port || !gate.hostNames.has(m[1])) return undefined;
  return host;
}

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const raw = header(req, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function hasSessionCookie(req: IncomingMessage, gate: Gate): boolean {
  return sameSecret(cookieOf(req, cookieName(gate.port)), gate.token);
}

export function sessionCookie(gate: Gate): string {
  return `${cookieName(gate.port)}=${gate.token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The header that carries the API key on every API request. */
export const API_KEY_HEADER = 'x-mcpkit-studio-key';

export type Refusal = { status: number; message: string };

/**
 * Whether an API request may proceed: the Host (already checked by the caller) is `host`; it
 * needs the cookie, the key, and for anything but GET an Origin equal to this studio's.
 */
export function checkApiRequest(req: IncomingMessage, gate: Gate, host: string): Refusal | undefined {
  if (!hasSessionCookie(req, gate) || !sameSecret(header(req, API_KEY_HEADER), gate.apiKey)) {
    return { status: 401, message: 'Not signed in to this studio: open the address mcpkit studio printed (it carries the access token)' };
  }
  const origin = header(req, 'origin');
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return { status: 403, message: `Forbidden: a request from another site (${site})` };
  const own = `http://${host}`;
  const safe = req.method === 'GET' || req.method === 'HEAD';
  if (origin !== undefined && origin.toLowerCase() !== own) return { status: 403, message: `Forbidden: Origin "${origin}" is not this studio` };
  if (!safe && origin === undefined) return { status: 403, message: 'Forbidden: a request that changes something must carry an Origin' };
  return undefined;
}
