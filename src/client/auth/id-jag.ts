/**
 * Enterprise-managed authorization (SEP-990, "cross-app access"): the user's ID token from the
 * enterprise identity provider is exchanged there (RFC 8693) for an Identity Assertion JWT
 * Authorization Grant (ID-JAG) naming the MCP server's authorization server, which then issues
 * the access token through the JWT bearer grant. No browser is involved.
 */
import { basicCredentials } from './encoding.js';
import { OAuthFlowError } from './errors.js';
import type { AssertionTarget } from './options.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

export interface IdJagOptions {
  /** The identity provider's token endpoint (from the application's configuration, not from a server). */
  tokenEndpoint: string;
  /** The signed-in user's ID token from that provider, or a function returning a current one. */
  idToken: string | (() => string | Promise<string>);
  /** This application's client id at the identity provider. */
  clientId: string;
  /** Its secret there, for client_secret_basic; without one the client id goes in the form. */
  clientSecret?: string;
  fetch?: typeof fetch;
}

/** An `OAuthOptions.assertion` that obtains an ID-JAG for each authorization server it is asked for. */
export function idJagAssertion(options: IdJagOptions): (target: AssertionTarget) => Promise<string> {
  return async (target) => {
    const subject = typeof options.idToken === 'string' ? options.idToken : await options.idToken();
    const form = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      audience: target.issuer,
      resource: target.resource,
      subject_token: subject,
      subject_token_type: ID_TOKEN,
    });
    if (target.scope) form.set('scope', target.scope);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (options.clientSecret) headers['authorization'] = basicCredentials(options.clientId, options.clientSecret);
    else form.set('client_id', options.clientId);
    const f = options.fetch ?? globalThis.fetch;
    let res: Response;
    try {
      res = await f(options.tokenEndpoint, { method: 'POST', headers, body: form.toString() });
    } catch (err) {
      throw new OAuthFlowError(`the token exchange at ${options.tokenEndpoint} failed: ${(err as Error).message}`, { cause: err });
    }
    let body: Record<string, unknown> | undefined;
    try {
      body = (await res.json()) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    if (!res.ok || typeof body?.['access_token'] !== 'string') {
      const code = typeof body?.['error'] === 'string' ? (body['error'] as string) : undefined;
      throw new OAuthFlowError(`the identity provider refused the token exchange at ${options.tokenEndpoint} (HTTP ${res.status}${code ? `, ${code}` : ''})`, {
        code,
        status: res.status,
      });
    }
    if (body['issued_token_type'] !== undefined && body['issued_token_type'] !== ID_JAG) {
      throw new OAuthFlowError(`the identity provider issued a ${String(body['issued_token_type'])}, not an ID-JAG`);
    }
    return body['access_token'] as string;
  };
}
