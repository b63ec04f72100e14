// Origin/Host checks, API keys and per-principal sessions over real HTTP; then the deprecated
// HTTP+SSE transport (GET /sse + POST /messages) beside /mcp, under the same rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import type { AuthInfo } from '../../../src/engine/transport.js';
import { BOTH, call, initReq, jsonError, LATEST, open, post, raw, SseReader, start, type Started } from './helpers.js';
import { waitFor } from '../../support/index.js';

test('Origin: foreign → 403 (JSON-RPC body without id), localhost accepted, none accepted', async () => {
  const s = await start();
  try {
    for (const origin of ['https://evil.example.com', 'http://127.0.0.1.evil.example.com', 'null']) {
      const r = await post(s.url, initReq(), { origin });
      const err = await jsonError(r, 403);
      assert.match(err.message, /Origin/);
      assert.equal(s.running.handler.streamable.sessionCount, 0);
    }
    const body = (await (await post(s.url, initReq(), { origin: 'https://evil.example.com' })).json()) as { id: unknown };
    assert.equal(body.id, null);
    for (const origin of [`http://localhost:${s.running.port}`, `http://127.0.0.1:${s.running.port}`, 'http://[::1]:8080']) {
      const r = await post(s.url, initReq(), { origin });
      assert.equal(r.status, 200, origin);
      await r.text();
    }
    const { headers } = await open(s.url);
    await jsonError(await fetch(s.url, { headers: { ...headers, accept: 'text/event-stream', origin: 'https://evil.example.com' } }), 403);
    await jsonError(await fetch(s.url, { method: 'DELETE', headers: { ...headers, origin: 'https://evil.example.com' } }), 403);
  } finally {
    await s.running.close();
  }
});

test('Origin: configured allowedOrigins replace the localhost default', async () => {
  const s = await start({ allowedOrigins: ['https://app.example.com'] });
  try {
    const ok = await post(s.url, initReq(), { origin: 'https://app.example.com' });
    assert.equal(ok.status, 200);
    await ok.text();
    await jsonError(await post(s.url, initReq(), { origin: 'https://other.example.com' }), 403);
    await jsonError(await post(s.url, initReq(), { origin: 'http://localhost:3000' }), 403);
  } finally {
    await s.running.close();
  }
  const any = await start({ allowedOrigins: '*' });
  try {
    const r = await post(any.url, initReq(), { origin: 'https://anything.example' });
    assert.equal(r.status, 200);
    await r.text();
  } finally {
    await any.running.close();
  }
});

test('Host: serve() on 127.0.0.1 refuses a rebinding Host header with 403', async () => {
  const s = await start();
  try {
    const body = JSON.stringify(initReq());
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const evil = await raw(s.url, 'POST', { ...headers, host: 'evil.example.com' }, body);
    assert.equal(evil.status, 403);
    assert.match(JSON.parse(evil.body).error.message, /Host/);
    const evilPort = await raw(s.url, 'POST', { ...headers, host: `evil.example.com:${s.running.port}` }, body);
    assert.equal(evilPort.status, 403);
    const sse = await raw(`${s.base}/sse`, 'GET', { accept: 'text/event-stream', host: 'evil.example.com' });
    assert.equal(sse.status, 403);
    for (const host of [`localhost:${s.running.port}`, `127.0.0.1:${s.running.port}`]) {
      const ok = await raw(s.url, 'POST', { ...headers, host }, body);
      assert.equal(ok.status, 200, host);
    }
  } finally {
    await s.running.close();
  }
});

test('apiKeyGuard: ?api_key, X-API-Key and Bearer are accepted; anything else is 401 with JSON', async () => {
  const s = await start({ authenticate: apiKeyGuard({ keys: ['k1'] }) });
  try {
    for (const [url, extra] of [
      [`${s.url}?api_key=k1`, {}],
      [s.url, { 'x-api-key': 'k1' }],
      [s.url, { authorization: 'Bearer k1' }],
    ] as const) {
      const { headers } = await open(url, LATEST, extra);
      const r = await post(url, call('echo', { text: 'authed' }), headers);
      assert.equal(r.status, 200);
      assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'authed');
    }
    for (const [url, extra] of [
      [s.url, {}],
      [`${s.url}?api_key=nope`, {}],
      [s.url, { 'x-api-key': 'k2' }],
      [s.url, { authorization: 'Bearer k11' }],
      [s.url, { authorization: 'Basic azE6' }],
    ] as const) {
      const r = await post(url, initReq(), extra);
      const err = await jsonError(r, 401);
      assert.match(err.message, /Unauthorized/);
      assert.match(r.headers.get('www-authenticate') ?? '', /Bearer/);
    }
    await jsonError(await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream' } }), 401);
    assert.equal(s.running.handler.streamable.sessionCount, 3);
  } finally {
    await s.running.close();
  }
});

test('a session opened with key A does not exist for key B', async () => {
  const s = await start({ authenticate: apiKeyGuard({ keys: ['ka', 'kb'] }) });
  try {
    const a = await open(s.url, LATEST, { 'x-api-key': 'ka' });
    const asB = { ...a.headers, 'x-api-key': 'kb' };
    await jsonError(await post(s.url, call('echo', { text: 'x' }), asB), 404);
    await jsonError(await fetch(s.url, { headers: { ...asB, accept: 'text/event-stream' } }), 404);
    await jsonError(await fetch(s.url, { method: 'DELETE', headers: asB }), 404);
    // Still alive for its owner.
    const r = await post(s.url, call('echo', { text: 'mine' }), a.headers);
    assert.equal(r.status, 200);
    await r.text();
  } finally {
    await s.running.close();
  }
});

test('a custom authenticate hook sees the request and its principal reaches the handler', async () => {
  const s = await start({
    authenticate: (req) => (req.header('x-user') ? { principal: `user:${req.header('x-user')}` } : undefined),
  });
  s.mcp.tool('whoami', (_a, ctx) => ctx.authInfo?.principal ?? 'nobody');
  try {
    const { headers } = await open(s.url, LATEST, { 'x-user': 'ada' });
    const r = await post(s.url, call('whoami'), headers);
    assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'user:ada');
  } finally {
    await s.running.close();
  }
});

test('an authenticate hook that answers at once: a foreign Origin is refused before it is asked, a refusal or a sender-bound token is 401, a throw fails only that request', async () => {
  let asked = 0;
  const s = await start({
    authenticate: (req) => {
      asked++;
      const who = req.header('x-user');
      if (who === 'boom') throw new Error('the key store is down');
      if (who === 'bound') return { principal: 'bound', confirmation: { jkt: 'x' } };
      // A thenable that is not a native Promise (another library's): awaited, not taken as the caller.
      if (who === 'thenable') return { then: (ok: (v: undefined) => void) => ok(undefined) } as unknown as AuthInfo;
      return who ? { principal: `user:${who}` } : undefined;
    },
  });
  s.mcp.tool('whoami', (_a, ctx) => ctx.authInfo?.principal ?? 'nobody');
  try {
    await jsonError(await post(s.url, initReq(), { origin: 'https://evil.example.com', 'x-user': 'ada' }), 403);
    assert.equal(asked, 0, 'the hook is not asked for a request the Origin check refuses');
    for (const headers of [{}, { 'x-user': 'bound' }, { 'x-user': 'thenable' }] as Array<Record<string, string>>) {
      const r = await post(s.url, initReq(), headers);
      const err = await jsonError(r, 401);
      assert.match(err.message, /Unauthorized/);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer');
    }
    const failed = await post(s.url, initReq(), { 'x-user': 'boom' });
    assert.ok(failed.status >= 500, `a throwing hook fails the request (${failed.status})`);
    await failed.text();
    assert.equal(s.running.handler.streamable.sessionCount, 0);
    const { headers } = await open(s.url, LATEST, { 'x-user': 'ada' });
    const r = await post(s.url, call('whoami'), headers);
    assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'user:ada');
  } finally {
    await s.running.close();
  }
});

// ------------------------------------------------------------ deprecated HTTP+SSE

async function connect(s: Started, headers: Record<string, string> = {}): Promise<{ sse: SseReader; endpoint: string; abort: AbortController }> {
  const abort = new AbortController();
  const r = await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  assert.equal(r.status, 200);
  const sse = new SseReader(r);
  const first = await sse.next();
  assert.equal(first?.event, 'endpoint');
  assert.match(first!.data!, /^\/messages\?sessionId=[\x21-\x7e]+$/);
  return { sse, endpoint: new URL(first!.data!, s.base).href, abort };
}

test('GET /sse announces the endpoint; POSTs there get 202 and answers arrive on the stream', async () => {
  const s = await start();
  try {
    const { sse, endpoint } = await connect(s);
    const init = await post(endpoint, initReq('2024-11-05'));
    assert.equal(init.status, 202);
    await init.text();
    const ev = await sse.next();
    assert.equal(ev?.event, 'message');
    const initResult = JSON.parse(ev!.data!);
    assert.equal(initResult.result.protocolVersion, '2024-11-05');
    assert.equal(initResult.result.serverInfo.name, 'http-e2e');
    assert.equal((await post(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
    const msg = call('progress', { steps: 2, delayMs: 1 }, { progressToken: 'L' });
    assert.equal((await post(endpoint, msg)).status, 202);
    const got = [await sse.message(), await sse.message(), await sse.message()];
    assert.deepEqual(
      got.map((m) => m.method ?? m.id),
      ['notifications/progress', 'notifications/progress', msg.id],
    );
    assert.equal(got[2].result.content[0].text, 'did 2');
    assert.equal(s.running.handler.legacy!.connectionCount, 1);
    await sse.cancel();
    await waitFor(() => s.running.handler.legacy!.connectionCount === 0 && s.mcp.sessions.size === 0, 'the connection to be freed');
    await jsonError(await post(endpoint, call('echo', { text: 'x' })), 404);
  } finally {
    await s.running.close();
  }
});

test('unknown or missing sessionId, wrong method, bad body', async () => {
  const s = await start();
  try {
    await jsonError(await post(`${s.base}/messages?sessionId=nope`, call('echo', { text: 'x' })), 404);
    await jsonError(await post(`${s.base}/messages`, call('echo', { text: 'x' })), 400);
    await jsonError(await fetch(`${s.base}/sse`, { method: 'POST', headers: BOTH, body: '{}' }), 405);
    await jsonError(await fetch(`${s.base}/sse`, { headers: { accept: 'application/json' } }), 406);
    const { sse, endpoint } = await connect(s);
    await jsonError(await post(endpoint, '{nope'), 400, -32700);
    await jsonError(await post(endpoint, call('echo', { text: 'x' }), { 'content-type': 'text/plain' }), 415);
    await jsonError(await fetch(endpoint, { method: 'GET' }), 405);
    await jsonError(await fetch(`${s.base}/elsewhere`), 404);
    await sse.cancel();
  } finally {
    await s.running.close();
  }
});

test('same Origin and auth rules as /mcp; connections belong to their principal', async () => {
  const s = await start({ authenticate: apiKeyGuard({ keys: ['ka', 'kb'] }) });
  try {
    await jsonError(await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream', 'x-api-key': 'ka', origin: 'https://evil.example.com' } }), 403);
    await jsonError(await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream' } }), 401);
    const { sse, endpoint } = await connect(s, { 'x-api-key': 'ka' });
    await jsonError(await post(endpoint, initReq('2024-11-05')), 401);
    await jsonError(await post(endpoint, initReq('2024-11-05'), { 'x-api-key': 'kb' }), 404);
    await jsonError(await post(endpoint, initReq('2024-11-05'), { 'x-api-key': 'ka', origin: 'https://evil.example.com' }), 403);
    const ok = await post(`${endpoint}&api_key=ka`, initReq('2024-11-05'));
    assert.equal(ok.status, 202);
    assert.equal((await sse.message()).result.protocolVersion, '2024-11-05');
    await sse.cancel();
  } finally {
    await s.running.close();
  }
});

test('/sse and /mcp share one port and one McpServer', async () => {
  const s = await start();
  try {
    const { sse, endpoint } = await connect(s);
    await post(endpoint, initReq('2024-11-05'));
    await sse.message();
    await post(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const mcp = await post(s.url, initReq());
    assert.equal(mcp.status, 200);
    const sid = mcp.headers.get('mcp-session-id')!;
    await mcp.text();
    const viaMcp = await post(s.url, call('counter'), { 'mcp-session-id': sid });
    assert.equal(((await viaMcp.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, '1');
    await post(endpoint, call('counter'));
    assert.equal((await sse.message()).result.content[0].text, '2');
    assert.equal(s.mcp.sessions.size, 2);
    // A run-time change reaches the legacy stream too.
    s.mcp.tool('late', () => 'late');
    assert.equal((await sse.message()).method, 'notifications/tools/list_changed');
    await sse.cancel();
  } finally {
    await s.running.close();
  }
});

test('legacySse: false serves only /mcp', async () => {
  const s = await start({ legacySse: false });
  try {
    await jsonError(await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream' } }), 404);
    assert.equal(s.running.handler.legacy, undefined);
  } finally {
    await s.running.close();
  }
});
