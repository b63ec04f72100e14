// Several handlers sharing one InMemorySessionStore and InMemoryEventStore, as instances behind a
// load balancer share Redis: a session held by one instance follows what happens to it elsewhere,
// and their streams never mix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { InMemoryEventStore } from '../../../src/state/event-store.js';
import { InMemorySessionStore, type SessionRecord, type SessionStore } from '../../../src/state/session-store.js';
import { call, makeServer, open, post, req, SseReader, start, type Started } from './helpers.js';
import { flush, ManualClock, waitFor } from '../../support/index.js';

const sseGet = (url: string, headers: Record<string, string>) => fetch(url, { headers: { ...headers, accept: 'text/event-stream' } });

/** An InMemorySessionStore that counts the calls it gets. */
class CountingStore extends InMemorySessionStore {
  calls = { get: 0, set: 0, touch: 0, delete: 0 };
  override get(id: string): SessionRecord | undefined {
    this.calls.get++;
    return super.get(id);
  }
  override set(id: string, record: SessionRecord, ttlMs: number): void {
    this.calls.set++;
    super.set(id, record, ttlMs);
  }
  override touch(id: string, ttlMs: number): boolean {
    this.calls.touch++;
    return super.touch(id, ttlMs);
  }
  override delete(id: string): void {
    this.calls.delete++;
    super.delete(id);
  }
}

async function status(r: Promise<Response>): Promise<number> {
  const res = await r;
  await res.text();
  return res.status;
}

/** Instances over one McpServer definition, like processes started from the same code. */
async function instances(n: number, options: Parameters<typeof start>[0]): Promise<Started[]> {
  const fixture = makeServer();
  const all: Started[] = [];
  for (let i = 0; i < n; i++) all.push(await start(options, fixture));
  return all;
}

const closeAll = (all: Started[]) => Promise.all(all.map((s) => s.running.close()));

/** Opens a session on `on` and waits until its record is in the store (written without being awaited). */
async function openShared(on: Started, store: InMemorySessionStore): Promise<{ sid: string; headers: Record<string, string> }> {
  const opened = await open(on.url);
  await waitFor(() => store.get(opened.sid) !== undefined, 'the session record');
  return opened;
}

test('after DELETE on B, A (which holds the session) answers 404 at its next check', async () => {
  const store = new InMemorySessionStore();
  const [a, b] = await instances(2, { sessionStore: store, sessionCheckMs: 0 });
  try {
    const { headers } = await openShared(a, store);
    assert.equal(await status(post(a.url, req('ping'), headers)), 200);
    assert.equal(await status(fetch(b.url, { method: 'DELETE', headers })), 200);
    assert.equal(await status(post(a.url, req('ping'), headers)), 404);
    assert.equal(a.running.handler.streamable.sessionCount, 0, 'A ended its copy');
    await waitFor(() => a.mcp.sessions.size === 0 && b.mcp.sessions.size === 0, 'both sessions to close');
    assert.equal(await status(sseGet(a.url, headers)), 404);
    assert.equal(await status(fetch(a.url, { method: 'DELETE', headers })), 404);
  } finally {
    await closeAll([a, b]);
  }
});

test('checks are throttled: one store round trip per session per sessionCheckMs, none without a store', async () => {
  const clock = new ManualClock();
  const store = new CountingStore({ clock });
  const [a] = await instances(1, { sessionStore: store, sessionCheckMs: 1000, clock });
  try {
    const { headers } = await openShared(a, store);
    const before = { ...store.calls };
    for (let i = 0; i < 10; i++) assert.equal(await status(post(a.url, req('ping'), headers)), 200);
    clock.advance(999);
    for (let i = 0; i < 10; i++) assert.equal(await status(post(a.url, req('ping'), headers)), 200);
    assert.deepEqual(store.calls, before, 'within the interval: no store call at all');
    clock.advance(1);
    for (let i = 0; i < 10; i++) assert.equal(await status(post(a.url, req('ping'), headers)), 200);
    assert.equal(store.calls.touch, before.touch + 1, 'one touch for ten requests');
    assert.equal(store.calls.get, before.get);
  } finally {
    await closeAll([a]);
  }
});

test('a session in use keeps its record alive: instances that never held it serve it past sessionIdleMs', async () => {
  const clock = new ManualClock();
  const store = new InMemorySessionStore({ clock });
  const [a, c] = await instances(2, { sessionStore: store, sessionIdleMs: 600, sessionCheckMs: 50, clock });
  try {
    const { headers } = await openShared(a, store);
    // Well past the idle time since initialize (1500 ms), with requests to A every 100 ms.
    for (let t = 0; t < 1500; t += 100) {
      assert.equal(await status(post(a.url, req('ping'), headers)), 200);
      clock.advance(100);
    }
    assert.equal(c.running.handler.streamable.sessionCount, 0);
    assert.equal(await status(post(c.url, req('ping'), headers)), 200, 'C restores it from the record');
  } finally {
    await closeAll([a, c]);
  }
});

test('a store without touch is checked with get', async () => {
  const inner = new CountingStore();
  const store: SessionStore = { get: (id) => inner.get(id), set: (id, r, ttl) => inner.set(id, r, ttl), delete: (id) => inner.delete(id) };
  const [a, b] = await instances(2, { sessionStore: store, sessionCheckMs: 0 });
  try {
    const { headers } = await open(a.url);
    await waitFor(() => inner.size === 1, 'the session record');
    const gets = inner.calls.get;
    assert.equal(await status(post(a.url, req('ping'), headers)), 200);
    assert.equal(inner.calls.get, gets + 1);
    assert.equal(await status(fetch(b.url, { method: 'DELETE', headers })), 200);
    assert.equal(await status(post(a.url, req('ping'), headers)), 404);
  } finally {
    await closeAll([a, b]);
  }
});

test('a failing check keeps the session served here and reports the error', async () => {
  const errors: Error[] = [];
  const fixture = { mcp: new McpServer({ name: 'errors', version: '1.0.0', onerror: (e) => errors.push(e) }), counter: { n: 0 } };
  const inner = new InMemorySessionStore();
  let down = false;
  const store: SessionStore = {
    get: (id) => inner.get(id),
    set: (id, r, ttl) => inner.set(id, r, ttl),
    delete: (id) => inner.delete(id),
    touch: async (id, ttl) => {
      if (down) throw new Error('store unreachable');
      return inner.touch(id, ttl);
    },
  };
  const a = await start({ sessionStore: store, sessionCheckMs: 0 }, fixture);
  try {
    const { headers } = await open(a.url);
    await waitFor(() => inner.size === 1, 'the session record');
    down = true;
    assert.equal(await status(post(a.url, req('ping'), headers)), 200);
    assert.ok(
      errors.some((e) => e.message === 'store unreachable'),
      errors.map((e) => e.message).join(),
    );
  } finally {
    await a.running.close();
  }
});

test('a session kept by its GET stream alone stays alive in the store, and a DELETE elsewhere ends the stream', async () => {
  const clock = new ManualClock();
  const store = new InMemorySessionStore({ clock });
  const [a, b, c] = await instances(3, { sessionStore: store, sessionIdleMs: 300, sessionCheckMs: 30, clock });
  try {
    const { headers } = await openShared(a, store);
    const g = await sseGet(a.url, headers);
    assert.equal(g.status, 200);
    const stream = new SseReader(g);
    await stream.next(); // priming
    // No request for three idle times: the open stream keeps the session, and A's sweeps its record.
    // The sweeps' store checks are async: let each settle before time moves on.
    for (let t = 0; t < 900; t += 30) {
      clock.advance(30);
      await flush();
    }
    assert.equal(a.running.handler.streamable.sessionCount, 1);
    assert.equal(await status(post(c.url, req('ping'), headers)), 200, 'the record is still there');
    assert.equal(await status(fetch(b.url, { method: 'DELETE', headers })), 200);
    // A's next sweep (every idle/2 = 150 ms) finds the record gone and ends the session, and with it the stream.
    clock.advance(150);
    for (let e = await stream.next(); e; e = await stream.next()) assert.ok(e.comment !== undefined || e.data === undefined);
    assert.ok(stream.ended);
    assert.equal(a.running.handler.streamable.sessionCount, 0);
  } finally {
    await closeAll([a, b, c]);
  }
});

test('two instances serving one session keep their streams apart in a shared event store', async () => {
  const sessionStore = new InMemorySessionStore();
  const eventStore = new InMemoryEventStore();
  const [a, b] = await instances(2, { sessionStore, eventStore });
  let aClosed = false;
  try {
    const { sid, headers } = await openShared(a, sessionStore);
    /** A progress call on `on`: the stream's priming id and its events. */
    const run = async (on: Started, token: string) => {
      const reader = new SseReader(await post(on.url, call('progress', { steps: 2, delayMs: 0 }, { progressToken: token }), headers));
      const priming = await reader.next();
      assert.ok(priming?.id);
      return { priming: priming.id, events: await reader.rest() };
    };
    const a1 = await run(a, 'A-1');
    const a2 = await run(a, 'A-2');
    const b1 = await run(b, 'B-1');
    const b2 = await run(b, 'B-2'); // B's second stream, as a2 is A's
    const streamOf = (eventId: string) => eventId.slice(0, eventId.lastIndexOf(':'));
    const streams = [a1, a2, b1, b2].map((x) => streamOf(x.priming));
    assert.equal(new Set(streams).size, 4, `distinct stream ids: ${streams.join(' ')}`);
    for (const s of streams) assert.ok(s.startsWith(`${sid}/`), s);
    for (const x of [a1, a2, b1, b2]) for (const e of x.events) assert.equal(streamOf(e.id!), streamOf(x.priming));

    // Each instance replays exactly its own stream, whichever instance is asked.
    const replay = async (on: Started, from: string) => new SseReader(await sseGet(on.url, { ...headers, 'last-event-id': from })).rest();
    assert.deepEqual(await replay(b, b2.priming), b2.events);
    assert.deepEqual(await replay(a, b2.priming), b2.events);
    assert.deepEqual(await replay(b, a2.priming), a2.events);
    assert.deepEqual(
      (await replay(b, b2.priming)).map((e) => JSON.parse(e.data!).params?.progressToken ?? 'result'),
      ['B-2', 'B-2', 'result'],
    );

    // A shuts down: the session lives on at B, so A's logs stay for its clients to resume there
    // (they expire by the store's own rules).
    await a.running.close();
    aClosed = true;
    assert.equal(eventStore.size, 4, "A's logs are handed over, not dropped");
    assert.deepEqual(await replay(b, a2.priming), a2.events);
    assert.deepEqual(await replay(b, b1.priming), b1.events);
    // Ending the session (DELETE) is for good: B drops its own logs.
    const del = await fetch(b.url, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    await waitFor(() => eventStore.size === 2, "B's logs to be dropped");
  } finally {
    await closeAll(aClosed ? [b] : [a, b]);
  }
});
