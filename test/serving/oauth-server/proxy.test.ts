// Proxy mode: sign-in federated to an upstream identity provider. A fake provider on node:http
// (OpenID Connect, or GitHub's endpoints) stands in for the real one; the whole redirect chain
// (client → our /authorize → [our consent page] → upstream /authorize → our /callback → the
// client's redirect URI) is followed by hand, by a browser that keeps cookies, and every hop is
// checked. The consent step itself is consent.test.ts's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectHttp } from '../../../src/client/connect-http.js';
import type { AuthorizationRequest } from '../../../src/client/auth/options.js';
import { jwtAccessTokens } from '../../../src/serving/http/jwt-access-token.js';
import { serve } from '../../../src/serving/node.js';
import { githubUpstream, oidcUpstream } from '../../../src/serving/oauth-server/upstream.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { Browser, startIdp } from './browser.js';
import { authorizeUrl, payload, pkce, REDIRECT, startAs, token } from './helpers.js';

/** Follows redirects in a cookie-keeping browser until one leads to the client's redirect URI; returns every hop. */
async function followToClient(start: string, browser = new Browser()): Promise<URL[]> {
  const { hops, last, stopped } = await browser.follow(start, [`${REDIRECT}?`]);
  assert.ok(stopped, `no redirect back to the client: ${last.url} answered ${last.status}: ${last.body}`);
  return hops;
}

const CLIENT = { client_id: 'app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' as const };

test('OIDC upstream: the full redirect chain, PKCE upstream too, and our JWT names the upstream user', async () => {
  const idp = await startIdp();
  const as = await startAs({
    login: undefined,
    upstream: oidcUpstream({ issuer: idp.origin, clientId: 'our-client', clientSecret: 'upstream-secret' }),
    clients: [CLIENT],
  });
  try {
    const p = pkce();
    const hops = await followToClient(
      authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256', state: 'client-state' }),
    );
    assert.deepEqual(
      hops.map((h) => h.origin + h.pathname),
      [`${idp.origin}/authorize`, `${as.issuer}/callback`, REDIRECT],
    );
    const up = idp.authorizations[0]!;
    assert.equal(up.get('client_id'), 'our-client');
    assert.equal(up.get('redirect_uri'), `${as.issuer}/callback`);
    assert.equal(up.get('code_challenge_method'), 'S256');
    assert.equal(up.get('scope'), 'openid email profile');
    assert.notEqual(up.get('state'), 'client-state', 'the client’s state never goes upstream');
    const back = hops.at(-1)!.searchParams;
    assert.equal(back.get('state'), 'client-state');
    assert.equal(back.get('iss'), as.issuer);
    const t = await token(as.issuer, {
      grant_type: 'authorization_code',
      code: back.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
      client_id: 'app',
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    const claims = payload(t.body.access_token!);
    assert.equal(claims.sub, 'idp-user-42');
    assert.equal(claims.email, 'ada@example.test');
    assert.equal(claims.iss, as.issuer, 'our token, not the upstream one');
    assert.doesNotMatch(JSON.stringify(t.body), /up-at-/, 'upstream tokens never reach the client');
    // The callback's pending sign-in is spent: replaying it, even with its state cookie, is an error page, not a second code.
    const state = hops[1]!.searchParams.get('state')!;
    const replay = await fetch(hops[1]!.href, { redirect: 'manual', headers: { cookie: `mcpkit-state-${state.slice(0, 16)}=${state}` } });
    assert.equal(replay.status, 400);
    assert.match(await replay.text(), /unknown or has expired/);
  } finally {
    await as.close();
    await idp.close();
  }
});

test('upstream refusals: the provider’s access_denied and admit() both reach the client as access_denied', async () => {
  const idp = await startIdp();
  const as = await startAs({
    login: undefined,
    upstream: oidcUpstream({
      issuer: idp.origin,
      clientId: 'our-client',
      clientSecret: 'upstream-secret',
      admit: (who) => (who.claims.email === 'ada@example.test' ? undefined : { subject: who.subject }),
    }),
    clients: [CLIENT],
  });
  try {
    const p = pkce();
    const start = authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const denied = (await followToClient(start)).at(-1)!.searchParams;
    assert.equal(denied.get('error'), 'access_denied');
    assert.match(denied.get('error_description')!, /not allowed/);
    idp.outcome = 'refuse';
    const refused = (await followToClient(start)).at(-1)!.searchParams;
    assert.equal(refused.get('error'), 'access_denied');
    assert.match(refused.get('error_description')!, /refused the sign-in/);
  } finally {
    await as.close();
    await idp.close();
  }
});

test('GitHub upstream: mcpkit’s client signs in through the proxy and calls a tool as the GitHub user', async () => {
  const idp = await startIdp();
  const as = await startAs({
    login: undefined,
    upstream: githubUpstream({ clientId: 'gh-client', clientSecret: 'upstream-secret', webUrl: idp.origin, apiUrl: idp.origin }),
  });
  const server = new McpServer({ name: 'gh', version: '1.0.0' });
  server.tool('whoami', (_a, ctx) => `${ctx.authInfo?.principal} (${(ctx.authInfo!.extra!.claims as { login?: string }).login})`);
  const mcp = await serve(server, { port: 0, oauth: { authorizationServers: [as.issuer], verifyToken: jwtAccessTokens({ issuer: as.issuer }) } });
  try {
    // mcpkit's client registers itself: the user sees the consent page once and allows.
    const authorize = async (request: AuthorizationRequest) => {
      const browser = new Browser();
      const page = (await browser.follow(request.url.href, [`${REDIRECT}?`])).last;
      assert.match(page.body, /Allow/);
      const allowed = await browser.answer(page, 'allow');
      return (await followToClient(allowed.location!.href, browser)).at(-1)!.href;
    };
    const { client } = await connectHttp(mcp.url, {}, { auth: { authorize, redirectUri: REDIRECT } });
    assert.deepEqual((await client.callTool('whoami', {})).content, [{ type: 'text', text: '4242 (octo-ada)' }]);
    await client.close();
    assert.equal(idp.authorizations[0]!.get('scope'), 'read:user');
    assert.equal(idp.tokenRequests[0]!.get('client_id'), 'gh-client');
  } finally {
    await mcp.close();
    await as.close();
    await idp.close();
  }
});
