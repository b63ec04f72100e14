/**
 * The authorization endpoint (OAuth 2.1 §4.1.1) and, in proxy mode, the callback from the
 * upstream identity provider. Until the client and its redirect URI are verified, errors are
 * shown to the user, never redirected (an open redirector otherwise); after that they go back to
 * the client with `state` and `iss` (RFC 9207), as the code does. PKCE with S256 is required:
 * `plain` would let whoever sees the request redeem the code.
 */
import { pkcePair, randomToken } from '../../client/auth/encoding.js';
import type { HttpRequestView, HttpResponder } from '../http/exchange.js';
import { checkResources, checkScopes, type ServerContext } from './context.js';
import { grantOf, type Grant } from './grants.js';
import { MAX_BODY, OAuthError, parseScope, redirect, sendErrorPage, single } from './http.js';
import type { AuthorizationParams, ClientRecord } from './options.js';
import { redirectMatches } from './redirect-uris.js';
import { digest } from './store.js';
import { exchangeUpstreamCode } from './upstream.js';

/** A BASE64URL(SHA-256) challenge is exactly 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** How long a user may take at the upstream provider. */
const PENDING_TTL_MS = 10 * 60_000;

interface Pending {
  params: AuthorizationParams;
  verifier: string;
  refresh: boolean;
}

/** Sends the browser back to the client with `fields`, `state` and `iss`. */
function back(res: HttpResponder, issuer: string, redirectUri: string, state: string | undefined, fields: Record<string, string>): void {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(fields)) u.searchParams.set(k, v);
  if (state !== undefined) u.searchParams.set('state', state);
  u.searchParams.set('iss', issuer);
  redirect(res, u.href);
}

function backWithError(res: HttpResponder, issuer: string, params: Pick<AuthorizationParams, 'redirectUri' | 'state'>, err: OAuthError): void {
  back(res, issuer, params.redirectUri, params.state, { error: err.error, error_description: err.description });
}

async function readParams(req: HttpRequestView): Promise<{ params: URLSearchParams; form?: URLSearchParams }> {
  const query = new URLSearchParams(req.query);
  if (req.method !== 'POST') return { params: query };
  const ct = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = ct === 'application/x-www-form-urlencoded' ? await req.readBody(MAX_BODY) : '';
  if (text === undefined) throw new OAuthError('invalid_request', `the form is larger than ${MAX_BODY} bytes`, 413);
  const form = new URLSearchParams(text);
  // The request itself may come as a form (RFC 6749 §3.1); a sign-in page posting back keeps it in the query.
  return query.has('client_id') ? { params: query, form } : { params: form, form };
}

/** The client and redirect URI: errors here are shown, not redirected. */
async function verifyClient(ctx: ServerContext, q: URLSearchParams): Promise<{ client: ClientRecord; redirectUri: string }> {
  const clientId = single(q, 'client_id');
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is missing');
  const client = await ctx.clients.find(clientId);
  if (!client) throw new OAuthError('invalid_client', `unknown client ${JSON.stringify(clientId)}`);
  let redirectUri = single(q, 'redirect_uri');
  if (redirectUri === undefined) {
    if (client.redirect_uris.length !== 1) throw new OAuthError('invalid_request', 'redirect_uri is missing');
    redirectUri = client.redirect_uris[0]!;
  }
  if (!redirectMatches(client, redirectUri)) throw new OAuthError('invalid_request', `redirect_uri ${redirectUri} is not registered for this client`);
  return { client, redirectUri };
}

/** The rest of the request: errors from here on go back to the client. */
function verifyRequest(ctx: ServerContext, q: URLSearchParams, client: ClientRecord, redirectUri: string, state: string | undefined): AuthorizationParams {
  const type = single(q, 'response_type');
  if (type !== 'code') throw new OAuthError('unsupported_response_type', `response_type must be "code", not ${JSON.stringify(type ?? '')}`);
  if (client.grant_types && !client.grant_types.includes('authorization_code'))
    throw new OAuthError('unauthorized_client', 'this client is not registered for the authorization_code grant');
  const challenge = single(q, 'code_challenge');
  const method = single(q, 'code_challenge_method');
  if (challenge === undefined) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256)');
  if (method !== 'S256')
    throw new OAuthError(
      'invalid_request',
      `code_challenge_method must be S256${method === undefined || method === 'plain' ? ' (plain is not accepted)' : ''}`,
    );
  if (!CHALLENGE.test(challenge)) throw new OAuthError('invalid_request', 'code_challenge must be a 43-character BASE64URL SHA-256 digest');
  const scopes = checkScopes(ctx, parseScope(single(q, 'scope')));
  const resources = checkResources(ctx, q.getAll('resource'));
  if (ctx.requireResource && resources.length === 0) throw new OAuthError('invalid_target', 'name the resource (RFC 8707) the token is for');
  const params: AuthorizationParams = { clientId: client.client_id, redirectUri, scopes, resources, codeChallenge: challenge };
  if (state !== undefined) params.state = state;
  return params;
}

const wantsRefresh = (ctx: ServerContext, client: ClientRecord) => ctx.refreshTokens && (client.grant_types?.includes('refresh_token') ?? true);

async function finish(ctx: ServerContext, issuer: string, res: HttpResponder, params: AuthorizationParams, grant: Grant, refresh: boolean): Promise<void> {
  const code = await ctx.grants.issueCode(grant, params.redirectUri, params.codeChallenge, refresh);
  back(res, issuer, params.redirectUri, params.state, { code });
}

export async function authorizeEndpoint(ctx: ServerContext, issuer: string, req: HttpRequestView, res: HttpResponder): Promise<void> {
  let q: URLSearchParams;
  let form: URLSearchParams | undefined;
  let client: ClientRecord;
  let redirectUri: string;
  try {
    ({ params: q, form } = await readParams(req));
    ({ client, redirectUri } = await verifyClient(ctx, q));
  } catch (err) {
    if (err instanceof OAuthError) return sendErrorPage(res, err);
    throw err;
  }
  const state = q.getAll('state').length === 1 ? q.get('state')! : undefined;
  let params: AuthorizationParams;
  try {
    if (q.getAll('state').length > 1) throw new OAuthError('invalid_request', 'the parameter state is repeated');
    params = verifyRequest(ctx, q, client, redirectUri, state);
  } catch (err) {
    if (err instanceof OAuthError) return backWithError(res, issuer, { redirectUri, state }, err);
    throw err;
  }
  const refresh = wantsRefresh(ctx, client);
  if (ctx.upstream) return startUpstream(ctx, issuer, res, params, refresh);
  const decision = await ctx.login!({ request: req, form, params, client });
  if ('respond' in decision) {
    const r = decision.respond;
    return res.send(r.status ?? 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...r.headers }, r.body);
  }
  if ('deny' in decision) return backWithError(res, issuer, params, new OAuthError('access_denied', decision.description ?? 'the user did not approve'));
  if (typeof decision.subject !== 'string' || !decision.subject) throw new TypeError('login() approved without a subject');
  const scopes = decision.scopes ? params.scopes.filter((s) => decision.scopes!.includes(s)) : params.scopes;
  const grant: Grant = {
    clientId: client.client_id,
    subject: decision.subject,
    scopes,
    resources: params.resources,
    authTime: Math.floor(ctx.clock.now() / 1000),
  };
  if (decision.claims) grant.claims = decision.claims;
  return finish(ctx, issuer, res, params, grant, refresh);
}

/** Proxy mode: remember the request and send the user to the upstream provider. */
async function startUpstream(ctx: ServerContext, issuer: string, res: HttpResponder, params: AuthorizationParams, refresh: boolean): Promise<void> {
  const up = ctx.upstream!;
  let endpoint: string;
  try {
    endpoint = (await up.endpoints(ctx.fetch)).authorizationEndpoint;
  } catch (err) {
    ctx.onError(new Error(`authorizationServer: ${up.name} is unreachable: ${(err as Error).message}`, { cause: err }));
    return backWithError(res, issuer, params, new OAuthError('temporarily_unavailable', `sign-in with ${up.name} is unavailable`));
  }
  const pkce = await pkcePair();
  const state = randomToken(24);
  const pending: Pending = { params, verifier: pkce.verifier, refresh };
  await ctx.store.put(`pending:${await digest(state)}`, pending, PENDING_TTL_MS);
  const u = new URL(endpoint);
  const p = u.searchParams;
  p.set('response_type', 'code');
  p.set('client_id', up.clientId);
  p.set('redirect_uri', `${issuer}/callback`);
  p.set('state', state);
  p.set('code_challenge', pkce.challenge);
  p.set('code_challenge_method', 'S256');
  if (up.scope) p.set('scope', up.scope);
  for (const [k, v] of Object.entries(up.authorizationParams ?? {})) p.set(k, v);
  redirect(res, u.href);
}

/** Proxy mode: the upstream provider sends the user back here. */
export async function callbackEndpoint(ctx: ServerContext, issuer: string, req: HttpRequestView, res: HttpResponder): Promise<void> {
  const up = ctx.upstream!;
  const q = new URLSearchParams(req.query);
  const state = q.get('state');
  const pending = state ? ((await ctx.store.take(`pending:${await digest(state)}`)) as Pending | undefined) : undefined;
  if (!pending) return sendErrorPage(res, new OAuthError('invalid_request', 'this sign-in is unknown or has expired; start again from the application'));
  const { params } = pending;
  const upstreamError = q.get('error');
  if (upstreamError) {
    const detail = q.get('error_description');
    return backWithError(
      res,
      issuer,
      params,
      new OAuthError('access_denied', `${up.name} refused the sign-in (${upstreamError}${detail ? `: ${detail}` : ''})`),
    );
  }
  const code = q.get('code');
  if (!code) return backWithError(res, issuer, params, new OAuthError('server_error', `${up.name} sent no authorization code`));
  let admitted: { subject: string; claims?: Record<string, unknown> } | undefined;
  try {
    const tokens = await exchangeUpstreamCode(up, ctx.fetch, code, `${issuer}/callback`, pending.verifier);
    const identity = await up.identify(tokens, ctx.fetch);
    admitted = up.admit ? await up.admit(identity) : { subject: identity.subject, claims: identity.claims };
  } catch (err) {
    ctx.onError(new Error(`authorizationServer: sign-in through ${up.name} failed: ${(err as Error).message}`, { cause: err }));
    return backWithError(res, issuer, params, new OAuthError('server_error', `sign-in through ${up.name} failed`));
  }
  if (!admitted) return backWithError(res, issuer, params, new OAuthError('access_denied', `this ${up.name} account is not allowed here`));
  const grant: Grant = {
    clientId: params.clientId,
    subject: admitted.subject,
    scopes: params.scopes,
    resources: params.resources,
    authTime: Math.floor(ctx.clock.now() / 1000),
  };
  if (admitted.claims) grant.claims = admitted.claims;
  return finish(ctx, issuer, res, params, grantOf(grant), pending.refresh);
}
