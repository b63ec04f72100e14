// A 401, followed the way an MCP client follows it: the challenge, the Protected Resource
// Metadata (RFC 9728), the authorization server's metadata (RFC 8414 / OIDC), and whether a
// client can get registered with the redirect URI it would use. Each link is a step, so the
// report says which one is broken.
import { parseAuthChallenge } from '../../client/auth/challenge.js';
import { pkcePair, randomToken } from '../../client/auth/encoding.js';
import { fetchResourceMetadata, fetchServerMetadata, type AuthorizationServerMetadata, type DiscoveryContext } from '../../client/auth/metadata.js';
import { urlPolicy } from '../../client/auth/url-policy.js';
import { quote, type Walk } from './walk.js';

const CREDENTIAL = /^(authorization|x-api-key|api-key|cookie)$/i;

/** Follows a 401 from `url`. `challenge`: its WWW-Authenticate; `sent`: the user's headers. */
export async function authSteps(walk: Walk, url: URL, challenge: string | null, sent: Record<string, string>): Promise<void> {
  let since = walk.now();
  const parsed = parseAuthChallenge(challenge);
  const credential = Object.keys(sent).find((k) => CREDENTIAL.test(k));
  const said = parsed?.error ? ` (${parsed.error}${parsed.errorDescription ? `: ${quote(parsed.errorDescription, 100)}` : ''})` : '';
  if (credential) {
    walk.fail(
      'auth',
      since,
      'unauthorized',
      `the server refused the credentials sent in the ${credential} header (HTTP 401${said})`,
      `check the ${credential} value: it may be wrong, expired, or meant for another server`,
    );
  } else {
    walk.pass(
      'auth',
      since,
      `HTTP 401: the server wants authorization${challenge ? ` (WWW-Authenticate: ${quote(challenge, 120)})` : ' (no WWW-Authenticate header)'}`,
    );
  }
  // Discovery as a client does it, every URL checked by the same policy (https, no private
  // addresses for a public server), each fetch bounded by the doctor's clock.
  const dctx: DiscoveryContext = { fetch: timedFetch(walk), checkUrl: urlPolicy(url.href) };
  since = walk.now();
  let prm: Awaited<ReturnType<typeof fetchResourceMetadata>>;
  try {
    prm = await fetchResourceMetadata(dctx, url.href, parsed?.resourceMetadata);
  } catch (err) {
    walk.fail(
      'resource-metadata',
      since,
      'bad-resource-metadata',
      (err as Error).message,
      'serve Protected Resource Metadata whose "resource" is this server URL (or a parent path of it), on the same origin',
    );
    return;
  }
  if (!prm) {
    if (parsed?.resourceMetadata) {
      walk.fail(
        'resource-metadata',
        since,
        'bad-resource-metadata',
        `WWW-Authenticate names resource_metadata ${parsed.resourceMetadata}, but no metadata document is there`,
        'serve the Protected Resource Metadata (RFC 9728) JSON at that URL, with "resource" and "authorization_servers"',
      );
      return;
    }
    const legacy = await fetchServerMetadata(dctx, url.origin, true).catch(() => undefined);
    walk.fail(
      'resource-metadata',
      since,
      'unauthorized-no-metadata',
      `the server answered 401 with no resource_metadata in WWW-Authenticate and serves no ${new URL('/.well-known/oauth-protected-resource', url).href}: clients cannot find where to sign in${legacy ? ' (it has authorization server metadata at its origin, the 2025-03-26 way, which newer clients no longer look for)' : ''}`,
      'if it signs in with OAuth: serve Protected Resource Metadata (RFC 9728) at /.well-known/oauth-protected-resource and name it in WWW-Authenticate: Bearer resource_metadata="…". If it takes an API key or a fixed token: pass it with -H "Authorization: Bearer KEY" (or the header its documentation names)',
    );
    return;
  }
  const issuer = prm.authorization_servers?.[0];
  if (typeof issuer !== 'string') {
    walk.fail(
      'resource-metadata',
      since,
      'bad-resource-metadata',
      `the Protected Resource Metadata for ${prm.resource} names no authorization_servers`,
      'list the authorization server issuer URL(s) in "authorization_servers"',
    );
    return;
  }
  walk.pass(
    'resource-metadata',
    since,
    `resource ${prm.resource}, authorization server ${issuer}${prm.scopes_supported?.length ? `, scopes ${prm.scopes_supported.join(' ')}` : ''}`,
  );
  since = walk.now();
  let meta: AuthorizationServerMetadata | undefined;
  try {
    meta = await fetchServerMetadata(dctx, issuer);
  } catch (err) {
    walk.fail(
      'authorization-server',
      since,
      'no-authorization-server',
      `cannot read the authorization server's metadata: ${(err as Error).message}`,
      'check that the authorization server is up and its issuer URL is right',
    );
    return;
  }
  if (!meta || typeof meta.authorization_endpoint !== 'string' || typeof meta.token_endpoint !== 'string') {
    walk.fail(
      'authorization-server',
      since,
      'no-authorization-server',
      meta
        ? `the metadata of ${issuer} has no authorization_endpoint or token_endpoint`
        : `${issuer} serves no metadata at /.well-known/oauth-authorization-server or /.well-known/openid-configuration`,
      'serve authorization server metadata (RFC 8414) for the issuer the resource metadata names',
    );
    return;
  }
  if (!meta.code_challenge_methods_supported?.includes('S256')) {
    walk.fail(
      'authorization-server',
      since,
      'pkce-unsupported',
      `${issuer} does not list S256 in code_challenge_methods_supported`,
      'MCP clients must refuse an authorization server that does not advertise PKCE with S256: add it to the metadata (and support it)',
    );
    return;
  }
  walk.pass('authorization-server', since, `${issuer}: authorize ${meta.authorization_endpoint}, token ${meta.token_endpoint}`);
  if (!(await registrationStep(walk, dctx, meta, prm.resource))) return;
  walk.fail(
    'sign-in',
    walk.now(),
    'sign-in-required',
    'the server needs an OAuth sign-in, and everything a client needs to sign in is in place',
    'sign in: mcpkit inspect URL --oauth (a browser opens), or pass a token with -H "Authorization: Bearer TOKEN"',
  );
}

/** A fetch bounded by the doctor's timeout, on its clock, with the page's Origin when one is set. */
function timedFetch(walk: Walk): typeof fetch {
  const { clock, timeoutMs, origin } = walk.ctx;
  return async (input, init) => {
    const ctl = new AbortController();
    const timer = clock.setTimeout(() => ctl.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const headers = new Headers(init?.headers);
    if (origin) headers.set('origin', origin);
    try {
      return await walk.ctx.fetch(input, { ...init, headers, signal: ctl.signal });
    } finally {
      clock.clearTimeout(timer);
    }
  };
}

/** Whether the AS would let a client sign in with the redirect URI; records `registration`. */
async function registrationStep(walk: Walk, dctx: DiscoveryContext, meta: AuthorizationServerMetadata, resource: string): Promise<boolean> {
  const { ctx } = walk;
  const since = walk.now();
  const redirect = ctx.redirectUri;
  const endpoint = meta.registration_endpoint;
  if (!endpoint) {
    if (meta.client_id_metadata_document_supported) {
      walk.pass('registration', since, 'client ID metadata documents: a client names itself by URL (the redirect URI is checked at sign-in)');
      return true;
    }
    walk.fail(
      'registration',
      since,
      'no-registration',
      `${meta.issuer} offers neither dynamic client registration nor client ID metadata documents`,
      'register a client with the authorization server by hand and pass its ID (mcpkit: --client-id ID), or enable dynamic registration there',
    );
    return false;
  }
  if (!ctx.register) {
    walk.pass('registration', since, `dynamic registration at ${endpoint} (not tried: register is off)`);
    return true;
  }
  let res: Response;
  let body: Record<string, unknown> = {};
  try {
    dctx.checkUrl(endpoint, 'registration endpoint');
    res = await dctx.fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_name: 'mcpkit connection doctor',
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    body = ((await res.json().catch(() => ({}))) ?? {}) as Record<string, unknown>;
  } catch (err) {
    walk.fail(
      'registration',
      since,
      'registration-rejected',
      `the registration endpoint ${endpoint} could not be reached: ${(err as Error).message}`,
      'check that the authorization server is up',
    );
    return false;
  }
  const why = `${body.error ?? res.status}${body.error_description ? `: ${quote(String(body.error_description), 120)}` : ''}`;
  if (!res.ok || typeof body.client_id !== 'string') {
    const aboutRedirect = body.error === 'invalid_redirect_uri' || /redirect/i.test(String(body.error_description ?? ''));
    walk.fail(
      'registration',
      since,
      aboutRedirect ? 'redirect-uri-rejected' : 'registration-rejected',
      aboutRedirect ? `the authorization server refused the redirect URI ${redirect} (${why})` : `dynamic registration at ${endpoint} was refused (${why})`,
      aboutRedirect ? redirectFix(redirect) : 'the registration endpoint says why above: it may need an initial access token, or other client metadata',
    );
    return false;
  }
  return authorizeCheck(walk, dctx, meta, body.client_id, resource, since);
}

function redirectFix(redirect: string): string {
  return `let the authorization server accept ${redirect}: desktop and command-line clients use loopback redirect URIs on any port (http://127.0.0.1:PORT/…, RFC 8252), browser clients their page's URL. Allow it in the server's client or redirect settings, or give the client a redirect URI the server accepts`;
}

/** The authorization endpoint's answer to a request with the new client and the redirect URI. */
async function authorizeCheck(
  walk: Walk,
  dctx: DiscoveryContext,
  meta: AuthorizationServerMetadata,
  clientId: string,
  resource: string,
  since: number,
): Promise<boolean> {
  const redirect = walk.ctx.redirectUri;
  const at = dctx.checkUrl(meta.authorization_endpoint!, 'authorization endpoint');
  const pkce = await pkcePair();
  const q = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    state: randomToken(16),
    resource,
  };
  for (const [k, v] of Object.entries(q)) at.searchParams.set(k, v);
  let res: Response;
  try {
    res = await dctx.fetch(at.href, { redirect: 'manual' });
  } catch (err) {
    walk.fail(
      'registration',
      since,
      'no-authorization-server',
      `the authorization endpoint could not be reached: ${(err as Error).message}`,
      'check the authorization_endpoint in the metadata',
    );
    return false;
  }
  const text = res.status >= 400 ? await res.text().catch(() => '') : '';
  res.body?.cancel().catch(() => {});
  if (res.status >= 400 && /redirect/i.test(text)) {
    walk.fail(
      'registration',
      since,
      'redirect-uri-rejected',
      `the authorization endpoint refused the redirect URI ${redirect} (${res.status}: "${quote(text.replace(/<[^>]*>/g, ' '), 140)}")`,
      redirectFix(redirect),
    );
    return false;
  }
  walk.pass('registration', since, `registered a client with redirect URI ${redirect}; the authorization endpoint answers ${res.status}`);
  return true;
}
