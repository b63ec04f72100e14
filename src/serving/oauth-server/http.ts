/**
 * The HTTP details of the authorization server's endpoints: OAuth error bodies (RFC 6749 §5.2),
 * the no-store answers token endpoints must give, CORS for browser clients, form and JSON
 * bodies read with a size limit, and the plain error page shown when the user cannot be sent back.
 */
import type { HeaderMap, HttpRequestView, HttpResponder } from '../http/exchange.js';

/** An OAuth error: `error` is the RFC 6749 / 7591 / 8707 code, `description` says what to fix. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    /** Headers the answer needs (`Retry-After`, `WWW-Authenticate`). */
    readonly headers: HeaderMap = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }
}

export const CORS: HeaderMap = { 'access-control-allow-origin': '*' };
/** RFC 6749 §5.1: tokens and credentials must not be cached anywhere. */
export const NO_STORE: HeaderMap = { 'cache-control': 'no-store', pragma: 'no-cache' };
/** Forms and registrations are a few kilobytes at most. */
export const MAX_BODY = 64 * 1024;

export function sendJson(res: HttpResponder, status: number, body: unknown, headers: HeaderMap = {}): void {
  res.send(status, { ...CORS, ...headers, 'content-type': 'application/json' }, JSON.stringify(body));
}

export function sendOAuthError(res: HttpResponder, err: OAuthError, headers: HeaderMap = {}): void {
  sendJson(res, err.status, { error: err.error, error_description: err.description }, { ...NO_STORE, ...err.headers, ...headers });
}

/** CORS preflight for the endpoints browser clients call (metadata, token, registration, keys, revocation). */
export function preflight(res: HttpResponder, methods: string): void {
  res.send(204, {
    ...CORS,
    'access-control-allow-methods': methods,
    'access-control-allow-headers': 'authorization, content-type, dpop, mcp-protocol-version',
    'access-control-max-age': '86400',
  });
}

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * An error the user sees in the browser: used when the client or its redirect URI cannot be
 * trusted, where redirecting the error would hand it (and the user) to an unverified address.
 */
export function sendErrorPage(res: HttpResponder, err: OAuthError): void {
  const body = `<!doctype html><meta charset="utf-8"><title>Sign-in error</title><h1>Sign-in error</h1><p><b>${html(err.error)}</b>: ${html(err.description)}</p>`;
  res.send(err.status, { 'content-type': 'text/html; charset=utf-8', ...NO_STORE, 'x-frame-options': 'DENY' }, body);
}

/** A form body (`application/x-www-form-urlencoded`), as the token and revocation endpoints take. */
export async function readForm(req: HttpRequestView): Promise<URLSearchParams> {
  const ct = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (ct !== 'application/x-www-form-urlencoded') throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  const text = await req.readBody(MAX_BODY);
  if (text === undefined) throw new OAuthError('invalid_request', `the body is larger than ${MAX_BODY} bytes`, 413);
  return new URLSearchParams(text);
}

/** A JSON object body of at most `limit` bytes, as the registration endpoint takes. */
export async function readJsonObject(req: HttpRequestView, limit = MAX_BODY): Promise<Record<string, unknown>> {
  const ct = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (ct !== 'application/json') throw new OAuthError('invalid_client_metadata', 'the registration must be sent as application/json');
  const text = await req.readBody(limit);
  if (text === undefined) throw new OAuthError('invalid_client_metadata', `the registration is larger than ${limit} bytes`, 413);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_client_metadata', 'the body is not valid JSON');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new OAuthError('invalid_client_metadata', 'the body must be a JSON object');
  return v as Record<string, unknown>;
}

/**
 * One parameter of a request; RFC 6749 §3.1: parameters must not be repeated (a second `code` or
 * `redirect_uri` is an attack or a bug, never something to pick from). `resource` may repeat
 * (RFC 8707) and is read with getAll.
 */
export function single(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) throw new OAuthError('invalid_request', `the parameter ${name} is repeated`);
  const v = all[0];
  return v === undefined || v === '' ? undefined : v;
}

/** RFC 6749 §3.3 scope-token. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function parseScope(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const out: string[] = [];
  for (const s of raw.split(' ')) {
    if (s === '') continue;
    if (!SCOPE_TOKEN.test(s)) throw new OAuthError('invalid_scope', `the scope ${JSON.stringify(s)} is not a valid scope token`);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** Constant-time comparison of two secrets of any length (the length itself is not secret). */
export function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
