/** The grants: obtaining tokens once discovery has found the authorization server. */
import { pkcePair, randomToken } from './encoding.js';
import { OAuthFlowError } from './errors.js';
import type { Discovery } from './metadata.js';
import type { AuthorizationRequest, OAuthOptions } from './options.js';
import { isLoopback } from './url-policy.js';
import {
  pickAuthMethod,
  registerClient,
  requestTokens,
  type ClientRegistration,
  type EndpointContext,
  type OAuthTokens,
  type TokenEndpointAuthMethod,
} from './token-endpoint.js';

export interface FlowContext extends EndpointContext {
  options: OAuthOptions;
  checkUrl(url: string, what: string): URL;
}

/** Space-separated scope sets: the union, in first-seen order. */
export function unionScopes(...scopes: (string | undefined)[]): string | undefined {
  const seen = new Set<string>();
  for (const s of scopes) for (const part of s?.split(/\s+/) ?? []) if (part) seen.add(part);
  return seen.size ? [...seen].join(' ') : undefined;
}

export function coversScopes(granted: string | undefined, wanted: string | undefined): boolean {
  if (!wanted) return true;
  const have = new Set(granted?.split(/\s+/) ?? []);
  return wanted.split(/\s+/).every((s) => !s || have.has(s));
}

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export function grantOf(options: OAuthOptions): 'authorization_code' | 'client_credentials' | 'jwt-bearer' {
  return options.grant ?? (options.authorize ? 'authorization_code' : options.assertion !== undefined ? 'jwt-bearer' : 'client_credentials');
}

/** The client usable without registering: pre-registered, then CIMD, then a stored registration still valid. */
export function existingClient(ctx: FlowContext, d: Discovery, stored: ClientRegistration | undefined): ClientRegistration | undefined {
  const o = ctx.options;
  if (o.clientId) return { client_id: o.clientId, client_secret: o.clientSecret, token_endpoint_auth_method: o.tokenEndpointAuthMethod };
  if (o.clientMetadataUrl && d.metadata?.client_id_metadata_document_supported === true) {
    const url = ctx.checkUrl(o.clientMetadataUrl, 'client metadata document URL');
    if (url.protocol !== 'https:' || url.pathname === '/')
      throw new OAuthFlowError(`a client metadata document URL must be https with a path, not ${o.clientMetadataUrl}`);
    return { client_id: o.clientMetadataUrl, token_endpoint_auth_method: o.privateKey ? 'private_key_jwt' : 'none' };
  }
  if (stored && !(stored.client_secret_expires_at && stored.client_secret_expires_at * 1000 < Date.now())) return stored;
  return undefined;
}

/** The client id to use with this authorization server: pre-registered, then CIMD, then dynamic registration. */
export async function obtainClient(
  ctx: FlowContext,
  d: Discovery,
  stored: ClientRegistration | undefined,
): Promise<{ client: ClientRegistration; fresh: boolean }> {
  const o = ctx.options;
  const known = existingClient(ctx, d, stored);
  if (known) return { client: known, fresh: false };
  if (!d.registrationEndpoint) {
    throw new OAuthFlowError(
      `the authorization server ${d.issuer} does not support dynamic client registration${d.metadata?.client_id_metadata_document_supported ? ' (it supports client ID metadata documents: set clientMetadataUrl)' : ''}; register a client there and pass its clientId`,
    );
  }
  ctx.checkUrl(d.registrationEndpoint, 'registration endpoint');
  const grant = grantOf(o);
  const supported = d.metadata?.token_endpoint_auth_methods_supported;
  let method: TokenEndpointAuthMethod = 'none';
  if (o.tokenEndpointAuthMethod) method = o.tokenEndpointAuthMethod;
  else if (o.privateKey) method = 'private_key_jwt';
  else if (grant === 'client_credentials' || (supported && !supported.includes('none'))) {
    method =
      supported?.includes('client_secret_basic') || !supported
        ? 'client_secret_basic'
        : supported.includes('client_secret_post')
          ? 'client_secret_post'
          : 'client_secret_basic';
  }
  const redirect = o.redirectUri;
  const body: Record<string, unknown> = {
    client_name: 'mcpkit client',
    grant_types: grant === 'client_credentials' ? ['client_credentials'] : grant === 'jwt-bearer' ? [JWT_BEARER] : ['authorization_code', 'refresh_token'],
    response_types: grant === 'authorization_code' ? ['code'] : [],
    token_endpoint_auth_method: method,
    ...(redirect
      ? { redirect_uris: [redirect], application_type: isLoopback(new URL(redirect).hostname) || !/^https:/.test(redirect) ? 'native' : 'web' }
      : {}),
    ...o.clientMetadata,
  };
  return { client: await registerClient(ctx, d.registrationEndpoint, body), fresh: true };
}

/** The scope for a first authorization: the challenge's, else the PRM's scopes_supported, else none. */
export function initialScope(ctx: FlowContext, d: Discovery, challengeScope: string | undefined): string | undefined {
  if (ctx.options.scope) return unionScopes(ctx.options.scope, challengeScope);
  if (challengeScope) return challengeScope;
  const supported = d.resourceMetadata?.scopes_supported;
  return supported?.length ? supported.join(' ') : undefined;
}

/** Adds offline_access when the authorization server offers it and a user is signing in (SEP-2207). */
export function withOfflineAccess(ctx: FlowContext, d: Discovery, scope: string | undefined): string | undefined {
  if (ctx.options.offlineAccess === false || grantOf(ctx.options) !== 'authorization_code') return scope;
  return d.metadata?.scopes_supported?.includes('offline_access') ? unionScopes(scope, 'offline_access') : scope;
}

function tokenRequestBase(ctx: FlowContext, d: Discovery, client: ClientRegistration) {
  ctx.checkUrl(d.tokenEndpoint, 'token endpoint');
  const method = pickAuthMethod(client, d.metadata?.token_endpoint_auth_methods_supported, ctx.options.privateKey);
  return { endpoint: d.tokenEndpoint, issuer: d.issuer, client, method, key: ctx.options.privateKey };
}

export function clientCredentialsGrant(ctx: FlowContext, d: Discovery, client: ClientRegistration, scope: string | undefined): Promise<OAuthTokens> {
  return requestTokens(ctx, { ...tokenRequestBase(ctx, d, client), params: { grant_type: 'client_credentials', scope, resource: d.resource } });
}

/** The JWT bearer grant (RFC 7523 §2.1): an assertion obtained elsewhere, exchanged for an access token. */
export async function jwtBearerGrant(ctx: FlowContext, d: Discovery, client: ClientRegistration, scope: string | undefined): Promise<OAuthTokens> {
  const source = ctx.options.assertion;
  if (source === undefined) throw new OAuthFlowError('the jwt-bearer grant needs OAuthOptions.assertion');
  const base = tokenRequestBase(ctx, d, client);
  const assertion = typeof source === 'string' ? source : await source({ issuer: d.issuer, resource: d.resource, tokenEndpoint: base.endpoint, scope });
  if (!assertion) throw new OAuthFlowError('OAuthOptions.assertion produced no assertion');
  return requestTokens(ctx, { ...base, params: { grant_type: JWT_BEARER, assertion, scope, resource: d.resource } });
}

export function refreshGrant(ctx: FlowContext, d: Discovery, client: ClientRegistration, refreshToken: string): Promise<OAuthTokens> {
  return requestTokens(ctx, {
    ...tokenRequestBase(ctx, d, client),
    params: { grant_type: 'refresh_token', refresh_token: refreshToken, resource: d.resource },
  });
}

/** The authorization code grant with PKCE (S256), state, resource indicator and RFC 9207 issuer check. */
export async function authorizationCodeGrant(ctx: FlowContext, d: Discovery, client: ClientRegistration, scope: string | undefined): Promise<OAuthTokens> {
  const o = ctx.options;
  if (!o.authorize) {
    throw new OAuthFlowError(
      `the server requires the user to sign in at ${d.issuer}; pass OAuthOptions.authorize (for example loopbackAuthorize()) or use client credentials`,
    );
  }
  if (!o.redirectUri) throw new OAuthFlowError('OAuthOptions.redirectUri is required for the authorization code grant');
  // Since 2025-11-25 the client MUST refuse when the metadata does not list S256. Servers with
  // no metadata at all (the 2025-03-26 fallback) get PKCE S256 regardless.
  const methods = d.metadata?.code_challenge_methods_supported;
  if (d.metadata && (!Array.isArray(methods) || !methods.includes('S256'))) {
    throw new OAuthFlowError(
      `the authorization server ${d.issuer} does not advertise PKCE S256 support (code_challenge_methods_supported); refusing to continue`,
    );
  }
  if (!d.authorizationEndpoint) throw new OAuthFlowError(`the authorization server ${d.issuer} has no authorization_endpoint`);
  const resumed = await resumeRedirect(ctx, d, client);
  if (resumed) return resumed;
  const url = new URL(ctx.checkUrl(d.authorizationEndpoint, 'authorization endpoint'));
  const pkce = await pkcePair();
  const state = randomToken(16);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', client.client_id);
  q.set('redirect_uri', o.redirectUri);
  q.set('code_challenge', pkce.challenge);
  q.set('code_challenge_method', pkce.method);
  q.set('state', state);
  q.set('resource', d.resource);
  if (scope) q.set('scope', scope);
  // RFC 9449 §10: the code is bound to the key too, so a stolen code is no use with another one.
  if (ctx.dpop) q.set('dpop_jkt', await ctx.dpop.thumbprint());
  const request: AuthorizationRequest = { url, redirectUri: o.redirectUri, state, issuer: d.issuer };
  // A browser app's authorize() may navigate the page away: what the exchange needs then has to
  // outlive the page, in a store that keeps it (WebStorageOAuthStore in sessionStorage).
  await o.store?.savePending?.(state, { verifier: pkce.verifier, issuer: d.issuer, resource: d.resource, redirectUri: o.redirectUri });
  const answer = await o.authorize(request);
  const code = readCallback(answer, state, d);
  return requestTokens(ctx, {
    ...tokenRequestBase(ctx, d, client),
    params: { grant_type: 'authorization_code', code, redirect_uri: o.redirectUri, code_verifier: pkce.verifier, resource: d.resource },
  });
}

/**
 * The page came back from the authorization server (`callbackUrl`) with the state of an
 * authorization this store saved before navigating: the code is exchanged with that verifier.
 * Anything else (no callback, a state not saved here, another server) starts afresh.
 */
async function resumeRedirect(ctx: FlowContext, d: Discovery, client: ClientRegistration): Promise<OAuthTokens | undefined> {
  const o = ctx.options;
  if (o.callbackUrl === undefined || !o.store?.takePending) return undefined;
  const back = new URL(String(o.callbackUrl));
  const state = back.searchParams.get('state');
  if (!state) return undefined;
  const pending = await o.store.takePending(state);
  if (!pending || pending.issuer !== d.issuer || pending.resource !== d.resource) return undefined;
  const code = readCallback(back, state, d);
  return requestTokens(ctx, {
    ...tokenRequestBase(ctx, d, client),
    params: { grant_type: 'authorization_code', code, redirect_uri: pending.redirectUri, code_verifier: pending.verifier, resource: d.resource },
  });
}

/** The code from the redirect back, after the state and issuer checks. */
function readCallback(answer: string | URL, state: string, d: Discovery): string {
  if (typeof answer === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(answer)) {
    if (!answer) throw new OAuthFlowError('authorize() resolved no authorization code');
    return answer; // a bare code: the application did the checks itself
  }
  const callback = typeof answer === 'string' ? new URL(answer) : answer;
  const p = callback.searchParams;
  // RFC 9207: an `iss` present must match exactly; one required by the metadata must be present.
  // The check comes before the error fields are believed (a mix-up attack can forge them).
  const iss = p.get('iss');
  if (iss !== null && iss !== d.issuer)
    throw new OAuthFlowError(`the authorization response came from issuer ${JSON.stringify(iss)}, not ${d.issuer}; discarded`);
  if (iss === null && d.metadata?.authorization_response_iss_parameter_supported === true) {
    throw new OAuthFlowError(`the authorization response has no iss parameter although ${d.issuer} promises one; discarded`);
  }
  if (p.get('state') !== state) throw new OAuthFlowError('the authorization response carries the wrong state; discarded');
  const error = p.get('error');
  if (error)
    throw new OAuthFlowError(`authorization was refused: ${error}${p.get('error_description') ? ` (${p.get('error_description')})` : ''}`, { code: error });
  const code = p.get('code');
  if (!code) throw new OAuthFlowError('the authorization response carries no code');
  return code;
}
