// The adapters: fetch (called directly with Request objects, no socket), toNodeHandler inside an
// application's own node:http server, and running.close() ending everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toFetchHandler } from '../../../src/serving/fetch.js';
import { toNodeHandler } from '../../../src/serving/node.js';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import { BOTH, call, initReq, jsonError, LATEST, makeServer, open, post, req, SseReader, start } from './helpers.js';
import { waitFor } from '../../support/index.js';

// ----------------------------------------------------------------- fetch adapter

const URL_ = 'http://localhost/mcp';

function rq(body: unknown, headers: Record<string, string> = {}, method = 'POST', url = URL_): Request {
  return new Request(url, {
    method,
    headers: method === 'POST' ? { ...BOTH, ...headers } : headers,
    body: method === 'POST' ? JSON.stringify(body) : undefined,
  });
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
    assert.deepEqual(
      events.map((m) => m.method ?? m.id),
      ['notifications/progress', 'notifications/progress', msg.id],
    );
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
    assert.deepEqual(
      events.map((m) => m.params?.progress ?? m.result.content[0].text),
      [1, 2, 3, 'did 3'],
    );
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
    const post = await legacy(
      new Request(new URL(endpoint.data!, 'http://localhost').href, { method: 'POST', headers: BOTH, body: JSON.stringify(initReq('2024-11-05')) }),
    );
    assert.equal(post.status, 202);
    assert.equal((await sse.message()).result.protocolVersion, '2024-11-05');
    await sse.cancel();
  } finally {
    await legacy.close();
  }
});

// ------------------------------------------------------------ toNodeHandler in an app server

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeAll(server: Server, close: () => Promise<void>): Promise<void> {
  await close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

test('toNodeHandler: custom endpoint path in an app server, other paths are the app’s', async () => {
  const { mcp } = makeServer();
  const mcpHandler = toNodeHandler(mcp, { endpoint: '/api/mcp', legacySse: false });
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) return mcpHandler(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('app');
  });
  const base = await listen(server);
  try {
    const r = await post(`${base}/api/mcp`, initReq());
    assert.equal(r.status, 200);
    const sid = r.headers.get('mcp-session-id')!;
    await r.text();
    const c = await post(`${base}/api/mcp`, call('echo', { text: 'mounted' }), { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST });
    assert.equal(((await c.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'mounted');
    assert.equal(await (await fetch(`${base}/health`)).text(), 'app');
    await jsonError(await post(`${base}/api/other`, initReq()), 404);
  } finally {
    await closeAll(server, mcpHandler.close);
  }
});

test('toNodeHandler: a body already parsed by a framework (req.body) is used, not awaited', async () => {
  const { mcp } = makeServer();
  const mcpHandler = toNodeHandler(mcp, { stateful: false });
  // What express.json() does: read the stream, leave the parsed value on req.body.
  const server = createServer(async (req: IncomingMessage & { body?: unknown }, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    req.body = req.headers['x-as'] === 'string' ? text : JSON.parse(text);
    mcpHandler(req, res);
  });
  const base = await listen(server);
  try {
    for (const as of ['object', 'string']) {
      const r = await post(`${base}/mcp`, call('echo', { text: as }), { 'x-as': as }, AbortSignal.timeout(2000));
      assert.equal(r.status, 200);
      assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, as);
    }
  } finally {
    await closeAll(server, mcpHandler.close);
  }
});

// ------------------------------------------------------------------------- closing

/** Ref'd timers and listening servers: what would keep the process from exiting. */
const holders = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'TCPServerWrap');

test('running.close() ends every session, GET/POST/legacy stream and pending JSON request; nothing is left holding the process', async () => {
  const baseline = holders().length;
  // Short keep-alive and idle timers, so they exist (and must be gone) by the time close() returns.
  const s = await start({ keepAliveMs: 20, sessionIdleMs: 30_000 });
  const stateless = await start({ stateful: false, keepAliveMs: 20 }, { mcp: s.mcp, counter: s.counter });
  await (await post(stateless.url, call('counter'))).text();
  const a = await open(s.url);
  const b = await open(s.url, '2025-06-18');
  const get = new SseReader(await fetch(s.url, { headers: { ...a.headers, accept: 'text/event-stream' } }));
  await get.next();
  const stream = new SseReader(await post(s.url, call('slow', { ms: 60_000 }, { progressToken: 1 }), a.headers));
  await stream.message();
  const pending = post(s.url, call('slow', { ms: 60_000 }), b.headers);
  const legacy = new SseReader(await fetch(`${s.base}/sse`, { headers: { accept: BOTH.accept } }));
  await legacy.next();
  assert.equal(s.mcp.sessions.size, 3);

  await s.running.close();
  await stateless.running.close();

  assert.equal(s.mcp.sessions.size, 0);
  assert.equal(s.running.handler.streamable.sessionCount, 0);
  assert.equal(s.running.handler.legacy!.connectionCount, 0);
  const ended = async (r: SseReader) => {
    try {
      await r.rest(1000);
    } catch (e) {
      // A reset connection is an end too; a timeout is not.
      assert.doesNotMatch(String(e), /no SSE event within/);
    }
  };
  await Promise.all([ended(get), ended(stream), ended(legacy)]);
  const settled = await pending.then(
    async (r) => [r.status, await r.text()] as const,
    () => 'reset' as const,
  );
  if (settled !== 'reset') {
    assert.equal(settled[0], 503);
    assert.match(settled[1], /-32603/);
  }
  assert.equal(s.running.httpServer.listening, false);
  await assert.rejects(fetch(s.url, { method: 'POST', headers: BOTH, body: '{}' }));
  // The process could exit now: no timer or server of ours is keeping it up (the suite's own
  // exit proves the same for every other test). Closed sockets leave the list a few event-loop
  // turns later, so this waits for the condition; a leak keeps it false until the safety net.
  await waitFor(() => holders().length <= baseline, 'no more handles than before the server');
});
