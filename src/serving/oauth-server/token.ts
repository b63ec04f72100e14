/**
 * The endpoints clients call directly: token (OAuth 2.1 §3.2; the code and refresh grants),
 * revocation (RFC 7009) and dynamic registration (RFC 7591). Answers are JSON, never cached.
 */
import type { HttpRequestView, HttpResponder } from '../http/exchange.js';
import { authenticateClient } from './clients.js';
import { checkResources, checkScopes, fallbackAudience, type ServerContext } from './context.js';
import { grantOf, type Grant, type TokenResponse } from './grants.js';
import { NO_STORE, OAuthError, parseScope, readForm, readJsonObject, sendJson, sendOAuthError, single } from './http.js';
import { registrationMetadata } from './registration-metadata.js';

/** RFC 8707 §2.2: the token request may narrow the granted resources, never widen them. */
function audienceFor(ctx: ServerContext, issuer: string, grant: Grant, asked: string[]): string[] {
  const wanted = checkResources(ctx, asked);
  if (wanted.length === 0) return grant.resources.length ? grant.resources : [fallbackAudience(ctx, issuer)];
  if (grant.resources.length) {
    const extra = wanted.filter((r) => !grant.resources.includes(r));
    if (extra.length) throw new OAuthError('invalid_target', `${extra.join(' ')} was not granted in the authorization request`);
  }
  return wanted;
}

/** RFC 6749 §6: a refresh may ask for fewer scopes, never more. */
function scopesFor(grant: Grant, raw: string | undefined): string[] {
  const asked = parseScope(raw);
  if (asked.length === 0) return grant.scopes;
  const extra = asked.filter((s) => !grant.scopes.includes(s));
  if (extra.length) throw new OAuthError('invalid_scope', `${extra.join(' ')} was not granted`);
  return asked;
}

function allows(grantTypes: string[] | undefined, grant: string): boolean {
  return grantTypes === undefined || grantTypes.includes(grant);
}

export async function tokenEndpoint(ctx: ServerContext, issuer: string, req: HttpRequestView, res: HttpResponder): Promise<void> {
  try {
    const form = await readForm(req);
    const client = await authenticateClient(ctx.clients, req, form);
    const type = single(form, 'grant_type');
    let body: TokenResponse;
    if (type === 'authorization_code') {
      if (!allows(client.grant_types, 'authorization_code'))
        throw new OAuthError('unauthorized_client', 'this client may not use the authorization_code grant');
      const code = single(form, 'code');
      if (!code) throw new OAuthError('invalid_request', 'code is missing');
      const record = await ctx.grants.redeemCode(client.client_id, code, single(form, 'redirect_uri'), single(form, 'code_verifier'));
      const grant = grantOf(record);
      const audience = audienceFor(ctx, issuer, grant, form.getAll('resource'));
      const family = record.refresh && allows(client.grant_types, 'refresh_token') ? record.family : undefined;
      body = await ctx.grants.issueTokens(grant, issuer, audience, grant.scopes, family);
    } else if (type === 'refresh_token') {
      if (!ctx.refreshTokens || !allows(client.grant_types, 'refresh_token'))
        throw new OAuthError('unauthorized_client', 'this client may not use the refresh_token grant');
      const token = single(form, 'refresh_token');
      if (!token) throw new OAuthError('invalid_request', 'refresh_token is missing');
      const { record, result } = await ctx.grants.redeemRefresh(client.client_id, token, (r) => {
        const grant = grantOf(r);
        return { grant, audience: audienceFor(ctx, issuer, grant, form.getAll('resource')), scopes: scopesFor(grant, single(form, 'scope')) };
      });
      body = await ctx.grants.issueTokens(result.grant, issuer, result.audience, result.scopes, record.family);
    } else if (type === undefined) throw new OAuthError('invalid_request', 'grant_type is missing');
    else throw new OAuthError('unsupported_grant_type', `the ${type} grant is not supported here (authorization_code, refresh_token)`);
    // A registered client in use is kept (one that never gets here expires unused). The tokens
    // are issued by now and the code or old refresh token spent: a store failure here must not
    // cost the client its answer.
    await ctx.clients.used(client).catch((e: unknown) => ctx.onError(e instanceof Error ? e : new Error(String(e))));
    sendJson(res, 200, body, NO_STORE);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    sendOAuthError(res, err, err.error === 'invalid_client' && req.header('authorization') ? { 'www-authenticate': 'Basic realm="token"' } : {});
  }
}

export async function revokeEndpoint(ctx: ServerContext, req: HttpRequestView, res: HttpResponder): Promise<void> {
  try {
    const form = await readForm(req);
    const client = await authenticateClient(ctx.clients, req, form);
    const token = single(form, 'token');
    if (!token) throw new OAuthError('invalid_request', 'token is missing');
    // Access tokens are self-contained JWTs and live out their short lifetime; a refresh token
    // ends its whole sign-in. Anything else is answered 200 too (RFC 7009 §2.2).
    await ctx.grants.revokeRefresh(client.client_id, token);
    res.send(200, { ...NO_STORE, 'access-control-allow-origin': '*' });
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    sendOAuthError(res, err);
  }
}

/**
 * RFC 7591 registration: the gate first (rate limit, initial access token: no body read for a
 * refused request), then the body within its cap, only the known metadata kept and checked, and
 * a place in the bounded registration store.
 */
export async function registerEndpoint(ctx: ServerContext, req: HttpRequestView, res: HttpResponder): Promise<void> {
  try {
    const policy = ctx.registration!;
    await policy.admit(req);
    const metadata = registrationMetadata(await readJsonObject(req, policy.maxBodyBytes), policy.maxRedirectUris);
    if (typeof metadata.scope === 'string') checkScopes(ctx, parseScope(metadata.scope));
    const record = await ctx.clients.register(metadata, ctx.clock.now());
    sendJson(res, 201, record, NO_STORE);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    sendOAuthError(res, err);
  }
}
