// Proxy mode: sign-in federated to an upstream identity provider. A fake provider on node:http
// (OpenID Connect, or GitHub's endpoints) stands in for the real one; the whole redirect chain
// (client → our /authorize → upstream /authorize → our /callback → the client's redirect URI) is
// followed by hand with fetch, as a browser would, and every hop is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectHttp } from '../../../src/client/connect-http.js';
import type { AuthorizationRequest } from '../../../src/client/auth/options.js';
import { jwtAccessTokens } from '../../../src/hosting/http/jwt-access-token.js';
import { serve } from '../../../src/hosting/node.js';
import { githubUpstream, oidcUpstream } from '../../../src/hosting/oauth-server/upstream.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { authorizeUrl, payload, pkce, REDIRECT, startAs, token } from './helpers.js';

interface FakeIdp {
  origin: string;
  /** Upstream authorization requests seen. */
  authorizations: URLSearchParams[];
  /** Token requests seen. */
  tokenRequests: URLSearchParams[];
  /** What the "user" does at the provider: approve, or refuse. */
  outcome: 'approve' | 'refuse';
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString()));
    req.on('end', () => resolve(s));
  });

/** An identity provider with OIDC discovery and userinfo, and GitHub's paths, checking PKCE and the client secret. */
async function startIdp(): Promise<FakeIdp> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  let n = 0;
  const idp: FakeIdp = { origin: '', authorizations: [], tokenRequests: [], outcome: 'approve', close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, idp.origin);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration')
      return json(200, {
        issuer: idp.origin,
        authorization_endpoint: `${idp.origin}/authorize`,
        token_endpoint: `${idp.origin}/token`,
        userinfo_endpoint: `${idp.origin}/userinfo`,
      });
    if (url.pathname === '/authorize' || url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      idp.authorizations.push(q);
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('state', q.get('state')!);
      if (idp.outcome === 'refuse') back.searchParams.set('error', 'access_denied');
      else {
        const code = `up-code-${++n}`;
        codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')! });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' || url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await readBody(req));
      idp.tokenRequests.push(form);
      const c = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const pkceOk =
        c &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === c.challenge;
      if (!c || !pkceOk || c.redirectUri !== form.get('redirect_uri') || form.get('client_secret') !== 'upstream-secret')
        return json(url.pathname === '/token' ? 400 : 200, { error: 'bad_verification_code' });
      return json(200, { access_token: `up-at-${n}`, token_type: 'bearer' });
    }
    const bearer = req.headers.authorization;
    if (url.pathname === '/userinfo' && bearer?.startsWith('Bearer up-at-')) return json(200, { sub: 'idp-user-42', email: 'ada@example.test' });
    if (url.pathname === '/user' && bearer?.startsWith('Bearer up-at-')) return json(200, { id: 4242, login: 'octo-ada', name: 'Ada' });
    json(404, { error: 'not found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  idp.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return idp;
}

/** Follows redirects by hand until one leads to the client's redirect URI; returns every hop. */
async function followToClient(start: string): Promise<URL[]> {
  const hops: URL[] = [];
  let next = start;
  for (let i = 0; i < 6; i++) {
    const r = await fetch(next, { redirect: 'manual' });
    const body = await r.text();
    assert.equal(r.status, 302, `${next} answered ${r.status}: ${body}`);
    const loc = new URL(r.headers.get('location')!);
    hops.push(loc);
    if (loc.href.startsWith(`${REDIRECT}?`)) return hops;
    next = loc.href;
  }
  assert.fail(`no redirect back to the client: ${hops.map((h) => h.origin + h.pathname).join(' → ')}`);
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
    // The callback's pending sign-in is spent: replaying it is an error page, not a second code.
    const replay = await fetch(hops[1]!.href, { redirect: 'manual' });
    assert.equal(replay.status, 400);
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
    const authorize = async (request: AuthorizationRequest) => (await followToClient(request.url.href)).at(-1)!.href;
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
