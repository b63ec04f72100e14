// An event store that fails (a database that is down) must not stall SSE responses: the events
// go out without an id, and the error is reported through the server's onerror.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { InMemoryEventStore, type EventStore } from '../../../src/state/event-store.js';
import { call, LATEST, open, post, SseReader, start } from './helpers.js';
import { sleep } from '../../support/index.js';

function fixture(errors: Error[]) {
  const mcp = new McpServer({ name: 'failing-store', version: '1.0.0', onerror: (e) => errors.push(e) });
  mcp.tool('progress', { input: { steps: z.number().int() } }, async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) await ctx.progress(i, steps);
    return `did ${steps}`;
  });
  return { mcp, counter: { n: 0 } };
}

/** An in-memory store whose storeEvent fails: by rejecting, or by throwing synchronously. */
function failing(how: 'reject' | 'throw', priming: 'ok' | 'throw' = 'ok'): EventStore {
  const inner = new InMemoryEventStore();
  return {
    storeEvent:
      how === 'reject'
        ? async () => {
            await sleep(1);
            throw new Error('store down (rejected)');
          }
        : () => {
            throw new Error('store down (thrown)');
          },
    replayEventsAfter: (id, send) => inner.replayEventsAfter(id, send),
    primingEventId: (streamId) => {
      if (priming === 'throw') throw new Error('no priming id');
      return inner.primingEventId(streamId);
    },
  };
}

for (const how of ['reject', 'throw'] as const) {
  test(`storeEvent that ${how === 'reject' ? 'rejects' : 'throws'}: the SSE response still delivers every event and ends`, async () => {
    const errors: Error[] = [];
    const s = await start({ eventStore: failing(how) }, fixture(errors));
    try {
      const { headers } = await open(s.url, LATEST);
      const msg = call('progress', { steps: 2 }, { progressToken: 'T' });
      const r = await post(s.url, msg, headers);
      assert.equal(r.status, 200);
      const reader = new SseReader(r);
      const priming = await reader.next();
      assert.ok(priming?.id, 'the priming event needs no storing');
      const events = await reader.rest();
      const messages = events.map((e) => JSON.parse(e.data!));
      assert.deepEqual(
        messages.map((m) => m.params?.progress ?? m.result?.content[0].text),
        [1, 2, 'did 2'],
      );
      assert.equal(messages[2].id, msg.id);
      for (const e of events) assert.equal(e.id, undefined, 'not stored: no id to resume from');
      assert.equal(errors.length, 3, errors.map((e) => e.message).join());
      assert.match(errors[0].message, /store down/);
    } finally {
      await s.running.close();
    }
  });
}

test('a failing store does not stall the GET stream either', async () => {
  const errors: Error[] = [];
  const fx = fixture(errors);
  const s = await start({ eventStore: failing('reject') }, fx);
  try {
    const { headers } = await open(s.url, LATEST);
    const g = await fetch(s.url, { headers: { ...headers, accept: 'text/event-stream' } });
    assert.equal(g.status, 200);
    const reader = new SseReader(g);
    await reader.next(); // priming
    fx.mcp.tool('late', () => 'late');
    const e = await reader.next();
    assert.equal(e?.id, undefined);
    assert.deepEqual(JSON.parse(e!.data!), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    assert.equal(errors.length, 1);
    await reader.cancel();
  } finally {
    await s.running.close();
  }
});

test('a store that cannot name a priming event: the stream starts without one', async () => {
  const errors: Error[] = [];
  const s = await start({ eventStore: failing('reject', 'throw') }, fixture(errors));
  try {
    const { headers } = await open(s.url, LATEST);
    const r = await post(s.url, call('progress', { steps: 1 }, { progressToken: 'P' }), headers);
    const events = await new SseReader(r).rest();
    assert.deepEqual(
      events.map((e) => JSON.parse(e.data!).params?.progress ?? 'result'),
      [1, 'result'],
    );
    assert.ok(errors.some((e) => e.message === 'no priming id'));
  } finally {
    await s.running.close();
  }
});
