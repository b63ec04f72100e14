/**
 * Proxy mode: sign-in federated to an upstream identity provider, the way MCP gateways do it.
 * The client talks OAuth to this server only; at the authorization endpoint the user is sent
 * upstream (GitHub, Google, any OpenID provider) with this server's own client id, comes back to
 * `<issuer>/callback`, the upstream code is exchanged here, the user identified, and only then
 * does the client get a code of ours, and later tokens of ours for the MCP server. Upstream
 * tokens never reach the client (they were issued to this server, for another audience).
 */

/** The user as the upstream provider identified them. */
export interface UpstreamIdentity {
  /** Stable id at the provider (GitHub's numeric id, OIDC's `sub`). */
  subject: string;
  /** What the provider said about the user (login, email, name...). */
  claims: Record<string, unknown>;
}

/** The upstream token endpoint's answer. */
export interface UpstreamTokens {
  access_token: string;
  token_type?: string;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
  [field: string]: unknown;
}

export interface Upstream {
  /** Shown in errors: "GitHub", "Google", the issuer. */
  name: string;
  /** Endpoints, resolved lazily (an OIDC provider's come from its discovery document). */
  endpoints(fetchImpl: typeof globalThis.fetch): Promise<{ authorizationEndpoint: string; tokenEndpoint: string }>;
  clientId: string;
  clientSecret?: string;
  /** Scope asked of the upstream provider. */
  scope?: string;
  /** Extra query parameters for the upstream authorization request. */
  authorizationParams?: Record<string, string>;
  /** Who the user is, from the upstream tokens. */
  identify(tokens: UpstreamTokens, fetchImpl: typeof globalThis.fetch): Promise<UpstreamIdentity>;
  /**
   * Decides on an identified user: the subject of our tokens and claims to put in them, or
   * undefined to refuse (`access_denied`); an organisation or domain check goes here. Default:
   * the upstream subject and claims as they are.
   */
  admit?: (
    identity: UpstreamIdentity,
  ) => { subject: string; claims?: Record<string, unknown> } | undefined | Promise<{ subject: string; claims?: Record<string, unknown> } | undefined>;
}

const TIMEOUT_MS = 10_000;

async function getJson(fetchImpl: typeof globalThis.fetch, url: string, token?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'mcpkit-authorization-server' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetchImpl(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`GET ${url} answered HTTP ${res.status}`);
  }
  const v: unknown = await res.json();
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`GET ${url} did not answer a JSON object`);
  return v as Record<string, unknown>;
}

/** The authorization code exchange at the upstream token endpoint (client_secret_post, and PKCE). */
export async function exchangeUpstreamCode(
  upstream: Upstream,
  fetchImpl: typeof globalThis.fetch,
  code: string,
  redirectUri: string,
  verifier: string,
): Promise<UpstreamTokens> {
  const { tokenEndpoint } = await upstream.endpoints(fetchImpl);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: upstream.clientId,
    code_verifier: verifier,
  });
  if (upstream.clientSecret) form.set('client_secret', upstream.clientSecret);
  const res = await fetchImpl(tokenEndpoint, {
    method: 'POST',
    // GitHub answers form-encoded unless JSON is asked for.
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form.toString(),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  let body: Record<string, unknown> | undefined;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  // GitHub reports a bad code with 200 and an `error` member.
  if (!res.ok || !body || typeof body.access_token !== 'string') {
    const why = body && typeof body.error === 'string' ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}` : `HTTP ${res.status}`;
    throw new Error(`${upstream.name} refused the code exchange (${why})`);
  }
  return body as UpstreamTokens;
}

export interface GithubUpstreamOptions {
  clientId: string;
  clientSecret: string;
  /** Default 'read:user'. */
  scope?: string;
  /** For GitHub Enterprise Server (`https://github.example.com`) or a test double. Default https://github.com. */
  webUrl?: string;
  /** Default https://api.github.com (`<webUrl>/api/v3` on Enterprise Server). */
  apiUrl?: string;
  admit?: Upstream['admit'];
}

/** GitHub OAuth apps (and GitHub Apps' user sign-in): the user is `GET /user`'s numeric id, with the login as a claim. */
export function githubUpstream(o: GithubUpstreamOptions): Upstream {
  const web = (o.webUrl ?? 'https://github.com').replace(/\/+$/, '');
  const api = (o.apiUrl ?? (o.webUrl ? `${web}/api/v3` : 'https://api.github.com')).replace(/\/+$/, '');
  return {
    name: 'GitHub',
    endpoints: async () => ({ authorizationEndpoint: `${web}/login/oauth/authorize`, tokenEndpoint: `${web}/login/oauth/access_token` }),
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    scope: o.scope ?? 'read:user',
    admit: o.admit,
    async identify(tokens, fetchImpl) {
      const user = await getJson(fetchImpl, `${api}/user`, tokens.access_token);
      if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new Error('GitHub /user has no id');
      return { subject: String(user.id), claims: { login: user.login, name: user.name, email: user.email } };
    },
  };
}

export interface OidcUpstreamOptions {
  /** The provider's issuer; its `/.well-known/openid-configuration` gives the endpoints. */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** Default 'openid email profile'. */
  scope?: string;
  authorizationParams?: Record<string, string>;
  admit?: Upstream['admit'];
  /** Shown in errors. Default the issuer. */
  name?: string;
}

/**
 * Any OpenID Connect provider: endpoints from its discovery document (which must name the same
 * issuer), and the user from its userinfo endpoint with the upstream access token: the provider
 * vouches for the answer over TLS, so no ID token signature needs checking here.
 */
export function oidcUpstream(o: OidcUpstreamOptions): Upstream {
  const issuer = o.issuer.replace(/\/+$/, '');
  let discovered: Promise<Record<string, unknown>> | undefined;
  const discovery = (fetchImpl: typeof globalThis.fetch) => {
    discovered ??= getJson(fetchImpl, `${issuer}/.well-known/openid-configuration`).then((doc) => {
      if (typeof doc.issuer !== 'string' || doc.issuer.replace(/\/+$/, '') !== issuer)
        throw new Error(`${issuer}'s discovery document names issuer ${JSON.stringify(doc.issuer)}`);
      for (const f of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint'])
        if (typeof doc[f] !== 'string') throw new Error(`${issuer}'s discovery document has no ${f}`);
      return doc;
    });
    // A failed discovery is tried again on the next sign-in, not remembered.
    discovered.catch(() => (discovered = undefined));
    return discovered;
  };
  return {
    name: o.name ?? issuer,
    async endpoints(fetchImpl) {
      const d = await discovery(fetchImpl);
      return { authorizationEndpoint: d.authorization_endpoint as string, tokenEndpoint: d.token_endpoint as string };
    },
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    scope: o.scope ?? 'openid email profile',
    authorizationParams: o.authorizationParams,
    admit: o.admit,
    async identify(tokens, fetchImpl) {
      const d = await discovery(fetchImpl);
      const info = await getJson(fetchImpl, d.userinfo_endpoint as string, tokens.access_token);
      if (typeof info.sub !== 'string' || !info.sub) throw new Error(`${o.name ?? issuer} userinfo has no sub`);
      return { subject: info.sub, claims: info };
    },
  };
}

export type GoogleUpstreamOptions = Omit<OidcUpstreamOptions, 'issuer' | 'name'>;

/** Google sign-in: OpenID Connect at https://accounts.google.com. */
export function googleUpstream(o: GoogleUpstreamOptions): Upstream {
  return oidcUpstream({ ...o, issuer: 'https://accounts.google.com', name: 'Google' });
}
