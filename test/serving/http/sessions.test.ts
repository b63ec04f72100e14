// Streamable HTTP sessions over real HTTP: ids, 400/404, DELETE, idle expiry, stateless mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryEventStore } from '../../../src/state/event-store.js';
import { BOTH, call, initReq, jsonError, LATEST, open, post, req, start } from './helpers.js';
import { ManualClock, waitFor } from '../../support/index.js';

test('stateful: initialize returns a random visible-ASCII Mcp-Session-Id', async () => {
  const s = await start();
  try {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await post(s.url, initReq());
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      const body = (await r.json()) as { result: { protocolVersion: string; serverInfo: { name: string } } };
      assert.equal(body.result.protocolVersion, LATEST);
      assert.equal(body.result.serverInfo.name, 'http-e2e');
      const sid = r.headers.get('mcp-session-id')!;
      assert.match(sid, /^[\x21-\x7e]{16,}$/);
      ids.add(sid);
    }
    assert.equal(ids.size, 3, 'every session gets its own id');
    assert.equal(s.running.handler.streamable.sessionCount, 3);
  } finally {
    await s.running.close();
  }
});

test('stateful: a request without a session id is 400, an unknown one 404', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url);
    const missing = await post(s.url, call('echo', { text: 'x' }), { 'mcp-protocol-version': LATEST });
    assert.match((await jsonError(missing, 400)).message, /Mcp-Session-Id/);
    const unknown = await post(s.url, call('echo', { text: 'x' }), { ...headers, 'mcp-session-id': 'no-such-session' });
    assert.match((await jsonError(unknown, 404)).message, /session/i);
    // The real one works, and the response echoes the session id.
    const ok = await post(s.url, call('echo', { text: 'x' }), headers);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('mcp-session-id'), headers['mcp-session-id']);
    assert.deepEqual(((await ok.json()) as { result: unknown }).result, { content: [{ type: 'text', text: 'x' }] });
    // GET and DELETE need it too.
    const get = await fetch(s.url, { headers: { accept: 'text/event-stream' } });
    await jsonError(get, 400);
    const del = await fetch(s.url, { method: 'DELETE' });
    await jsonError(del, 400);
  } finally {
    await s.running.close();
  }
});

test('stateful: DELETE ends the session, later requests are 404', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url);
    assert.equal(s.mcp.sessions.size, 1);
    const del = await fetch(s.url, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    await del.text();
    await waitFor(() => s.mcp.sessions.size === 0, 'the session to be freed');
    assert.equal(s.running.handler.streamable.sessionCount, 0);
    await jsonError(await post(s.url, call('echo', { text: 'x' }), headers), 404);
    await jsonError(await fetch(s.url, { method: 'DELETE', headers }), 404);
    await jsonError(await fetch(s.url, { headers: { ...headers, accept: 'text/event-stream' } }), 404);
  } finally {
    await s.running.close();
  }
});

test('stateful: idle sessions expire and are freed', async () => {
  const clock = new ManualClock();
  const s = await start({ sessionIdleMs: 400, clock });
  try {
    const [a, b] = await Promise.all([post(s.url, initReq()), post(s.url, initReq())]);
    const sids = [a.headers.get('mcp-session-id')!, b.headers.get('mcp-session-id')!];
    await Promise.all([a.text(), b.text()]);
    assert.equal(new Set(sids).size, 2);
    assert.equal(s.mcp.sessions.size, 2);
    // The sweep runs every 200 ms: at 400 ms the sessions are not yet idle, at 600 they are.
    clock.advance(400);
    assert.equal(s.running.handler.streamable.sessionCount, 2, 'the sessions exist until they idle out');
    clock.advance(200);
    await waitFor(() => s.mcp.sessions.size === 0, 'idle sessions to expire');
    assert.equal(s.running.handler.streamable.sessionCount, 0);
    for (const sid of sids) await jsonError(await post(s.url, req('ping'), { 'mcp-session-id': sid }), 404);
  } finally {
    await s.running.close();
  }
});

test('stateful: activity keeps a session alive past the idle time', async () => {
  const clock = new ManualClock();
  const s = await start({ sessionIdleMs: 300, clock });
  try {
    const { headers } = await open(s.url);
    // 400 ms in all, 80 ms between requests; the sweeps (every 150 ms) run as time passes.
    for (let i = 0; i < 5; i++) {
      clock.advance(80);
      const r = await post(s.url, req('ping'), headers);
      assert.equal(r.status, 200, `ping ${i}`);
      await r.text();
    }
  } finally {
    await s.running.close();
  }
});

test('stateful: a request sent before notifications/initialized is still answered', async () => {
  const s = await start();
  try {
    const r = await post(s.url, initReq());
    const sid = r.headers.get('mcp-session-id')!;
    await r.text();
    // tools/call before notifications/initialized is served (the spec only SHOULDs the wait).
    const c = await post(s.url, call('echo', { text: 'early' }), { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST });
    assert.equal(c.status, 200);
    const body = (await c.json()) as { result?: unknown; error?: unknown };
    assert.ok(body.result || body.error);
  } finally {
    await s.running.close();
  }
});

test('stateless: no session id, GET/DELETE 405 with Allow: POST', async () => {
  const s = await start({ stateful: false });
  try {
    const init = await post(s.url, initReq());
    assert.equal(init.status, 200);
    assert.equal(init.headers.get('mcp-session-id'), null);
    assert.equal(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion, LATEST);
    const get = await fetch(s.url, { headers: { accept: 'text/event-stream' } });
    await jsonError(get, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const del = await fetch(s.url, { method: 'DELETE' });
    await jsonError(del, 405);
    assert.equal(del.headers.get('allow'), 'POST');
    const put = await fetch(s.url, { method: 'PUT', headers: BOTH, body: '{}' });
    await jsonError(put, 405);
    assert.equal(put.headers.get('allow'), 'POST');
  } finally {
    await s.running.close();
  }
});

test('stateless: many POSTs are served by the one McpServer, and nothing leaks', async () => {
  const s = await start({ stateful: false });
  try {
    const headers = { 'mcp-protocol-version': LATEST };
    const texts: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await post(s.url, call('counter'), headers);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('mcp-session-id'), null);
      texts.push(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text);
    }
    // A new server per request would restart the count at 1.
    assert.deepEqual(texts, ['1', '2', '3', '4', '5']);
    // Concurrent requests, a notification and a session id that is simply ignored.
    const many = await Promise.all(Array.from({ length: 10 }, () => post(s.url, call('counter'), { ...headers, 'mcp-session-id': 'ignored' })));
    for (const r of many) assert.equal(r.status, 200, await r.clone().text());
    await Promise.all(many.map((r) => r.text()));
    const n = await post(s.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    assert.equal(n.status, 202);
    assert.equal(s.counter.n, 15);
    await waitFor(() => s.mcp.server.sessions.size === 0, 'transient sessions to be closed');
    assert.equal(s.running.handler.streamable.sessionCount, 0);
  } finally {
    await s.running.close();
  }
});

test('stateless: SSE responses and progress work without a session', async () => {
  const s = await start({ stateful: false });
  try {
    const r = await post(s.url, call('progress', { steps: 2, delayMs: 1 }, { progressToken: 'p' }), { 'mcp-protocol-version': LATEST });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
    const text = await r.text();
    // No event store without sessions: no ids, no priming event.
    assert.doesNotMatch(text, /^id:/m);
    const messages = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    assert.deepEqual(
      messages.map((m) => m.method ?? 'result'),
      ['notifications/progress', 'notifications/progress', 'result'],
    );
    await waitFor(() => s.mcp.server.sessions.size === 0, 'transient sessions to be closed');
  } finally {
    await s.running.close();
  }
});

/** Whether some session of `s` has a request in progress (peeks inside, like getStreamOpen). */
function requestRunning(s: Awaited<ReturnType<typeof start>>): boolean {
  const inner = s.running.handler.streamable as unknown as {
    sessions: Map<string, { transport: { openChannels: Array<{ connected: boolean }>; standalone?: unknown } }>;
  };
  return [...inner.sessions.values()].some((l) => l.transport.openChannels.some((c) => c !== l.transport.standalone));
}

test('stateful: a session is not idle while one of its requests is still running', async () => {
  const clock = new ManualClock();
  const s = await start({ sessionIdleMs: 100, clock });
  try {
    const { headers } = await open(s.url);
    // JSON response (no progress token): nothing is streamed while the tool works.
    const pending = post(s.url, call('slow', { ms: 400 }), headers);
    // Once the request runs, ten idle times pass (with their sweeps) before it answers.
    await waitFor(() => requestRunning(s), 'the slow request to be running');
    for (let t = 0; t < 1000; t += 50) clock.advance(50);
    const r = await pending;
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'slept 400');
  } finally {
    await s.running.close();
  }
});

test('stateful: an ended session forgets its streams in the event store', async () => {
  const eventStore = new InMemoryEventStore();
  const s = await start({ eventStore });
  try {
    const { headers } = await open(s.url);
    const r = await post(s.url, call('progress', { steps: 2, delayMs: 1 }, { progressToken: 1 }), headers);
    await r.text();
    assert.ok(eventStore.size > 0);
    await (await fetch(s.url, { method: 'DELETE', headers })).text();
    await waitFor(() => eventStore.size === 0, 'the event log to be dropped');
  } finally {
    await s.running.close();
  }
});

test('stateful: a failed initialize leaves no session behind', async () => {
  const s = await start();
  try {
    const r = await post(s.url, req('initialize', { capabilities: {} }));
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { error: { code: number } }).error.code, -32602);
    await waitFor(() => s.mcp.sessions.size === 0 && s.running.handler.streamable.sessionCount === 0, 'the failed session to be dropped');
  } finally {
    await s.running.close();
  }
});

test('stateful: a flood of initialize stops at maxSessions (503 with Retry-After); the open sessions keep working', async () => {
  const s = await start({ maxSessions: 3 });
  try {
    const opened: Array<Record<string, string>> = [];
    for (let i = 0; i < 3; i++) opened.push((await open(s.url)).headers);
    const refused = await post(s.url, initReq());
    const err = await jsonError(refused, 503);
    assert.match(err.message, /too many open sessions/);
    assert.equal(refused.headers.get('retry-after'), '5');
    assert.equal(s.running.handler.streamable.sessionCount, 3, 'the refused initialize left no session behind');
    // The sessions already open are not evicted for the newcomer.
    for (const headers of opened) assert.equal((await post(s.url, call('echo', { text: 'still here' }), headers)).status, 200);
    // A DELETE frees a place.
    assert.equal((await fetch(s.url, { method: 'DELETE', headers: opened[0] })).status, 200);
    assert.equal((await post(s.url, initReq())).status, 200);
  } finally {
    await s.running.close();
  }
});
