// The HTTP server as an OAuth 2.1 resource server, over real sockets with raw requests: the
// Protected Resource Metadata documents, the exact 401/403/400 challenges, audience and expiry,
// endpoint-wide and per-request scopes in both eras, legacy HTTP+SSE, and the fetch adapter.
// The end-to-end run with a real authorization server and the mcpkit client is oauth-e2e.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { toFetchHandler } from '../../../src/serving/fetch.js';
import { McpHttpHandler } from '../../../src/serving/http/router.js';
import type { OAuthResourceOptions } from '../../../src/serving/http/oauth-resource.js';
import type { AuthInfo } from '../../../src/engine/transport.js';
import { M, V } from '../../server/modern/helpers.js';
import { ManualClock } from '../../support/index.js';
import { BOTH, call, initReq, jsonError, LATEST, makeServer, open, post, raw, req, SseReader, start, type Started } from './helpers.js';

const AS = 'https://auth.example.com';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Tokens by name; an audience of 'self' becomes the resource verifyToken is given. */
const TOKENS: Record<string, Omit<AuthInfo, 'audience'> & { audience?: string | string[] }> = {
  reader: { principal: 'alice', clientId: 'c1', scopes: ['mcp:read'] },
  writer: { principal: 'alice', clientId: 'c1', scopes: ['mcp:read', 'mcp:write', 'tools:counter', 'res:greeting'] },
  bare: { principal: 'bob', scopes: [] },
  self: { principal: 'carol', scopes: ['mcp:read'], audience: 'self' },
  selfSlash: { principal: 'carol', scopes: ['mcp:read'], audience: 'self/' },
  selfAmong: { principal: 'carol', scopes: ['mcp:read'], audience: ['https://other.example.com', 'self'] },
  otherAudience: { principal: 'mallory', scopes: ['mcp:read'], audience: 'http://127.0.0.1:1/mcp' },
};

function verifyToken(token: string, _req: unknown, resource: string): AuthInfo | undefined {
  const t = TOKENS[token];
  if (!t) return undefined;
  const fix = (a: string) => (a === 'self' ? resource : a === 'self/' ? `${resource}/` : a);
  const audience = t.audience === undefined ? undefined : typeof t.audience === 'string' ? fix(t.audience) : t.audience.map(fix);
  return { ...t, audience } as AuthInfo;
}

function oauth(extra: Partial<OAuthResourceOptions> = {}): OAuthResourceOptions {
  return { authorizationServers: [AS], verifyToken, ...extra };
}

const prmUrl = (s: Started, path = '/mcp') => `${s.base}/.well-known/oauth-protected-resource${path}`;

const ALGS = 'algs="ES256 ES384 RS256 PS256 EdDSA"';
/**
 * A refusal's WWW-Authenticate: the Bearer challenge with `error` (when any) and the `common`
 * parameters, then (DPoP being on by default) the DPoP one with the same scope and metadata.
 */
const challenges = (common: string, error = '') => `Bearer ${error ? `${error}, ` : ''}${common}, DPoP ${ALGS}, ${common}`;

async function text(r: Response): Promise<string> {
  const t = ((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
  return t;
}

test('oauth options are checked when the server is built, with clear errors', () => {
  const { mcp } = makeServer();
  const build =
    (o: unknown, more: Record<string, unknown> = {}) =>
    () =>
      new McpHttpHandler(mcp, { oauth: o as OAuthResourceOptions, ...more });
  assert.throws(build({ authorizationServers: [], verifyToken }), /authorizationServers must list at least one/);
  assert.throws(build({ verifyToken }), /authorizationServers/);
  assert.throws(build({ authorizationServers: ['not a url'], verifyToken }), /authorization server "not a url" is not an absolute URL/);
  assert.throws(build({ authorizationServers: ['ftp://as.example.com'], verifyToken }), /https/);
  assert.throws(build({ authorizationServers: [AS] }), /verifyToken/);
  assert.throws(build(oauth({ resource: 'https://x.example.com/mcp#top' })), /fragment/);
  assert.throws(build(oauth({ resource: '/mcp' })), /resource "\/mcp" is not an absolute URL/);
  assert.throws(build(oauth({ requiredScopes: ['a b'] })), /invalid scope "a b"/);
  assert.throws(build(oauth(), { authenticate: () => ({ principal: 'x' }) }), /oauth and authenticate cannot be combined/);
});

test('without oauth nothing changes: the metadata paths are 404 and no token is asked for', async () => {
  const s = await start();
  try {
    await jsonError(await fetch(prmUrl(s)), 404);
    await jsonError(await fetch(prmUrl(s, '')), 404);
    const r = await post(s.url, initReq());
    assert.equal(r.status, 200);
    await r.text();
  } finally {
    await s.running.close();
  }
});

test('Protected Resource Metadata at the path-specific and the root well-known URLs', async () => {
  const s = await start({
    oauth: oauth({
      scopesSupported: ['mcp:read', 'mcp:write', 'offline_access'],
      resourceName: 'Test server',
      resourceDocumentation: 'https://docs.example.com/mcp',
    }),
  });
  try {
    const expected = {
      resource: s.url,
      authorization_servers: [AS],
      scopes_supported: ['mcp:read', 'mcp:write'], // never offline_access
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'],
      resource_name: 'Test server',
      resource_documentation: 'https://docs.example.com/mcp',
    };
    for (const url of [prmUrl(s), prmUrl(s, '')]) {
      const r = await fetch(url);
      assert.equal(r.status, 200, url);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(r.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await r.json(), expected);
    }
    // The HTTP+SSE stream on the same port is a resource identifier of its own.
    assert.equal(((await (await fetch(prmUrl(s, '/sse'))).json()) as { resource: string }).resource, `${s.base}/sse`);
    // Derived from the Host header when no `resource` is configured.
    const viaLocalhost = await raw(prmUrl(s), 'GET', { host: `LOCALHOST:${s.running.port}` });
    assert.equal(JSON.parse(viaLocalhost.body).resource, `http://localhost:${s.running.port}/mcp`);
    const wrong = await fetch(prmUrl(s), { method: 'POST', body: '{}' });
    await jsonError(wrong, 405);
    assert.equal(wrong.headers.get('allow'), 'GET, OPTIONS');
    const preflight = await fetch(prmUrl(s), { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    await jsonError(await fetch(prmUrl(s, '/other')), 404);
  } finally {
    await s.running.close();
  }
});

test('a configured resource is the metadata resource, the challenge target and the audience', async () => {
  const s = await start({ oauth: oauth({ resource: 'HTTPS://API.Example.com/v1/mcp' }) });
  try {
    const doc = (await (await fetch(prmUrl(s))).json()) as { resource: string };
    assert.equal(doc.resource, 'https://api.example.com/v1/mcp');
    // Also where the resource's own well-known URL points (a proxy forwarding it unchanged).
    assert.equal(((await (await fetch(prmUrl(s, '/v1/mcp'))).json()) as { resource: string }).resource, 'https://api.example.com/v1/mcp');
    assert.equal(((await (await fetch(prmUrl(s, '/sse'))).json()) as { resource: string }).resource, 'https://api.example.com/v1/sse');
    const r = await post(s.url, initReq());
    await jsonError(r, 401);
    assert.equal(r.headers.get('www-authenticate'), challenges('resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/v1/mcp"'));
    for (const token of ['self', 'selfSlash', 'selfAmong']) {
      const ok = await post(s.url, initReq(), bearer(token));
      assert.equal(ok.status, 200, token);
      await ok.text();
    }
    // A token for the address the request came to is not a token for the configured resource.
    TOKENS.local = { principal: 'x', audience: s.url };
    await jsonError(await post(s.url, initReq(), bearer('local')), 401);
  } finally {
    delete TOKENS.local;
    await s.running.close();
  }
});

test('401 and 400: missing, foreign-scheme, rejected and malformed credentials', async () => {
  const s = await start({ oauth: oauth() });
  const challenge = `resource_metadata="${prmUrl(s)}"`;
  try {
    for (const headers of [{}, { authorization: 'Basic YTpi' }, { 'x-api-key': 'reader' }] as Array<Record<string, string>>) {
      const r = await post(s.url, initReq(), headers);
      const err = await jsonError(r, 401, -32600);
      assert.match(err.message, /an access token \(Bearer or DPoP\) is required/);
      assert.equal(r.headers.get('www-authenticate'), challenges(challenge));
    }
    const bad = await post(s.url, initReq(), bearer('nope'));
    await jsonError(bad, 401);
    assert.equal(bad.headers.get('www-authenticate'), challenges(challenge, 'error="invalid_token", error_description="the access token is invalid"'));
    for (const authorization of ['Bearer', 'Bearer ', 'Bearer two words', 'Bearer bad"char']) {
      const r = await post(s.url, initReq(), { authorization });
      await jsonError(r, 400);
      assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_request"/, authorization);
    }
    // Never from the query string, even next to a good header.
    const q = await post(`${s.url}?access_token=reader`, initReq(), bearer('reader'));
    assert.match((await jsonError(q, 400)).message, /Authorization header only/);
    assert.equal(s.running.handler.streamable.sessionCount, 0);
    const ok = await post(s.url, initReq(), { authorization: 'bearer   reader' });
    assert.equal(ok.status, 200);
    await ok.text();
  } finally {
    await s.running.close();
  }
  const scoped = await start({ oauth: oauth({ requiredScopes: ['mcp:read'] }) });
  try {
    const r = await post(scoped.url, initReq());
    await jsonError(r, 401);
    assert.equal(r.headers.get('www-authenticate'), challenges(`scope="mcp:read", resource_metadata="${prmUrl(scoped)}"`));
  } finally {
    await scoped.running.close();
  }
});

test('audience and expiry: a token for another resource, or expired (past the 30 s tolerance), is 401 invalid_token', async () => {
  const seen: string[] = [];
  const now = Date.now();
  TOKENS.expiredS = { principal: 'e', expiresAt: Math.floor(now / 1000) - 35 };
  TOKENS.expiredMs = { principal: 'e', expiresAt: now - 35_000 };
  TOKENS.freshS = { principal: 'e', expiresAt: Math.floor(now / 1000) + 60 };
  const s = await start({ oauth: oauth({ verifyToken: (t, r, resource) => (seen.push(resource), verifyToken(t, r, resource)) }) });
  try {
    const other = await post(s.url, initReq(), bearer('otherAudience'));
    assert.match((await jsonError(other, 401)).message, /not issued for/);
    assert.match(
      other.headers.get('www-authenticate') ?? '',
      /^Bearer error="invalid_token", error_description="the access token was issued for another resource"/,
    );
    for (const token of ['expiredS', 'expiredMs']) {
      const r = await post(s.url, initReq(), bearer(token));
      assert.match((await jsonError(r, 401)).message, /expired/);
      assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
    for (const token of ['self', 'selfSlash', 'selfAmong', 'freshS']) {
      const r = await post(s.url, initReq(), bearer(token));
      assert.equal(r.status, 200, token);
      await r.text();
    }
    assert.ok(seen.every((r) => r === s.url));
  } finally {
    for (const k of ['expiredS', 'expiredMs', 'freshS']) delete TOKENS[k];
    await s.running.close();
  }
});

test('expiry tolerance on the server clock: 30 s by default (29 s past accepted, 31 s refused), clockToleranceSec sets it', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const exp = 1_700_000_000; // seconds: the clock's start
  TOKENS.edgeS = { principal: 'e', expiresAt: exp };
  TOKENS.edgeMs = { principal: 'e', expiresAt: exp * 1000 };
  const status = async (s: Started, token: string) => {
    const r = await post(s.url, initReq(), bearer(token));
    await r.text();
    return r.status;
  };
  const lenient = await start({ clock, oauth: oauth() });
  const strict = await start({ clock, oauth: oauth({ clockToleranceSec: 0 }) });
  try {
    clock.set(exp * 1000 + 29_000);
    for (const t of ['edgeS', 'edgeMs']) {
      assert.equal(await status(lenient, t), 200, `${t} 29 s past: within the tolerance`);
      assert.equal(await status(strict, t), 401, `${t} with no tolerance`);
    }
    clock.set(exp * 1000 + 31_000);
    for (const t of ['edgeS', 'edgeMs']) {
      const r = await post(lenient.url, initReq(), bearer(t));
      assert.match((await jsonError(r, 401)).message, /expired/, `${t} 31 s past`);
    }
    assert.throws(() => new McpHttpHandler(makeServer().mcp, { oauth: oauth({ clockToleranceSec: -1 }) }), /clockToleranceSec must be a non-negative number/);
  } finally {
    delete TOKENS.edgeS;
    delete TOKENS.edgeMs;
    await lenient.running.close();
    await strict.running.close();
  }
});

test('requiredScopes: a token without them is 403 insufficient_scope naming them all', async () => {
  const s = await start({ oauth: oauth({ requiredScopes: ['mcp:read', 'mcp:write'] }) });
  try {
    for (const token of ['bare', 'reader']) {
      const r = await post(s.url, initReq(), bearer(token));
      assert.match((await jsonError(r, 403)).message, /insufficient scope/);
      assert.equal(r.headers.get('www-authenticate'), challenges(`scope="mcp:read mcp:write", resource_metadata="${prmUrl(s)}"`, 'error="insufficient_scope"'));
    }
    const ok = await post(s.url, initReq(), bearer('writer'));
    assert.equal(ok.status, 200);
    await ok.text();
  } finally {
    await s.running.close();
  }
});

const scopesFor = (method: string, name: string | undefined): string[] | undefined => {
  if (method === 'tools/call' && name === 'counter') return ['tools:counter', 'mcp:write'];
  if (method === 'resources/read' && name === 'mem://greeting') return ['res:greeting'];
  return undefined;
};

test('scopesFor: one request is refused with every scope it needs; the session survives the step-up', async () => {
  const s = await start({ oauth: oauth({ requiredScopes: ['mcp:read'], scopesFor }) });
  try {
    const { headers } = await open(s.url, LATEST, bearer('reader'));
    const echo = await post(s.url, call('echo', { text: 'hi' }), headers);
    assert.equal(await text(echo), 'hi');
    const refused = await post(s.url, call('counter'), headers);
    assert.match((await jsonError(refused, 403)).message, /needs: mcp:read tools:counter mcp:write/);
    assert.equal(
      refused.headers.get('www-authenticate'),
      challenges(`scope="mcp:read tools:counter mcp:write", resource_metadata="${prmUrl(s)}"`, 'error="insufficient_scope"'),
    );
    assert.equal(s.counter.n, 0);
    // Same principal, more scopes: the same session goes on.
    const stepped = await post(s.url, call('counter'), { ...headers, ...bearer('writer') });
    assert.equal(await text(stepped), '1');
    // Notifications need only admission.
    assert.equal((await post(s.url, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, headers)).status, 202);
  } finally {
    await s.running.close();
  }
});

test('scopesFor in a batch: the whole batch is refused, naming the scopes of all its requests', async () => {
  const s = await start({ oauth: oauth({ requiredScopes: ['mcp:read'], scopesFor }) });
  try {
    const { headers } = await open(s.url, '2025-03-26', bearer('reader'));
    const batch = [call('echo', { text: 'a' }), req('resources/read', { uri: 'mem://greeting' }), call('counter')];
    const r = await post(s.url, batch, headers);
    await jsonError(r, 403);
    assert.equal(
      r.headers.get('www-authenticate'),
      challenges(`scope="mcp:read res:greeting tools:counter mcp:write", resource_metadata="${prmUrl(s)}"`, 'error="insufficient_scope"'),
    );
    assert.equal(s.counter.n, 0);
    const ok = await post(s.url, batch, { ...headers, ...bearer('writer') });
    assert.equal(ok.status, 200);
    const answers = (await ok.json()) as Array<{ id: unknown; result: unknown }>;
    assert.deepEqual(answers.map((a) => a.id).sort(), batch.map((b) => b.id).sort());
    assert.equal(s.counter.n, 1);
  } finally {
    await s.running.close();
  }
});

let modernId = 1;
function modern(url: string, method: string, params: Record<string, unknown>, headers: Record<string, string>): Promise<Response> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'mcp-protocol-version': V,
    'mcp-method': method,
    ...headers,
  };
  if (method === 'tools/call') h['mcp-name'] = String(params.name);
  const body = { jsonrpc: '2.0', id: modernId++, method, params: { ...params, _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: {} } } };
  return fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body) });
}

test('2026-07-28 POSTs: admission, per-request scopes, and ctx.authInfo in the handler', async () => {
  const s = await start({ oauth: oauth({ requiredScopes: ['mcp:read'], scopesFor }) });
  s.mcp.tool('whoami', (_a, ctx) => JSON.stringify(ctx.authInfo));
  try {
    const none = await modern(s.url, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, {});
    await jsonError(none, 401);
    assert.equal(none.headers.get('www-authenticate'), challenges(`scope="mcp:read", resource_metadata="${prmUrl(s)}"`));
    const refused = await modern(s.url, 'tools/call', { name: 'counter', arguments: {} }, bearer('reader'));
    await jsonError(refused, 403);
    assert.match(refused.headers.get('www-authenticate') ?? '', /scope="mcp:read tools:counter mcp:write"/);
    const ok = await modern(s.url, 'tools/call', { name: 'counter', arguments: {} }, bearer('writer'));
    assert.equal(ok.status, 200);
    assert.equal(await text(ok), '1');
    const who = JSON.parse(await text(await modern(s.url, 'tools/call', { name: 'whoami', arguments: {} }, bearer('reader')))) as AuthInfo;
    assert.deepEqual(who, { principal: 'alice', clientId: 'c1', scopes: ['mcp:read'] });
    // And in the handshake era.
    const { headers } = await open(s.url, LATEST, bearer('writer'));
    const again = JSON.parse(await text(await post(s.url, call('whoami'), headers))) as AuthInfo;
    assert.equal(again.principal, 'alice');
    assert.deepEqual(again.scopes, TOKENS.writer!.scopes);
  } finally {
    await s.running.close();
  }
});

test('GET stream and DELETE: a valid token on every request, endpoint-level scopes only', async () => {
  const s = await start({ oauth: oauth({ requiredScopes: ['mcp:read'], scopesFor }) });
  try {
    const { headers } = await open(s.url, LATEST, bearer('reader'));
    const { authorization: _, ...noToken } = headers;
    await jsonError(await fetch(s.url, { headers: { ...noToken, accept: 'text/event-stream' } }), 401);
    await jsonError(await fetch(s.url, { headers: { ...headers, ...bearer('bare'), accept: 'text/event-stream' } }), 403);
    const stream = await fetch(s.url, { headers: { ...headers, accept: 'text/event-stream' } });
    assert.equal(stream.status, 200);
    await new SseReader(stream).cancel();
    await jsonError(await fetch(s.url, { method: 'DELETE', headers: noToken }), 401);
    assert.equal((await fetch(s.url, { method: 'DELETE', headers })).status, 200);
  } finally {
    await s.running.close();
  }
});

test('legacy HTTP+SSE: /sse is challenged with its own metadata; /messages POSTs are screened', async () => {
  const s = await start({ oauth: oauth({ requiredScopes: ['mcp:read'], scopesFor }) });
  try {
    const none = await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream' } });
    await jsonError(none, 401);
    assert.equal(none.headers.get('www-authenticate'), challenges(`scope="mcp:read", resource_metadata="${prmUrl(s, '/sse')}"`));
    const r = await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream', ...bearer('reader') } });
    assert.equal(r.status, 200);
    const sse = new SseReader(r);
    const endpoint = new URL((await sse.next())!.data!, s.base).href;
    const anonymous = await post(endpoint, initReq('2024-11-05'));
    await jsonError(anonymous, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /oauth-protected-resource\/sse"$/);
    assert.equal((await post(endpoint, initReq('2024-11-05'), bearer('reader'))).status, 202);
    assert.equal((await sse.message()).result.protocolVersion, '2024-11-05');
    assert.equal((await post(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, bearer('reader'))).status, 202);
    const refused = await post(endpoint, call('counter'), bearer('reader'));
    await jsonError(refused, 403);
    assert.match(refused.headers.get('www-authenticate') ?? '', /scope="mcp:read tools:counter mcp:write"/);
    const msg = call('counter');
    assert.equal((await post(endpoint, msg, bearer('writer'))).status, 202);
    const answer = await sse.message();
    assert.equal(answer.id, msg.id);
    assert.equal(answer.result.content[0].text, '1');
    // Another principal's token does not reach this connection.
    assert.equal((await post(endpoint, call('echo', { text: 'x' }), bearer('self'))).status, 404);
    await sse.cancel();
  } finally {
    await s.running.close();
  }
});

test('a verifyToken that throws answers 500 and reports to onerror', async () => {
  const errors: Error[] = [];
  const mcp = new McpServer({ name: 'oauth-500', version: '1.0.0', onerror: (e) => errors.push(e) });
  const s = await start(
    {
      oauth: oauth({
        verifyToken: () => {
          throw new Error('introspection endpoint down');
        },
      }),
    },
    { mcp, counter: { n: 0 } },
  );
  try {
    const r = await post(s.url, initReq(), bearer('reader'));
    await jsonError(r, 500, -32603);
    assert.equal(r.headers.get('www-authenticate'), null);
    assert.match(errors[0]?.message ?? '', /introspection endpoint down/);
  } finally {
    await s.running.close();
  }
});

test('fetch adapter: the metadata and challenges use the request URL’s scheme; tokens work statelessly', async () => {
  const { mcp } = makeServer();
  const handle = toFetchHandler(mcp, { stateful: false, oauth: oauth({ requiredScopes: ['mcp:read'] }) });
  const base = 'https://mcp.example.com';
  try {
    const doc = await handle(new Request(`${base}/.well-known/oauth-protected-resource/mcp`));
    assert.equal(doc.status, 200);
    assert.equal(doc.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await doc.json(), {
      resource: `${base}/mcp`,
      authorization_servers: [AS],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'],
    });
    assert.equal((await handle(new Request(`${base}/.well-known/oauth-protected-resource`))).status, 200);
    const body = JSON.stringify(call('echo', { text: 'edge' }));
    const none = await handle(new Request(`${base}/mcp`, { method: 'POST', headers: { ...BOTH, 'mcp-protocol-version': LATEST }, body }));
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), challenges(`scope="mcp:read", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`));
    const ok = await handle(new Request(`${base}/mcp`, { method: 'POST', headers: { ...BOTH, 'mcp-protocol-version': LATEST, ...bearer('self') }, body }));
    assert.equal(ok.status, 200);
    assert.equal(await text(ok), 'edge');
  } finally {
    await handle.close();
  }
});
