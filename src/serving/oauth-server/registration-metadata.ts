/**
 * What a dynamic registration may carry (RFC 7591 §2): the metadata fields this server keeps,
 * each checked for its type and size, and nothing else. Unknown fields are dropped, as §2 asks
 * ("MUST ignore any client metadata ... that it does not understand"), so a registration cannot
 * park arbitrary data on the server; the response names what was kept (§3.2.1). Not kept:
 * `jwks` and `software_statement` (no key-based client authentication nor software statements
 * here) and language-tagged variants such as `client_name#fr`.
 */
import { OAuthError } from './http.js';
import type { ClientAuthMethod, ClientRecord } from './options.js';
import { checkRedirectUri } from './redirect-uris.js';

export const AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];
const GRANTS = ['authorization_code', 'refresh_token'];
/** A URI of any field: far beyond a real one, far below what would matter in memory. */
const MAX_URI = 2048;
/** A name, an identifier, a version, one contact. */
const MAX_TEXT = 256;
const MAX_SCOPE = 1024;
const MAX_CONTACTS = 10;
const TEXT_FIELDS = ['client_name', 'software_id', 'software_version'] as const;
const URI_FIELDS = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri', 'jwks_uri'] as const;

const bad = (description: string) => new OAuthError('invalid_client_metadata', description);

function text(v: unknown, field: string, max: number): string {
  if (typeof v !== 'string') throw bad(`${field} must be a string`);
  if (v.length > max) throw bad(`${field} is longer than ${max} characters`);
  return v;
}

/** A web page or document of the client: an absolute https (or http) URL, never `javascript:` or `data:`. */
function webUri(v: unknown, field: string): string {
  const s = text(v, field, MAX_URI);
  if (!URL.canParse(s) || !/^https?:$/.test(new URL(s).protocol)) throw bad(`${field} must be an absolute https (or http) URL`);
  return s;
}

function strings(v: unknown, field: string, maxItems: number, maxLength: number): string[] {
  if (!Array.isArray(v)) throw bad(`${field} must be an array of strings`);
  if (v.length > maxItems) throw bad(`${field} may list at most ${maxItems} entries`);
  return [...new Set(v.map((s) => text(s, `each of ${field}`, maxLength)))];
}

/** Checked registration metadata: a client record but for its id. */
export type RegistrationMetadata = Omit<ClientRecord, 'client_id'> & {
  redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  grant_types: string[];
};

/**
 * The metadata to register, from the request body: the kept fields, checked, with the RFC 7591
 * defaults filled in (`client_secret_basic`, `["authorization_code"]`, `["code"]`).
 */
export function registrationMetadata(body: Record<string, unknown>, maxRedirectUris: number): RegistrationMetadata {
  const out = {} as RegistrationMetadata;
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI');
  if (uris.length > maxRedirectUris) throw new OAuthError('invalid_redirect_uri', `at most ${maxRedirectUris} redirect URIs`);
  out.redirect_uris = [
    ...new Set(
      uris.map((u) => {
        if (typeof u === 'string' && u.length > MAX_URI) throw new OAuthError('invalid_redirect_uri', `a redirect URI is longer than ${MAX_URI} characters`);
        return checkRedirectUri(u);
      }),
    ),
  ];
  const method = body.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(method as ClientAuthMethod))
    throw bad(`token_endpoint_auth_method ${JSON.stringify(method)} is not supported (${AUTH_METHODS.join(', ')})`);
  out.token_endpoint_auth_method = method as ClientAuthMethod;
  const grants = body.grant_types === undefined ? ['authorization_code'] : strings(body.grant_types, 'grant_types', GRANTS.length + 8, MAX_TEXT);
  const unsupported = grants.filter((g) => !GRANTS.includes(g));
  if (unsupported.length) throw bad(`grant types not supported here: ${unsupported.join(', ')}`);
  out.grant_types = grants;
  const responses = body.response_types ?? ['code'];
  if (!Array.isArray(responses) || responses.length === 0 || responses.some((r) => r !== 'code')) throw bad('response_types may only be ["code"]');
  out.response_types = ['code'];
  for (const f of TEXT_FIELDS) if (body[f] !== undefined) out[f] = text(body[f], f, MAX_TEXT);
  for (const f of URI_FIELDS) if (body[f] !== undefined) out[f] = webUri(body[f], f);
  if (body.contacts !== undefined) out.contacts = strings(body.contacts, 'contacts', MAX_CONTACTS, MAX_TEXT);
  if (body.scope !== undefined) out.scope = text(body.scope, 'scope', MAX_SCOPE);
  // OpenID Connect Dynamic Registration's field, which native MCP clients send.
  if (body.application_type !== undefined) {
    if (body.application_type !== 'web' && body.application_type !== 'native') throw bad('application_type must be "web" or "native"');
    out.application_type = body.application_type;
  }
  return out;
}
