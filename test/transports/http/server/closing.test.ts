// running.close(): every session and stream ends, and nothing keeps the process alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOTH, call, open, post, SseReader, start } from './helpers.js';

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
  const settled = await pending.then(async (r) => [r.status, await r.text()] as const, () => 'reset' as const);
  if (settled !== 'reset') {
    assert.equal(settled[0], 503);
    assert.match(settled[1], /-32603/);
  }
  assert.equal(s.running.httpServer.listening, false);
  await assert.rejects(fetch(s.url, { method: 'POST', headers: BOTH, body: '{}' }));
  // The process could exit now: no timer or server of ours is keeping it up (the suite's own
  // exit proves the same for every other test).
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(holders().length <= baseline, JSON.stringify(process.getActiveResourcesInfo()));
});
