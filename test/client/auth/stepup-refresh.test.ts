// After the first sign-in (MCP authorization §4.3 item 19 and token lifetime): step-up on 403
// insufficient_scope with the union of scopes, the retry limit and failed-upgrade memory,
// refresh on 401 and before expiry, and concurrent requests sharing one authorization.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { authorizations, browser, REDIRECT_URI, tokenRequests, type Setup, withAuth, status } from './fixture.js';

const call = (tool: string) => ({ name: tool, arguments: {} });
const grants = (s: Setup) => tokenRequests(s.as).map((r) => r.form!.get('grant_type'));

test('step-up: a 403 insufficient_scope re-authorizes with the union of the scopes, then the request passes', () =>
  withAuth({}, { scopes: { 'tools/list': 'mcp:basic', 'tools/call:admin': 'mcp:write' } }, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'mcp:basic');
    assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('admin')), 200);
    assert.equal(authorizations(s.as).length, 2);
    assert.equal(authorizations(s.as)[1]!.query.get('scope'), 'mcp:basic mcp:write');
    assert.equal(auth.tokens!.scope, 'mcp:basic mcp:write');
    assert.deepEqual(
      s.rs.mcpRequests().map((r) => r.status),
      [401, 200, 403, 200],
    );
    // Nothing more is needed for either afterwards.
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('admin')), 200);
    assert.equal(authorizations(s.as).length, 2);
  }));

test('a 401 with a new scope on a valid token is a step-up too (union of scopes, not a refresh)', () =>
  withAuth({}, { scopes: { 'tools/list': 'mcp:basic', 'tools/call:admin': 'mcp:read' }, insufficientStatus: 401 }, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('admin')), 200);
    assert.deepEqual(
      authorizations(s.as).map((r) => r.query.get('scope')),
      ['mcp:basic', 'mcp:basic mcp:read'],
    );
    assert.deepEqual(grants(s), ['authorization_code', 'authorization_code']);
  }));

test('retry limit: a server that always answers 403 gets at most 3 authorizations, and no loop across requests', () =>
  withAuth({}, { forbidAll: 'mcp:admin' }, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 403);
    const n = authorizations(s.as).length;
    assert.ok(n >= 1 && n <= 3, `${n} authorizations`);
    assert.equal(authorizations(s.as).at(-1)!.query.get('scope'), 'mcp:admin');
    // Later requests remember the failed upgrade: no new authorization at all.
    assert.equal(await status(auth.fetch, s.rs.url), 403);
    assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('echo')), 403);
    assert.equal(authorizations(s.as).length, n);
    assert.ok(s.rs.mcpRequests().length <= n + 3, `${s.rs.mcpRequests().length} MCP requests`);
  }));

test('retry limit: maxAuthorizations bounds the authorizations for one request', () =>
  withAuth({}, { forbidAll: 'mcp:admin' }, { maxAuthorizations: 1 }, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 403);
    assert.equal(authorizations(s.as).length, 1);
  }));

test('step-up the AS grants only in part: one upgrade attempt, then the failure is remembered', () =>
  withAuth(
    {
      grantScopes: (requested) =>
        requested
          ?.split(' ')
          .filter((x) => x !== 'mcp:write')
          .join(' '),
    },
    { scopes: { 'tools/list': 'mcp:basic', 'tools/call:admin': 'mcp:write' } },
    {},
    async (s, auth) => {
      assert.equal(await status(auth.fetch, s.rs.url), 200);
      assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('admin')), 403);
      assert.equal(authorizations(s.as).length, 2, 'the initial sign-in and one step-up');
      assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('admin')), 403);
      assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('admin')), 403);
      assert.equal(authorizations(s.as).length, 2, 'no further sign-ins for the same refused scopes');
      // What the token does cover still works.
      assert.equal(await status(auth.fetch, s.rs.url), 200);
    },
  ));

test('a 403 that is not insufficient_scope is handed back as is, with no authorization', async () => {
  const calls: string[] = [];
  const base: typeof fetch = async () => {
    calls.push('x');
    return new Response('no', { status: 403, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
  };
  const auth = new OAuthClientAuth('https://mcp.example.com/mcp', { authorize: browser().authorize, redirectUri: REDIRECT_URI }, base);
  const res = await auth.fetch('https://mcp.example.com/mcp', { method: 'POST', body: '{}' });
  assert.equal(res.status, 403);
  assert.equal(await res.text(), 'no');
  assert.equal(calls.length, 1);
});

test('client_credentials step-up: a new token with the union of scopes, no user involved', () =>
  withAuth(
    { preRegistered: { client_id: 'svc', client_secret: 'x' } },
    { scopes: { 'tools/list': 'mcp:basic', 'tools/call:admin': 'mcp:write' } },
    { authorize: undefined, redirectUri: undefined, grant: 'client_credentials', clientId: 'svc', clientSecret: 'x' },
    async (s, auth) => {
      assert.equal(await status(auth.fetch, s.rs.url), 200);
      assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', call('admin')), 200);
      assert.deepEqual(
        tokenRequests(s.as).map((r) => r.form!.get('scope')),
        ['mcp:basic', 'mcp:basic mcp:write'],
      );
    },
  ));

test('refresh on 401: an expired token is renewed with the refresh token, without a new authorization', () =>
  withAuth({}, {}, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    const first = auth.tokens!;
    s.as.expireAll();
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(authorizations(s.as).length, 1);
    assert.deepEqual(grants(s), ['authorization_code', 'refresh_token']);
    const refresh = tokenRequests(s.as)[1]!.form!;
    assert.equal(refresh.get('refresh_token'), first.refresh_token);
    assert.equal(refresh.get('resource'), `${s.rs.origin}/mcp`);
    assert.notEqual(auth.tokens!.access_token, first.access_token);
    assert.equal(s.rs.mcpRequests().at(-1)!.authorization, `Bearer ${auth.tokens!.access_token}`);
  }));

test('refresh refused: a full authorization follows', () =>
  withAuth({}, {}, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    auth.tokens!.refresh_token = 'revoked';
    s.as.expireAll();
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(grants(s), ['authorization_code', 'refresh_token', 'authorization_code']);
    assert.equal(authorizations(s.as).length, 2);
  }));

test('no refresh token: a 401 on an expired token signs in again', () =>
  withAuth({ refreshTokens: false }, {}, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    s.as.expireAll();
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(authorizations(s.as).length, 2);
  }));

test('proactive refresh: a token about to expire is refreshed before the request, which then passes at once', () =>
  withAuth({}, {}, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    auth.tokens!.expires_at = Date.now() + 5_000;
    const before = s.rs.mcpRequests().length;
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(grants(s), ['authorization_code', 'refresh_token']);
    assert.deepEqual(
      s.rs
        .mcpRequests()
        .slice(before)
        .map((r) => r.status),
      [200],
      'no 401 on the way',
    );
  }));

test('short-lived tokens are not refreshed before every request', () =>
  withAuth({ tokenLifetimeS: 20 }, {}, {}, async (s, auth) => {
    for (let i = 0; i < 3; i++) assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(grants(s), ['authorization_code']);
  }));

test('concurrent requests hitting 401 share one authorization', () =>
  withAuth({}, {}, {}, async (s, auth) => {
    const statuses = await Promise.all(Array.from({ length: 5 }, () => status(auth.fetch, s.rs.url)));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
    assert.equal(authorizations(s.as).length, 1);
    assert.equal(s.as.requests.filter((r) => r.path === '/register').length, 1);
    assert.deepEqual(grants(s), ['authorization_code']);
  }));

test('concurrent requests on an expired token share one refresh (a rotated refresh token works once)', () =>
  withAuth({}, {}, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    s.as.expireAll();
    const statuses = await Promise.all(Array.from({ length: 5 }, () => status(auth.fetch, s.rs.url)));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
    assert.deepEqual(grants(s), ['authorization_code', 'refresh_token']);
    assert.equal(authorizations(s.as).length, 1);
  }));

test('concurrent requests with a token about to expire share one proactive refresh', () =>
  withAuth({}, {}, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    const old = auth.tokens!.access_token;
    auth.tokens!.expires_at = Date.now() + 1_000;
    const statuses = await Promise.all(Array.from({ length: 5 }, () => status(auth.fetch, s.rs.url)));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
    assert.deepEqual(grants(s), ['authorization_code', 'refresh_token']);
    assert.ok(
      s.rs
        .mcpRequests()
        .slice(-5)
        .every((r) => r.authorization !== `Bearer ${old}`),
      'none went out with the expiring token',
    );
  }));

test('a body that cannot be sent twice gets one try: its 401 is handed back', async () => {
  let n = 0;
  const base: typeof fetch = async () => {
    n++;
    return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });
  };
  const auth = new OAuthClientAuth('https://mcp.example.com/mcp', { authorize: browser().authorize, redirectUri: REDIRECT_URI }, base);
  const body = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('{}')), c.close()) });
  const res = await auth.fetch('https://mcp.example.com/mcp', { method: 'POST', body, duplex: 'half' } as RequestInit);
  assert.equal(res.status, 401);
  assert.equal(n, 1);
});

test('the fetches are called as plain functions (a browser fetch throws when called as a method)', async () => {
  const thisValues: unknown[] = [];
  const base = function (this: unknown) {
    thisValues.push(this);
    return Promise.resolve(new Response('ok'));
  } as unknown as typeof fetch;
  const auth = new OAuthClientAuth('https://mcp.example.com/mcp', {}, base);
  await auth.fetch('https://mcp.example.com/mcp');
  auth.wrap(base);
  await auth.fetch('https://mcp.example.com/mcp');
  assert.deepEqual(thisValues, [undefined, undefined]);
});
