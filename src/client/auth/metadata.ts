/**
 * Discovery for an MCP client: the server's Protected Resource Metadata (RFC 9728) and its
 * authorization server's metadata (RFC 8414 or OpenID Connect Discovery), in the orders the MCP
 * authorization spec gives, with the 2025-03-26 fallback for servers without PRM.
 */
import { OAuthFlowError } from './errors.js';

/** RFC 9728 Protected Resource Metadata, the fields MCP uses. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_name?: string;
  [key: string]: unknown;
}

/** RFC 8414 / OIDC Discovery metadata, the fields an MCP client uses. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
  [key: string]: unknown;
}

/** What discovery found for one MCP server URL. */
export interface Discovery {
  /** The PRM document, when the server has one. */
  resourceMetadata?: ProtectedResourceMetadata;
  /** The authorization server's issuer identifier. */
  issuer: string;
  /** Its metadata; undefined when none was found (legacy servers: default endpoints are used). */
  metadata?: AuthorizationServerMetadata;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  /** The `resource` parameter to send (RFC 8707): the PRM's resource, or the server URL. */
  resource: string;
}

type Fetch = typeof fetch;

/** Headers sent with every discovery request (MCP-Protocol-Version is a SHOULD on the legacy path). */
export interface DiscoveryContext {
  fetch: Fetch;
  protocolVersion?: string;
  /** Checks a URL before it is fetched or shown to a user (scheme and host rules). */
  checkUrl(url: string, what: string): URL;
}

async function getJson(ctx: DiscoveryContext, url: string): Promise<{ status: number; json?: unknown }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (ctx.protocolVersion) headers['mcp-protocol-version'] = ctx.protocolVersion;
  let res: Response;
  let at = url;
  // Redirects are followed by hand so that every hop passes the same URL checks.
  for (let hop = 0; ; hop++) {
    try {
      res = await ctx.fetch(at, { headers, redirect: 'manual' });
    } catch (err) {
      // In a browser, a cross-origin server whose CORS allows no MCP-Protocol-Version (most
      // authorization servers) fails the preflight, which fetch reports as a network error.
      // Without the header the GET is a simple request that needs no preflight: ask once more.
      if (headers['mcp-protocol-version'] !== undefined) {
        delete headers['mcp-protocol-version'];
        hop--;
        continue;
      }
      throw new OAuthFlowError(`could not fetch ${at}: ${(err as Error).message}`, { cause: err });
    }
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (!location) break;
    res.body?.cancel().catch(() => {});
    if (hop >= 3) throw new OAuthFlowError(`too many redirects fetching ${url}`);
    at = ctx.checkUrl(new URL(location, at).href, 'redirect target').href;
  }
  if (!res.ok) {
    res.body?.cancel().catch(() => {});
    return { status: res.status };
  }
  try {
    return { status: res.status, json: await res.json() };
  } catch {
    return { status: res.status };
  }
}

/** The canonical form of a resource URI (RFC 8707 as the MCP spec asks): no fragment, lower-case scheme and host. */
export function canonicalResource(url: string | URL): string {
  const u = new URL(url);
  u.hash = '';
  // URL already lower-cases the scheme and host; an empty path serialises as "/", which is not
  // significant, so it is dropped.
  const s = u.href;
  return u.pathname === '/' && !u.search ? s.slice(0, -1) : s;
}

/**
 * Whether PRM naming `resource` may be used for the server at `serverUrl` (RFC 9728 §3.3): the
 * same origin, and a path that is the server's path or one of its parent paths.
 */
export function resourceCovers(resource: string, serverUrl: string): boolean {
  let r: URL;
  let s: URL;
  try {
    r = new URL(resource);
    s = new URL(serverUrl);
  } catch {
    return false;
  }
  if (r.origin !== s.origin) return false;
  const rp = r.pathname.replace(/\/+$/, '');
  const sp = s.pathname.replace(/\/+$/, '');
  return rp === '' || sp === rp || sp.startsWith(`${rp}/`);
}

/** The well-known PRM URLs for a server URL, path-specific first (RFC 9728 §3.1). */
export function prmCandidates(serverUrl: string): string[] {
  const u = new URL(serverUrl);
  const path = u.pathname.replace(/\/+$/, '');
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  return path ? [`${root}${path}`, root] : [root];
}

/** The metadata URLs for an issuer, in the order the MCP spec gives (RFC 8414 §3.1, OIDC Discovery). */
export function asMetadataCandidates(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (!path) return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** Issuer identifiers compare exactly; only the empty path's "/" is not significant. */
function sameIssuer(a: string, b: string): boolean {
  if (a === b) return true;
  const strip = (s: string) => (/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/$/i.test(s) ? s.slice(0, -1) : s);
  return strip(a) === strip(b);
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** Fetches the server's PRM: from the challenge's URL if given, else the well-known URLs. */
export async function fetchResourceMetadata(ctx: DiscoveryContext, serverUrl: string, fromChallenge?: string): Promise<ProtectedResourceMetadata | undefined> {
  const candidates = fromChallenge ? [fromChallenge] : prmCandidates(serverUrl);
  for (const url of candidates) {
    ctx.checkUrl(url, 'protected resource metadata URL');
    const { json } = await getJson(ctx, url);
    if (json && typeof json === 'object' && typeof (json as ProtectedResourceMetadata).resource === 'string') {
      const prm = json as ProtectedResourceMetadata;
      if (!resourceCovers(prm.resource, serverUrl)) {
        throw new OAuthFlowError(
          `the protected resource metadata at ${url} is for ${JSON.stringify(prm.resource)}, not for ${serverUrl}; refusing to authorize against it`,
        );
      }
      return prm;
    }
  }
  return undefined;
}

/**
 * Fetches an authorization server's metadata, checking that it names the issuer asked for.
 * `legacy`: the 2025-03-26 fallback, where `issuer` is only the MCP server's origin (no PRM named
 * an issuer), so the document may name an issuer with a path (`<origin>/oauth`); it must still
 * be on that origin.
 */
export async function fetchServerMetadata(ctx: DiscoveryContext, issuer: string, legacy = false): Promise<AuthorizationServerMetadata | undefined> {
  for (const url of asMetadataCandidates(issuer)) {
    ctx.checkUrl(url, 'authorization server metadata URL');
    const { json } = await getJson(ctx, url);
    if (!json || typeof json !== 'object') continue;
    const meta = json as AuthorizationServerMetadata;
    if (typeof meta.issuer !== 'string' || !(sameIssuer(meta.issuer, issuer) || (legacy && sameOrigin(meta.issuer, issuer)))) {
      throw new OAuthFlowError(`the authorization server metadata at ${url} names issuer ${JSON.stringify(meta.issuer)}, not ${issuer}; discarded`);
    }
    return meta;
  }
  return undefined;
}

/**
 * The whole discovery for a server URL. With PRM: its first authorization server. Without
 * (2025-03-26 servers): the server's origin is the authorization server, and without metadata
 * there its default `/authorize`, `/token` and `/register` endpoints are used.
 */
export async function discover(
  ctx: DiscoveryContext,
  serverUrl: string,
  fromChallenge?: string,
  pickServer?: (servers: string[]) => string,
): Promise<Discovery> {
  const prm = await fetchResourceMetadata(ctx, serverUrl, fromChallenge);
  const servers = prm?.authorization_servers?.filter((s) => typeof s === 'string') ?? [];
  const issuer = servers.length ? (pickServer ? pickServer(servers) : servers[0]!) : new URL(serverUrl).origin;
  ctx.checkUrl(issuer, 'authorization server');
  const metadata = await fetchServerMetadata(ctx, issuer, servers.length === 0);
  const origin = new URL(issuer).origin;
  if (metadata && !metadata.token_endpoint) throw new OAuthFlowError(`the authorization server ${issuer} has no token_endpoint in its metadata`);
  const tokenEndpoint = metadata?.token_endpoint ?? `${origin}/token`;
  // Checked now, not when the code arrives: a refusal must come before the user signs in.
  ctx.checkUrl(tokenEndpoint, 'token endpoint');
  return {
    resourceMetadata: prm,
    issuer: metadata?.issuer ?? issuer,
    metadata,
    authorizationEndpoint: metadata ? (metadata.authorization_endpoint ?? '') : `${origin}/authorize`,
    tokenEndpoint,
    registrationEndpoint: metadata ? metadata.registration_endpoint : `${origin}/register`,
    resource: prm ? canonicalResource(prm.resource) : canonicalResource(serverUrl),
  };
}
