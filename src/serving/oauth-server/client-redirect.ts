/**
 * Sending the browser back to the client once its redirect URI is verified: with a code, or with
 * an error, always with the client's `state` and the `iss` parameter (RFC 9207).
 */
import type { HeaderMap, HttpResponder } from '../http/exchange.js';
import type { ServerContext } from './context.js';
import type { Grant } from './grants.js';
import { NO_STORE, type OAuthError } from './http.js';
import type { AuthorizationParams, ClientRecord } from './options.js';

/** Sends the browser back to the client with `fields`, `state` and `iss` (and `headers`, e.g. a cookie to clear). */
export function back(
  res: HttpResponder,
  issuer: string,
  redirectUri: string,
  state: string | undefined,
  fields: Record<string, string>,
  headers: HeaderMap = {},
): void {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(fields)) u.searchParams.set(k, v);
  if (state !== undefined) u.searchParams.set('state', state);
  u.searchParams.set('iss', issuer);
  res.send(302, { ...headers, location: u.href, ...NO_STORE });
}

export function backWithError(
  res: HttpResponder,
  issuer: string,
  params: Pick<AuthorizationParams, 'redirectUri' | 'state'>,
  err: OAuthError,
  headers: HeaderMap = {},
): void {
  back(res, issuer, params.redirectUri, params.state, { error: err.error, error_description: err.description }, headers);
}

export const wantsRefresh = (ctx: ServerContext, client: ClientRecord) => ctx.refreshTokens && (client.grant_types?.includes('refresh_token') ?? true);

/** Issues the code for `grant` and sends the browser back to the client with it. */
export async function finish(
  ctx: ServerContext,
  issuer: string,
  res: HttpResponder,
  params: AuthorizationParams,
  grant: Grant,
  refresh: boolean,
  headers: HeaderMap = {},
): Promise<void> {
  const code = await ctx.grants.issueCode(grant, params.redirectUri, params.codeChallenge, refresh);
  back(res, issuer, params.redirectUri, params.state, { code }, headers);
}
