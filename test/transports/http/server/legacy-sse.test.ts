// The deprecated HTTP+SSE transport (GET /sse + POST /messages) over real HTTP, beside /mcp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyGuard } from '../../../../src/transports/http/server/security.js';
import { BOTH, call, initReq, jsonError, post, SseReader, start, until, type Started } from './helpers.js';

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
    assert.deepEqual(got.map((m) => m.method ?? m.id), ['notifications/progress', 'notifications/progress', msg.id]);
    assert.equal(got[2].result.content[0].text, 'did 2');
    assert.equal(s.running.handler.legacy!.connectionCount, 1);
    await sse.cancel();
    await until(() => s.running.handler.legacy!.connectionCount === 0 && s.mcp.sessions.size === 0, 1000, 'the connection to be freed');
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
