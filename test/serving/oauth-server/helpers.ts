// Shared by the authorization server tests (not a test file itself): the server on a real port,
// PKCE pairs, the browser's part of a sign-in (GET the authorization URL, read the redirect), the
// token endpoint, and JWT payloads.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { serveAuthorizationServer, type RunningAuthorizationServer } from '../../../src/serving/oauth-server/node.js';
import type { AuthorizationServerOptions } from '../../../src/serving/oauth-server/options.js';
import { autoApprove } from '../../../src/serving/oauth-server/server.js';

export const REDIRECT = 'http://127.0.0.1:7777/callback';

export async function startAs(options: Partial<AuthorizationServerOptions> = {}): Promise<RunningAuthorizationServer> {
  return serveAuthorizationServer({ login: autoApprove('alice'), onError: () => {}, ...options } as AuthorizationServerOptions, { port: 0 });
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri?: string;
  challenge?: string;
  method?: string;
  scope?: string;
  resource?: string | string[];
  state?: string;
  response_type?: string;
}

export function authorizeUrl(issuer: string, p: AuthorizeParams): string {
  const u = new URL(`${issuer}/authorize`);
  const q = u.searchParams;
  q.set('response_type', p.response_type ?? 'code');
  q.set('client_id', p.client_id);
  if (p.redirect_uri !== undefined) q.set('redirect_uri', p.redirect_uri);
  if (p.challenge !== undefined) q.set('code_challenge', p.challenge);
  if (p.method !== undefined) q.set('code_challenge_method', p.method);
  if (p.scope !== undefined) q.set('scope', p.scope);
  for (const r of typeof p.resource === 'string' ? [p.resource] : (p.resource ?? [])) q.append('resource', r);
  q.set('state', p.state ?? 'st-1');
  return u.href;
}

/** The browser: GET the URL without following; the redirect target (or the page, when there is none). */
export async function browse(url: string): Promise<{ status: number; location?: URL; body: string }> {
  const r = await fetch(url, { redirect: 'manual' });
  const body = await r.text();
  const loc = r.headers.get('location');
  return { status: r.status, location: loc ? new URL(loc) : undefined, body };
}

/** A sign-in that must succeed: the code from the redirect, after checking state and iss. */
export async function code(issuer: string, p: AuthorizeParams): Promise<string> {
  const r = await browse(authorizeUrl(issuer, p));
  assert.equal(r.status, 302, r.body);
  const q = r.location!.searchParams;
  assert.equal(q.get('error'), null, `${q.get('error')}: ${q.get('error_description')}`);
  assert.equal(q.get('state'), p.state ?? 'st-1');
  assert.equal(q.get('iss'), issuer);
  return q.get('code')!;
}

export async function token(
  issuer: string,
  form: Record<string, string | string[]>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, string>; headers: Headers }> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const one of typeof v === 'string' ? [v] : v) params.append(k, one);
  const r = await fetch(`${issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: params });
  return { status: r.status, body: (await r.json()) as Record<string, string>, headers: r.headers };
}

export function payload(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export async function register(issuer: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${issuer}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}
