/**
 * The authorization endpoint (OAuth 2.1 §4.1.1). Until the client and its redirect URI are
 * verified, errors are shown to the user, never redirected (an open redirector otherwise); after
 * that they go back to the client with `state` and `iss` (RFC 9207), as the code does. PKCE with
 * S256 is required: `plain` would let whoever sees the request redeem the code. Then the
 * application's `login` step decides, or, in proxy mode, proxy.ts takes over (consent, upstream).
 */
import type { HttpRequestView, HttpResponder } from '../http/exchange.js';
import { backWithError, finish, wantsRefresh } from './client-redirect.js';
import { checkResources, checkScopes, type ServerContext } from './context.js';
import type { Grant } from './grants.js';
import { MAX_BODY, OAuthError, parseScope, sendErrorPage, single } from './http.js';
import type { AuthorizationParams, ClientRecord } from './options.js';
import { proxyAuthorize } from './proxy.js';
import { redirectMatches } from './redirect-uris.js';

/** A BASE64URL(SHA-256) challenge is exactly 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

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
  if (ctx.upstream) return proxyAuthorize(ctx, issuer, req, res, client, params, refresh);
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
