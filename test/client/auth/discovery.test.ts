// Discovery (MCP authorization §4.3 items 11-13): PRM from the challenge or the well-known URLs,
// the PRM's resource check, AS metadata orders for RFC 8414 and OIDC with and without an issuer
// path, the issuer check, and the 2025-03-26 fallbacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import { discover } from '../../../src/client/auth/metadata.js';
import { startMockAs } from '../../fixtures/oauth/authorization-server.js';
import { authorizations, browser, fakeNet, REDIRECT_URI, rpc, setup, startRs, tokenRequests } from './fixture.js';

const authFor = (url: string, extra: Record<string, unknown> = {}) =>
  new OAuthClientAuth(url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, ...extra });

test('the PRM URL from the challenge is used, and no well-known PRM URL is tried', async () => {
  const s = await setup({}, { prm: 'custom' });
  try {
    const auth = authFor(s.rs.url);
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    assert.notEqual(res.status, 401);
    await res.body?.cancel();
    const paths = s.rs.requests.map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(paths, ['POST /mcp', 'GET /custom/metadata/location.json', 'POST /mcp']);
    assert.equal(s.as.paths()[0], '/.well-known/oauth-authorization-server');
    assert.equal(authorizations(s.as).length, 1);
    assert.match(s.rs.requests[2]!.authorization ?? '', /^Bearer at-\d+-\d+$/);
    assert.equal(auth.issuer, s.as.issuer);
  } finally {
    await s.close();
  }
});

test('without resource_metadata in the challenge: the path-based PRM URL first (found there, root never asked)', async () => {
  const s = await setup({}, { prm: 'both', advertise: false });
  try {
    const res = await rpc(authFor(s.rs.url).fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    const gets = s.rs.requests.filter((r) => r.method === 'GET').map((r) => r.path);
    assert.deepEqual(gets, ['/.well-known/oauth-protected-resource/mcp']);
    assert.equal(authorizations(s.as)[0]!.query.get('resource'), `${s.rs.origin}/mcp`);
  } finally {
    await s.close();
  }
});

test('path-based PRM missing: the root PRM, whose resource is the origin, is accepted and is the resource sent', async () => {
  const s = await setup({}, { prm: 'root', advertise: false });
  try {
    const res = await rpc(authFor(s.rs.url).fetch, s.rs.url, 'tools/list');
    assert.notEqual(res.status, 401);
    await res.body?.cancel();
    const gets = s.rs.requests.filter((r) => r.method === 'GET').map((r) => `${r.path} ${r.status}`);
    assert.deepEqual(gets, ['/.well-known/oauth-protected-resource/mcp 404', '/.well-known/oauth-protected-resource 200']);
    const [authz] = authorizations(s.as);
    assert.equal(authz!.query.get('resource'), s.rs.origin);
    assert.equal(tokenRequests(s.as)[0]!.form?.get('resource'), s.rs.origin);
  } finally {
    await s.close();
  }
});

test('a PRM naming another origin is refused with OAuthFlowError, and no authorization request is sent', async () => {
  for (const prm of ['path', 'root'] as const) {
    const s = await setup({}, { prm, resource: 'https://evil.example.com/mcp', advertise: prm === 'path' });
    try {
      const b = browser();
      const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
      await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && /evil\.example\.com/.test(err.message));
      assert.equal(b.calls.length, 0, prm);
      assert.equal(s.as.requests.length, 0, `${prm}: the AS was never contacted`);
    } finally {
      await s.close();
    }
  }
});

test('a PRM for another path of the same origin is refused too', async () => {
  const s = await setup({}, { resource: (origin) => `${origin}/other` });
  try {
    await assert.rejects(rpc(authFor(s.rs.url).fetch, s.rs.url, 'tools/list'), OAuthFlowError);
    assert.equal(authorizations(s.as).length, 0);
  } finally {
    await s.close();
  }
});

test('AS metadata, issuer with a path: RFC 8414 path-inserted, then OIDC path-inserted, then OIDC path-appended', async () => {
  for (const [served, expected] of [
    [['/.well-known/oauth-authorization-server/tenant1'], 1],
    [['/.well-known/openid-configuration/tenant1'], 2],
    [['/tenant1/.well-known/openid-configuration'], 3],
  ] as const) {
    const s = await setup({ issuerPath: '/tenant1', metadataPaths: [...served] });
    try {
      const res = await rpc(authFor(s.rs.url).fetch, s.rs.url, 'tools/list');
      assert.notEqual(res.status, 401);
      await res.body?.cancel();
      const order = [
        '/.well-known/oauth-authorization-server/tenant1',
        '/.well-known/openid-configuration/tenant1',
        '/tenant1/.well-known/openid-configuration',
      ];
      assert.deepEqual(s.as.paths().slice(0, expected), order.slice(0, expected));
      assert.ok(!s.as.paths().includes('/.well-known/oauth-authorization-server'), 'the root metadata of a path issuer is never asked (conformance trap)');
      assert.equal(s.as.paths()[expected], '/tenant1/register');
      assert.equal(authorizations(s.as)[0]!.path, '/tenant1/authorize');
    } finally {
      await s.close();
    }
  }
});

test('AS metadata, issuer without a path: RFC 8414, then OIDC', async () => {
  const s = await setup({ metadata: 'oidc' });
  try {
    const res = await rpc(authFor(s.rs.url).fetch, s.rs.url, 'tools/list');
    assert.notEqual(res.status, 401);
    await res.body?.cancel();
    assert.deepEqual(s.as.paths().slice(0, 2), ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
  } finally {
    await s.close();
  }
});

test('AS metadata whose issuer differs from the one asked for is rejected: no registration, no authorization', async () => {
  const s = await setup({ claimIssuer: 'https://impostor.example.com' });
  try {
    const b = browser();
    const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
    await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && /impostor/.test(err.message));
    assert.deepEqual(s.as.paths(), ['/.well-known/oauth-authorization-server']);
    assert.equal(b.calls.length, 0);
  } finally {
    await s.close();
  }
});

test('2025-03-26 fallback: no PRM, so the MCP origin is the AS; its metadata is asked with MCP-Protocol-Version', async () => {
  const legacy = await startMockAs();
  const rs = await startRs(legacy, { prm: 'none', legacyAs: legacy });
  try {
    const res = await rpc(authFor(rs.url).fetch, rs.url, 'tools/list');
    assert.notEqual(res.status, 401);
    await res.body?.cancel();
    const gets = rs.requests.filter((r) => r.method === 'GET' && r.path !== '/authorize');
    assert.deepEqual(
      gets.map((r) => `${r.path} ${r.status}`),
      ['/.well-known/oauth-protected-resource/mcp 404', '/.well-known/oauth-protected-resource 404', '/.well-known/oauth-authorization-server 200'],
    );
    assert.ok(gets[2]!.protocolVersionHeader, 'MCP-Protocol-Version sent on the legacy metadata request');
    // Registration, authorization and token requests went to the MCP origin (proxied to the mock).
    assert.deepEqual(
      rs.requests.filter((r) => /^\/(register|token)$/.test(r.path)).map((r) => r.path),
      ['/register', '/token'],
    );
    assert.equal(authorizations(legacy).length, 1);
    assert.equal(authorizations(legacy)[0]!.query.get('resource'), `${rs.origin}/mcp`, 'without PRM the resource is the server URL');
  } finally {
    await rs.close();
    await legacy.close();
  }
});

test('2025-03-26 fallback without any metadata: /register, /authorize and /token on the MCP origin', async () => {
  const legacy = await startMockAs({ metadata: 'none' });
  const rs = await startRs(legacy, { prm: 'none', legacyAs: legacy });
  try {
    const b = browser();
    const auth = new OAuthClientAuth(rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
    const res = await rpc(auth.fetch, rs.url, 'tools/list');
    assert.notEqual(res.status, 401);
    await res.body?.cancel();
    assert.deepEqual(
      rs.requests.filter((r) => r.path.startsWith('/.well-known/oauth-authorization-server') || r.path.startsWith('/.well-known/openid')).map((r) => r.status),
      [404, 404],
    );
    assert.deepEqual(
      rs.requests.filter((r) => /^\/(register|authorize|token)$/.test(r.path)).map((r) => r.path),
      ['/register', '/authorize', '/token'],
    );
    assert.equal(b.calls[0]!.url.origin + b.calls[0]!.url.pathname, `${rs.origin}/authorize`);
    // PKCE S256 is used even without metadata to confirm it.
    assert.equal(b.calls[0]!.url.searchParams.get('code_challenge_method'), 'S256');
  } finally {
    await rs.close();
    await legacy.close();
  }
});

test('2025-03-26 fallback: root metadata naming an issuer with a path on the same origin (endpoints under /oauth) is accepted', async () => {
  const legacy = await startMockAs({ issuerPath: '/oauth', metadataPaths: ['/.well-known/oauth-authorization-server'] });
  const rs = await startRs(legacy, { prm: 'none', legacyAs: legacy });
  try {
    const auth = authFor(rs.url);
    const res = await rpc(auth.fetch, rs.url, 'tools/list');
    assert.notEqual(res.status, 401);
    await res.body?.cancel();
    assert.equal(auth.issuer, `${rs.origin}/oauth`);
    assert.deepEqual(
      rs.requests.filter((r) => /^\/oauth\//.test(r.path)).map((r) => r.path),
      ['/oauth/register', '/oauth/authorize', '/oauth/token'],
    );
  } finally {
    await rs.close();
    await legacy.close();
  }
});

test('2025-03-26 fallback: root metadata naming an issuer on another origin is still rejected', async () => {
  const legacy = await startMockAs({ claimIssuer: 'https://elsewhere.example.com' });
  const rs = await startRs(legacy, { prm: 'none', legacyAs: legacy });
  try {
    const b = browser();
    const auth = new OAuthClientAuth(rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
    await assert.rejects(rpc(auth.fetch, rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && /elsewhere/.test(err.message));
    assert.equal(b.calls.length, 0);
  } finally {
    await rs.close();
    await legacy.close();
  }
});

test('several authorization servers: the first by default, or the one selectAuthorizationServer picks', async () => {
  const prm = { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://as1.example.com', 'https://as2.example.com'] };
  const meta = (issuer: string) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    code_challenge_methods_supported: ['S256'],
  });
  const net = fakeNet({
    'https://mcp.example.com/.well-known/oauth-protected-resource/mcp': () => prm,
    'https://as1.example.com/.well-known/oauth-authorization-server': () => meta('https://as1.example.com'),
    'https://as2.example.com/.well-known/oauth-authorization-server': () => meta('https://as2.example.com'),
  });
  const ctx = { fetch: net.fetch, checkUrl: (u: string) => new URL(u) };
  assert.equal((await discover(ctx, 'https://mcp.example.com/mcp')).issuer, 'https://as1.example.com');
  const d = await discover(ctx, 'https://mcp.example.com/mcp', undefined, (servers) => servers[1]!);
  assert.equal(d.issuer, 'https://as2.example.com');
  assert.equal(d.tokenEndpoint, 'https://as2.example.com/token');
  assert.equal(d.resource, 'https://mcp.example.com/mcp');
});

test('discovery follows redirects by hand, through the URL checks', async () => {
  const issuer = 'https://as.example.com';
  const net = fakeNet({
    'https://mcp.example.com/.well-known/oauth-protected-resource/mcp': () => new Response(null, { status: 301, headers: { location: '/prm.json' } }),
    'https://mcp.example.com/prm.json': () => ({ resource: 'https://mcp.example.com/mcp', authorization_servers: [issuer] }),
    [`${issuer}/.well-known/oauth-authorization-server`]: () =>
      new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } }),
  });
  const checked: string[] = [];
  const ctx = {
    fetch: net.fetch,
    checkUrl: (u: string, what: string) => {
      checked.push(what);
      if (u.startsWith('http://169.254')) throw new OAuthFlowError(`refused ${u}`);
      return new URL(u);
    },
  };
  await assert.rejects(discover(ctx, 'https://mcp.example.com/mcp'), /refused http:\/\/169\.254/);
  assert.ok(net.seen.includes('GET https://mcp.example.com/prm.json'));
  assert.ok(!net.seen.some((s) => s.includes('169.254')), 'the redirect to a metadata service was never followed');
  assert.ok(checked.includes('redirect target'));
});

test('a 401 from a server without OAuth (no PRM, no metadata, no /register): the 401 is handed back as is', async () => {
  const rs = await startRs(undefined, { prm: 'none' });
  try {
    const b = browser();
    const auth = new OAuthClientAuth(rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
    const res = await rpc(auth.fetch, rs.url, 'tools/list');
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: 'unauthorized' }, 'the body is intact');
    assert.equal(b.calls.length, 0);
    assert.ok(
      rs.requests.some((r) => r.path === '/register' && r.status === 404),
      'the 2025-03-26 default endpoint was tried',
    );
    // Client credentials with a pre-registered id: the guessed token endpoint 404s the same way.
    const cc = new OAuthClientAuth(rs.url, { grant: 'client_credentials', clientId: 'svc', clientSecret: 'x' });
    const res2 = await rpc(cc.fetch, rs.url, 'tools/list');
    await res2.body?.cancel();
    assert.equal(res2.status, 401);
  } finally {
    await rs.close();
  }
});
