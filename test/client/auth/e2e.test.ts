// OAuth through connectHttp's `auth` option against mcpkit's real server behind bearer auth:
// every MCP request after the one sign-in carries the token (initialize, notifications, the GET
// stream, tools/list, tools/call, DELETE), in both eras, plus the conformance step-up flow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import { connectHttp } from '../../../src/client/connect-http.js';
import { text } from '../http-fixture.js';
import { authorizations, browser, causedBy, REDIRECT_URI, setup } from './fixture.js';

test('handshake era, stateful server: one sign-in, then initialize, tools/list, tools/call, GET and DELETE all carry the token', async () => {
  const s = await setup({}, { stateful: true });
  try {
    const b = browser();
    const { client } = await connectHttp(s.rs.url, { era: 'handshake' }, { auth: { authorize: b.authorize, redirectUri: REDIRECT_URI } });
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'echo'));
    assert.equal(text(await client.callTool('echo', { text: 'hi' })), 'hi');
    await client.close();
    assert.equal(b.calls.length, 1);
    assert.equal(authorizations(s.as).length, 1);
    const reqs = s.rs.mcpRequests();
    assert.deepEqual(reqs[0], { ...reqs[0], method: 'POST', rpc: 'initialize', status: 401, authorization: undefined });
    const after = reqs.slice(1);
    const token = after[0]!.authorization;
    assert.match(token ?? '', /^Bearer at-\d+-\d+$/);
    for (const r of after) assert.equal(r.authorization, token, `${r.method} ${r.rpc ?? ''}`);
    const seen = after.map((r) => (r.method === 'POST' ? r.rpc : r.method));
    for (const m of ['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'DELETE'])
      assert.ok(seen.includes(m), `${m} in ${seen.join(', ')}`);
    assert.ok(
      after.every((r) => r.status !== 401 && r.status !== 403),
      after.map((r) => r.status).join(','),
    );
  } finally {
    await s.close();
  }
});

test('DPoP with nonces, handshake era, stateful server: every request after the sign-in is DPoP with its own proof', async () => {
  const s = await setup({ dpop: { requireNonce: true } }, { stateful: true, dpop: { nonce: 'static' } });
  try {
    const { client } = await connectHttp(s.rs.url, { era: 'handshake' }, { auth: { authorize: browser().authorize, redirectUri: REDIRECT_URI } });
    assert.equal(text(await client.callTool('echo', { text: 'hi' })), 'hi');
    await client.close();
    assert.equal(authorizations(s.as).length, 1);
    // The unauthenticated initialize, then the same with the token but without the RS nonce.
    const after = s.rs.mcpRequests().slice(2);
    assert.deepEqual(
      s.rs
        .mcpRequests()
        .slice(0, 2)
        .map((r) => r.status),
      [401, 401],
    );
    for (const r of after) {
      assert.match(r.authorization ?? '', /^DPoP at-/);
      assert.equal(r.dpopError, undefined, `${r.method} ${r.rpc ?? ''}`);
      assert.ok(r.status !== 401 && r.status !== 403, `${r.method} ${r.rpc ?? ''}: ${r.status}`);
    }
    const seen = after.map((r) => (r.method === 'POST' ? r.rpc : r.method));
    for (const m of ['initialize', 'tools/call', 'GET', 'DELETE']) assert.ok(seen.includes(m), `${m} in ${seen.join(', ')}`);
    assert.equal(new Set(after.map((r) => r.dpop)).size, after.length, 'a fresh proof each time');
  } finally {
    await s.close();
  }
});

test('default era (server/discover probe first), stateless server: the probe signs in, the rest carries the token', async () => {
  const s = await setup({}, {});
  try {
    const { client } = await connectHttp(s.rs.url, {}, { auth: { authorize: browser().authorize, redirectUri: REDIRECT_URI } });
    assert.equal(text(await client.callTool('echo', { text: 'modern' })), 'modern');
    await client.close();
    const reqs = s.rs.mcpRequests();
    assert.equal(reqs[0]!.status, 401);
    assert.ok(reqs.slice(1).every((r) => r.authorization?.startsWith('Bearer ')));
    assert.equal(authorizations(s.as).length, 1);
  } finally {
    await s.close();
  }
});

test('the conformance step-up flow: public initialize, 401 scope for tools/list, 403 for tools/call, union on re-authorization', async () => {
  const s = await setup(
    {},
    {
      stateful: false,
      publicMethods: ['initialize', 'notifications/initialized', 'GET'],
      scopes: { 'tools/list': 'mcp:basic', 'tools/call': 'mcp:basic mcp:write' },
    },
  );
  try {
    const { client } = await connectHttp(s.rs.url, { era: 'handshake' }, { auth: { authorize: browser().authorize, redirectUri: REDIRECT_URI } });
    assert.ok((await client.listTools()).tools.length > 0);
    assert.equal(text(await client.callTool('echo', { text: 'up' })), 'up');
    await client.close();
    assert.deepEqual(
      authorizations(s.as).map((r) => r.query.get('scope')),
      ['mcp:basic', 'mcp:basic mcp:write'],
    );
  } finally {
    await s.close();
  }
});

test('a PRM for another origin: connectHttp fails with OAuthFlowError as the cause, and no authorization request', async () => {
  const s = await setup({}, { resource: 'https://evil.example.com/mcp' });
  try {
    const b = browser();
    await assert.rejects(connectHttp(s.rs.url, { era: 'handshake' }, { auth: { authorize: b.authorize, redirectUri: REDIRECT_URI } }), (err: Error) =>
      causedBy(err, OAuthFlowError),
    );
    assert.equal(b.calls.length, 0);
    assert.equal(s.as.requests.length, 0);
  } finally {
    await s.close();
  }
});

test('a server refusing every token with 403: connectHttp fails after at most 3 authorizations', async () => {
  const s = await setup({}, { forbidAll: 'mcp:admin' });
  try {
    await assert.rejects(connectHttp(s.rs.url, { era: 'handshake' }, { auth: { authorize: browser().authorize, redirectUri: REDIRECT_URI } }));
    const n = authorizations(s.as).length;
    assert.ok(n >= 1 && n <= 3, `${n}`);
  } finally {
    await s.close();
  }
});

test('one OAuthClientAuth shared by two connections: one sign-in', async () => {
  const s = await setup({}, { stateful: true });
  try {
    const b = browser();
    const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
    const one = await connectHttp(s.rs.url, { era: 'handshake' }, { auth });
    const two = await connectHttp(s.rs.url, { era: 'handshake' }, { auth });
    assert.equal(text(await one.client.callTool('echo', { text: '1' })), '1');
    assert.equal(text(await two.client.callTool('echo', { text: '2' })), '2');
    await one.client.close();
    await two.client.close();
    assert.equal(b.calls.length, 1);
  } finally {
    await s.close();
  }
});

test('a transport fetch given with auth is the one the MCP requests go through', async () => {
  const s = await setup({}, {});
  try {
    const seen: string[] = [];
    const mine: typeof fetch = (input, init) => {
      // The authorization server calls come through here too (no options.fetch): only /mcp counts.
      if (new URL(String(input)).pathname === '/mcp') seen.push(new Headers(init?.headers).get('authorization') ?? '-');
      return fetch(input, init);
    };
    const { client } = await connectHttp(s.rs.url, { era: 'handshake' }, { fetch: mine, auth: { authorize: browser().authorize, redirectUri: REDIRECT_URI } });
    await client.listTools();
    await client.close();
    assert.equal(seen[0], '-');
    assert.ok(seen.length >= 3 && seen.slice(1).every((h) => h.startsWith('Bearer ')), seen.join(','));
  } finally {
    await s.close();
  }
});
