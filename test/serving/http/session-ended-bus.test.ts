// A DELETE (a logout) ends a shared session on every instance at once, over the message bus:
// instances that hold it end it without waiting for their next store check, and one that was
// restoring it from the store when the word came does not bring it back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBus } from '../../../src/state/bus.js';
import { InMemorySessionStore, type SessionStore } from '../../../src/state/session-store.js';
import { makeServer, open, post, req, SseReader, start, type Started } from './helpers.js';
import { deferred, ManualClock, waitFor, type Deferred } from '../../support/index.js';

async function status(r: Promise<Response>): Promise<number> {
  const res = await r;
  await res.text();
  return res.status;
}

/** Instances with servers of their own on one bus, as processes sharing Redis. */
async function instances(n: number, store: SessionStore, clock: ManualClock): Promise<Started[]> {
  const bus = new MemoryBus();
  const all: Started[] = [];
  for (let i = 0; i < n; i++) {
    const fixture = makeServer();
    fixture.mcp.server.share({ bus });
    // The clock never moves: no store check ever runs, so only the bus can end a session.
    all.push(await start({ sessionStore: store, sessionCheckMs: 60_000, clock }, fixture));
  }
  return all;
}

test('DELETE on A ends the session on B at once: its GET stream closes and it answers 404, no store check involved', async () => {
  const store = new InMemorySessionStore();
  const [a, b] = await instances(2, store, new ManualClock());
  try {
    const { sid, headers } = await open(a.url);
    await waitFor(() => store.get(sid) !== undefined, 'the session record');
    assert.equal(await status(post(b.url, req('ping'), headers)), 200, 'B serves it, and holds it');
    const g = await fetch(b.url, { headers: { ...headers, accept: 'text/event-stream' } });
    assert.equal(g.status, 200);
    const stream = new SseReader(g);
    await stream.next(); // priming
    assert.equal(await status(fetch(a.url, { method: 'DELETE', headers })), 200);
    for (let e = await stream.next(); e; e = await stream.next()) assert.equal(e.data, undefined, 'nothing but comments before the end');
    assert.ok(stream.ended, "B's stream ended");
    assert.equal(b.running.handler.streamable.sessionCount, 0);
    assert.equal(await status(post(b.url, req('ping'), headers)), 404);
  } finally {
    await Promise.all([a, b].map((s) => s.running.close()));
  }
});

test('a session ended while B was restoring it from the store is not served by B', async () => {
  const mem = new InMemorySessionStore();
  let hold: Deferred<void> | undefined;
  const reading = deferred();
  // B's read of the record is held until the DELETE on A is done: it got the record, yet the
  // session ended meanwhile.
  const store: SessionStore = {
    async get(id) {
      const record = mem.get(id);
      if (hold) {
        reading.resolve();
        await hold.promise;
      }
      return record;
    },
    set: (id, record, ttlMs) => mem.set(id, record, ttlMs),
    touch: (id, ttlMs) => mem.touch(id, ttlMs),
    delete: (id) => mem.delete(id),
  };
  const [a, b] = await instances(2, store, new ManualClock());
  try {
    const { sid, headers } = await open(a.url);
    await waitFor(() => mem.get(sid) !== undefined, 'the session record');
    hold = deferred<void>();
    const onB = post(b.url, req('ping'), headers);
    await reading.promise;
    assert.equal(await status(fetch(a.url, { method: 'DELETE', headers })), 200);
    hold.resolve();
    assert.equal(await status(onB), 404);
    assert.equal(b.running.handler.streamable.sessionCount, 0);
  } finally {
    hold?.resolve();
    await Promise.all([a, b].map((s) => s.running.close()));
  }
});
