// Which URLs the OAuth client fetches or shows (url-policy.ts): only https (http on loopback for
// development), no javascript:/file:, and no loopback or private hosts when the MCP server is
// public, unless allowed. Public names are served by a fake network (fixture.fakeNet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import type { AuthorizationRequest, OAuthOptions } from '../../../src/client/auth/options.js';
import { isLoopback, isPrivate, urlPolicy } from '../../../src/client/auth/url-policy.js';
import { fakeNet, REDIRECT_URI, type Route } from './fixture.js';

const MCP = 'https://mcp.example.com/mcp';
const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

const asMeta = (issuer: string, over: Record<string, unknown> = {}) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  registration_endpoint: `${issuer}/register`,
  code_challenge_methods_supported: ['S256'],
  ...over,
});

/** A public MCP server whose PRM names `servers`, plus whatever AS routes the test adds. */
function publicNet(servers: string[], routes: Record<string, Route> = {}, challenge = `Bearer resource_metadata="${PRM}"`) {
  return fakeNet({
    [MCP]: (req) => (req.headers.get('authorization') ? { ok: true } : new Response(null, { status: 401, headers: { 'www-authenticate': challenge } })),
    [PRM]: () => ({ resource: MCP, authorization_servers: servers }),
    ...routes,
  });
}

/** A complete AS at `issuer` on the fake network. */
function asRoutes(issuer: string, over: Record<string, unknown> = {}): Record<string, Route> {
  return {
    [`${issuer}/.well-known/oauth-authorization-server`]: () => asMeta(issuer, over),
    [`${issuer}/register`]: () => Response.json({ client_id: 'c1' }, { status: 201 }),
    [`${issuer}/token`]: () => ({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 }),
  };
}

function client(net: { fetch: typeof fetch }, options: Partial<OAuthOptions> = {}) {
  const calls: AuthorizationRequest[] = [];
  const auth = new OAuthClientAuth(
    MCP,
    {
      redirectUri: REDIRECT_URI,
      authorize: async (req) => {
        calls.push(req);
        return `${REDIRECT_URI}?code=c&state=${req.state}`;
      },
      ...options,
    },
    net.fetch,
  );
  return { auth, calls, go: () => auth.fetch(MCP, { method: 'POST', body: '{}' }) };
}

const refused = (pattern: RegExp) => (err: Error) => err instanceof OAuthFlowError && pattern.test(err.message);

test('a complete flow on the fake network works (the baseline for the refusals below)', async () => {
  const net = publicNet(['https://as.example.com'], asRoutes('https://as.example.com'));
  const c = client(net);
  const res = await c.go();
  assert.equal(res.status, 200);
  assert.equal(c.calls.length, 1);
  assert.ok(net.seen.includes('POST https://as.example.com/token'));
});

test('plain http to a non-loopback authorization server is refused (allowHttp permits it)', async () => {
  const net = publicNet(['http://as.example.com'], asRoutes('http://as.example.com'));
  await assert.rejects(client(net).go(), refused(/plain http/));
  assert.ok(!net.seen.some((s) => s.includes('as.example.com')), 'nothing was fetched from it');
  const ok = client(net, { allowHttp: true });
  assert.equal((await ok.go()).status, 200);
});

test('a public MCP server whose metadata points at loopback or private addresses is refused', async () => {
  for (const host of [
    '127.0.0.1',
    'localhost',
    'localhost.',
    'app.localhost',
    '[::1]',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '[fd00::1]',
    '[fe80::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:10.0.0.1]',
    '[::127.0.0.1]',
    '[::]',
    '2130706433',
  ]) {
    const issuer = `https://${host}`;
    const net = publicNet([issuer], asRoutes(issuer));
    const c = client(net);
    await assert.rejects(c.go(), refused(/private|loopback/), host);
    assert.deepEqual(net.seen, [`POST ${MCP}`, `GET ${PRM}`], `${host}: nothing fetched from it`);
  }
});

test('allowPrivateNetwork lets a public MCP server use an authorization server on a private address', async () => {
  const issuer = 'https://10.0.0.5';
  const net = publicNet([issuer], asRoutes(issuer));
  const c = client(net, { allowPrivateNetwork: true });
  assert.equal((await c.go()).status, 200);
  assert.equal(c.calls[0]!.url.origin, issuer);
});

test('private endpoints inside public metadata are refused too (token, registration, authorization)', async () => {
  const issuer = 'https://as.example.com';
  for (const field of ['token_endpoint', 'registration_endpoint', 'authorization_endpoint']) {
    const net = publicNet([issuer], asRoutes(issuer, { [field]: 'https://192.168.0.10/x' }));
    const c = client(net);
    await assert.rejects(c.go(), refused(/private/), field);
    assert.ok(!net.seen.some((s) => s.includes('192.168')), field);
    assert.equal(c.calls.length, 0, field);
  }
});

test('javascript: and file: URLs are refused wherever they appear', async () => {
  const issuer = 'https://as.example.com';
  const js = client(publicNet([issuer], asRoutes(issuer, { authorization_endpoint: 'javascript:alert(document.cookie)' })));
  await assert.rejects(js.go(), refused(/javascript:/));
  assert.equal(js.calls.length, 0, 'never shown to the user');
  await assert.rejects(client(publicNet([issuer], {}, 'Bearer resource_metadata="file:///etc/passwd"')).go(), refused(/file:/));
  await assert.rejects(client(publicNet(['file:///etc/passwd'])).go(), refused(/file:/));
  await assert.rejects(client(publicNet([issuer], asRoutes(issuer, { token_endpoint: 'data:text/plain,x' }))).go(), refused(/data:/));
});

test('a loopback MCP server may use http on loopback, but not http elsewhere', () => {
  const local = urlPolicy('http://127.0.0.1:8080/mcp');
  assert.equal(local('http://localhost:9000/authorize', 'x').port, '9000');
  assert.ok(local('https://as.example.com/authorize', 'x'));
  assert.ok(local('https://10.0.0.1/authorize', 'x'), 'a local server may use private addresses');
  assert.throws(() => local('http://as.example.com/authorize', 'x'), refused(/plain http/));
  const pub = urlPolicy('https://mcp.example.com/mcp');
  assert.throws(() => pub('http://localhost:9000/authorize', 'x'), refused(/plain http/));
  assert.throws(() => pub('not a url', 'x'), refused(/not a valid URL/));
});

test('isLoopback / isPrivate', () => {
  for (const h of ['localhost', 'LOCALHOST', 'a.localhost', 'localhost.', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '[::ffff:7f00:1]', '::ffff:127.0.0.1'])
    assert.ok(isLoopback(h), h);
  for (const h of ['example.com', '128.0.0.1', '[::2]', 'localhost.example.com', '[::ffff:808:808]']) assert.ok(!isLoopback(h), h);
  for (const h of ['10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.1.1', '100.127.0.1', '0.0.0.0', '[fc00::1]', '[fe80::1]', '[::ffff:a00:1]', '[::]'])
    assert.ok(isPrivate(h), h);
  for (const h of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '[2001:db8::1]', '[::ffff:808:808]', 'example.com']) assert.ok(!isPrivate(h), h);
});
