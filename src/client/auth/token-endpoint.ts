/** The authorization server's endpoints a client calls directly: registration (RFC 7591) and token (RFC 6749 §3.2). */
import { basicCredentials } from './encoding.js';
import type { DpopProver } from './dpop.js';
import { OAuthFlowError } from './errors.js';
import { clientAssertion, type ClientKey } from './jwt.js';

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** A client as the authorization server knows it: registered, pre-registered or a CIMD URL. */
export interface ClientRegistration {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: TokenEndpointAuthMethod | string;
  /** Seconds since the epoch; 0 or absent: the secret does not expire. */
  client_secret_expires_at?: number;
  [key: string]: unknown;
}

/** A token endpoint answer (RFC 6749 §5.1), plus when the access token expires. */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
  /** Milliseconds since the epoch, worked out from `expires_in` when the tokens arrived. */
  expires_at?: number;
  [key: string]: unknown;
}

export interface EndpointContext {
  fetch: typeof fetch;
  /** Set when token requests carry DPoP proofs (the tokens are then bound to its key). */
  dpop?: DpopProver;
}

async function readJson(res: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const v: unknown = await res.json();
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function endpointError(what: string, url: string, res: Response, body: Record<string, unknown> | undefined): OAuthFlowError {
  const code = typeof body?.['error'] === 'string' ? (body['error'] as string) : undefined;
  const desc = typeof body?.['error_description'] === 'string' ? `: ${body['error_description'] as string}` : '';
  return new OAuthFlowError(`${what} at ${url} failed with HTTP ${res.status}${code ? ` (${code}${desc})` : ''}`, { code, status: res.status });
}

/** Dynamic Client Registration (RFC 7591). */
export async function registerClient(ctx: EndpointContext, endpoint: string, metadata: Record<string, unknown>): Promise<ClientRegistration> {
  let res: Response;
  try {
    res = await ctx.fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(metadata),
    });
  } catch (err) {
    throw new OAuthFlowError(`client registration at ${endpoint} failed: ${(err as Error).message}`, { cause: err });
  }
  const body = await readJson(res);
  if (!res.ok) throw endpointError('client registration', endpoint, res, body);
  if (typeof body?.['client_id'] !== 'string') throw new OAuthFlowError(`client registration at ${endpoint} returned no client_id`);
  return body as ClientRegistration;
}

/** Which way to authenticate at the token endpoint, from what the client has and the AS offers. */
export function pickAuthMethod(client: ClientRegistration, supported: readonly string[] | undefined, key: ClientKey | undefined): TokenEndpointAuthMethod {
  const told = client.token_endpoint_auth_method;
  if (told === 'none' || told === 'client_secret_basic' || told === 'client_secret_post' || told === 'private_key_jwt') return told;
  if (key) return 'private_key_jwt';
  if (!client.client_secret) return 'none';
  // RFC 8414: without the list, client_secret_basic is the default.
  if (!supported || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

export interface TokenRequest {
  endpoint: string;
  /** The AS issuer: the `aud` of a private_key_jwt assertion. */
  issuer: string;
  client: ClientRegistration;
  method: TokenEndpointAuthMethod;
  key?: ClientKey;
  params: Record<string, string | undefined>;
}

/** One token endpoint request with the client authenticated as `method` says. */
export async function requestTokens(ctx: EndpointContext, req: TokenRequest): Promise<OAuthTokens> {
  const { dpop } = ctx;
  let res: Response;
  let body: Record<string, unknown> | undefined;
  for (let attempt = 0; ; attempt++) {
    // Built anew for a retry: a client assertion, like a proof, is single use.
    const { headers, form } = await tokenForm(req);
    const nonce = dpop?.nonceFor(req.endpoint);
    if (dpop) headers['dpop'] = await dpop.proof('POST', req.endpoint, { nonce });
    try {
      res = await ctx.fetch(req.endpoint, { method: 'POST', headers, body: form.toString() });
    } catch (err) {
      throw new OAuthFlowError(`token request to ${req.endpoint} failed: ${(err as Error).message}`, { cause: err });
    }
    dpop?.remember(req.endpoint, res.headers);
    body = await readJson(res);
    // RFC 9449 §8: the server wants a nonce in the proof; one more try with the one it named.
    if (dpop && attempt === 0 && res.status === 400 && body?.['error'] === 'use_dpop_nonce' && dpop.nonceFor(req.endpoint) !== nonce) continue;
    break;
  }
  if (!res.ok) throw endpointError('the token request', req.endpoint, res, body);
  if (typeof body?.['access_token'] !== 'string') throw new OAuthFlowError(`the token endpoint ${req.endpoint} returned no access_token`);
  const tokens = body as OAuthTokens;
  const type = typeof tokens.token_type === 'string' ? tokens.token_type.toLowerCase() : 'bearer';
  // A DPoP-bound token only when a proof was sent: one the client cannot present is no use.
  if (type !== 'bearer' && !(type === 'dpop' && dpop)) {
    throw new OAuthFlowError(`the token endpoint issued a ${JSON.stringify(tokens.token_type)} token; MCP uses Bearer${dpop ? ' or DPoP' : ''} tokens`);
  }
  if (typeof tokens.expires_in === 'number') tokens.expires_at = Date.now() + tokens.expires_in * 1000;
  return tokens;
}

/** The form and headers of a token request, with the client authentication in them. */
async function tokenForm(req: TokenRequest): Promise<{ headers: Record<string, string>; form: URLSearchParams }> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(req.params)) if (v !== undefined && v !== '') form.set(k, v);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const { client } = req;
  switch (req.method) {
    case 'client_secret_basic':
      if (!client.client_secret) throw new OAuthFlowError('client_secret_basic needs a client secret');
      headers['authorization'] = basicCredentials(client.client_id, client.client_secret);
      break;
    case 'client_secret_post':
      if (!client.client_secret) throw new OAuthFlowError('client_secret_post needs a client secret');
      form.set('client_id', client.client_id);
      form.set('client_secret', client.client_secret);
      break;
    case 'private_key_jwt':
      if (!req.key) throw new OAuthFlowError('private_key_jwt needs a private key (OAuthOptions.privateKey)');
      form.set('client_id', client.client_id);
      form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      form.set('client_assertion', await clientAssertion(req.key, client.client_id, req.issuer));
      break;
    default:
      form.set('client_id', client.client_id);
  }
  return { headers, form };
}
