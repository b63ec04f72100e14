// The web-standard fetch adapter, called directly with Request objects (no socket at all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toFetchHandler } from '../../../../src/transports/http/fetch.js';
import { apiKeyGuard } from '../../../../src/transports/http/server/security.js';
import { BOTH, call, initReq, LATEST, makeServer, req, SseReader } from './helpers.js';

const URL_ = 'http://localhost/mcp';

function rq(body: unknown, headers: Record<string, string> = {}, method = 'POST', url = URL_): Request {
  return new Request(url, { method, headers: method === 'POST' ? { ...BOTH, ...headers } : headers, body: method === 'POST' ? JSON.stringify(body) : undefined });
}

async function session(fetchHandler: ReturnType<typeof toFetchHandler>): Promise<Record<string, string>> {
  const r = await fetchHandler(rq(initReq(LATEST, { elicitation: {} })));
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  const sid = r.headers.get('mcp-session-id');
  assert.ok(sid);
  assert.equal(((await r.json()) as { result: { protocolVersion: string } }).result.protocolVersion, LATEST);
  const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST };
  const n = await fetchHandler(rq({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers));
  assert.equal(n.status, 202);
  assert.equal(n.body, null);
  return headers;
}

test('fetch adapter: initialize, tools/call as JSON and as SSE, 202, 404', async () => {
  const { mcp } = makeServer();
  const handle = toFetchHandler(mcp);
  try {
    const headers = await session(handle);
    const json = await handle(rq(call('echo', { text: 'via fetch' }), headers));
    assert.equal(json.status, 200);
    assert.equal(json.headers.get('mcp-session-id'), headers['mcp-session-id']);
    assert.deepEqual(((await json.json()) as { result: unknown }).result, { content: [{ type: 'text', text: 'via fetch' }] });
    const msg = call('progress', { steps: 2, delayMs: 1 }, { progressToken: 't' });
    const sse = await handle(rq(msg, headers));
    assert.match(sse.headers.get('content-type') ?? '', /text\/event-stream/);
    const reader = new SseReader(sse);
    const priming = await reader.next();
    assert.equal(priming?.data, '');
    const events = (await reader.rest()).map((e) => JSON.parse(e.data!));
    assert.deepEqual(events.map((m) => m.method ?? m.id), ['notifications/progress', 'notifications/progress', msg.id]);
    const unknown = await handle(rq(call('echo', { text: 'x' }), { ...headers, 'mcp-session-id': 'nope' }));
    assert.equal(unknown.status, 404);
    const missing = await handle(rq(call('echo', { text: 'x' }), { 'mcp-protocol-version': LATEST }));
    assert.equal(missing.status, 400);
  } finally {
    await handle.close();
  }
});

test('fetch adapter: GET stream, elicitation round trip, DELETE', async () => {
  const { mcp } = makeServer();
  const handle = toFetchHandler(mcp);
  try {
    const headers = await session(handle);
    const get = await handle(rq(undefined, { ...headers, accept: 'text/event-stream' }, 'GET'));
    assert.equal(get.status, 200);
    const stream = new SseReader(get);
    await stream.next(); // priming
    const second = await handle(rq(undefined, { ...headers, accept: 'text/event-stream' }, 'GET'));
    assert.equal(second.status, 409);
    mcp.log('info', 'to the GET stream');
    assert.equal((await stream.message()).params.data, 'to the GET stream');

    const msg = call('ask');
    const r = await handle(rq(msg, headers));
    const sse = new SseReader(r);
    const ask = await sse.message();
    assert.equal(ask.method, 'elicitation/create');
    const answer = await handle(rq({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Grace' } } }, headers));
    assert.equal(answer.status, 202);
    assert.equal((await sse.message()).result.content[0].text, 'hello Grace');

    const del = await handle(rq(undefined, headers, 'DELETE'));
    assert.equal(del.status, 200);
    assert.equal(await stream.next(), undefined, 'DELETE ends the GET stream');
    assert.equal((await handle(rq(req('ping'), headers))).status, 404);
    assert.equal(handle.handler.streamable.sessionCount, 0);
  } finally {
    await handle.close();
  }
  // A closed handler opens nothing new.
  const late = await handle(rq(initReq()));
  assert.equal(late.status, 503);
  assert.equal(handle.handler.streamable.sessionCount, 0);
  assert.equal(mcp.sessions.size, 0);
});

test('fetch adapter: a cancelled SSE body counts as a disconnect (resume still works)', async () => {
  const { mcp } = makeServer();
  const handle = toFetchHandler(mcp);
  try {
    const headers = await session(handle);
    const r = await handle(rq(call('progress', { steps: 3, delayMs: 20 }, { progressToken: 'c' }), headers));
    const reader = new SseReader(r);
    const priming = await reader.next();
    await reader.cancel();
    const back = await handle(rq(undefined, { ...headers, accept: 'text/event-stream', 'last-event-id': priming!.id! }, 'GET'));
    const events = (await new SseReader(back).rest()).map((e) => JSON.parse(e.data!));
    assert.deepEqual(events.map((m) => m.params?.progress ?? m.result.content[0].text), [1, 2, 3, 'did 3']);
  } finally {
    await handle.close();
  }
});

test('fetch adapter: refusals, stateless mode, auth and legacy SSE', async () => {
  const { mcp, counter } = makeServer();
  const stateless = toFetchHandler(mcp, { stateful: false, authenticate: apiKeyGuard({ keys: ['k'] }) });
  try {
    const unauth = await stateless(rq(call('counter')));
    assert.equal(unauth.status, 401);
    assert.equal(((await unauth.json()) as { error: { code: number } }).error.code, -32600);
    const evil = await stateless(rq(call('counter'), { origin: 'https://evil.example.com', 'x-api-key': 'k' }));
    assert.equal(evil.status, 403);
    for (let i = 1; i <= 3; i++) {
      const r = await stateless(rq(call('counter'), { authorization: 'Bearer k' }));
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('mcp-session-id'), null);
      assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, String(i));
    }
    assert.equal(counter.n, 3);
    const get = await stateless(rq(undefined, { 'x-api-key': 'k', accept: 'text/event-stream' }, 'GET'));
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const badJson = await stateless(new Request(URL_, { method: 'POST', headers: { ...BOTH, 'x-api-key': 'k' }, body: '{' }));
    assert.equal(badJson.status, 400);
    assert.equal(((await badJson.json()) as { error: { code: number } }).error.code, -32700);
    assert.equal(mcp.server.sessions.size, 0);
  } finally {
    await stateless.close();
  }
  const legacy = toFetchHandler(mcp);
  try {
    const r = await legacy(new Request('http://localhost/sse', { headers: { accept: 'text/event-stream' } }));
    const sse = new SseReader(r);
    const endpoint = (await sse.next())!;
    assert.equal(endpoint.event, 'endpoint');
    const post = await legacy(new Request(new URL(endpoint.data!, 'http://localhost').href, { method: 'POST', headers: BOTH, body: JSON.stringify(initReq('2024-11-05')) }));
    assert.equal(post.status, 202);
    assert.equal((await sse.message()).result.protocolVersion, '2024-11-05');
    await sse.cancel();
  } finally {
    await legacy.close();
  }
});
