// The standalone GET stream, SSE resumability (priming, retry, Last-Event-ID) and keep-alives,
// over real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryEventStore, type EventStore } from '../../../src/state/event-store.js';
import { call, getStreamOpen, jsonError, LATEST, open, post, SseReader, start } from './helpers.js';
import { flush, sleep, waitFor } from '../../support/index.js';

type JSONRPCMessageLike = Parameters<EventStore['storeEvent']>[1];

const sseGet = (url: string, headers: Record<string, string>, signal?: AbortSignal) =>
  fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal });

test('GET stream: receives tools/list_changed when a tool is added at run time', async () => {
  const s = await start();
  try {
    const { sid, headers } = await open(s.url);
    const r = await sseGet(s.url, headers);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('mcp-session-id'), sid);
    assert.match(r.headers.get('cache-control') ?? '', /no-cache/);
    assert.equal(r.headers.get('x-accel-buffering'), 'no');
    const sse = new SseReader(r);
    const priming = await sse.next();
    assert.ok(priming?.id);
    assert.equal(priming.data, '');
    assert.equal(priming.retry, 1000);
    s.mcp.tool('late', () => 'I came late');
    const n = await sse.message();
    assert.deepEqual(n, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    // The new tool is callable, and its response does not go on the GET stream.
    const c = await post(s.url, call('late'), headers);
    assert.equal(((await c.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'I came late');
    await sse.cancel();
  } finally {
    await s.running.close();
  }
});

test('GET stream: a second concurrent GET is 409; after the first closes a new one is allowed', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url);
    const first = await sseGet(s.url, headers);
    assert.equal(first.status, 200);
    const sse = new SseReader(first);
    await sse.next();
    const second = await sseGet(s.url, headers);
    await jsonError(second, 409);
    await sse.cancel();
    // The server notices the disconnect; a fresh GET is then accepted.
    let third: Response | undefined;
    for (let i = 0; i < 50 && third?.status !== 200; i++) {
      if (third) await third.text();
      await sleep(10);
      third = await sseGet(s.url, headers);
    }
    assert.equal(third!.status, 200);
    await third!.body!.cancel();
  } finally {
    await s.running.close();
  }
});

test('GET stream: 406 without Accept: text/event-stream', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url);
    await jsonError(await fetch(s.url, { headers: { ...headers, accept: 'application/json' } }), 406);
  } finally {
    await s.running.close();
  }
});

test('priming event and retry only for protocol version >= 2025-11-25', async () => {
  const s = await start({ retryMs: 250 });
  try {
    const modern = await open(s.url, LATEST);
    const r1 = await post(s.url, call('progress', { steps: 1, delayMs: 1 }, { progressToken: 1 }), modern.headers);
    const first = await new SseReader(r1).next();
    assert.deepEqual([first?.data, first?.retry, typeof first?.id], ['', 250, 'string']);
    for (const version of ['2025-06-18', '2025-03-26']) {
      const old = await open(s.url, version);
      const r2 = await post(s.url, call('progress', { steps: 1, delayMs: 1 }, { progressToken: 1 }), old.headers);
      const text = await r2.text();
      assert.doesNotMatch(text, /^retry:/m, version);
      assert.doesNotMatch(text, /^data: $/m, version);
      assert.match(text.split('\n')[0], /^id: /, 'events still carry ids');
      const g = await sseGet(s.url, old.headers);
      const sse = new SseReader(g);
      s.mcp.log('info', 'ping');
      const e = await sse.next();
      assert.ok(e?.data, `GET stream (${version}) starts with a message, not a priming event`);
      await sse.cancel();
    }
  } finally {
    await s.running.close();
  }
});

test('resume: drop the POST stream mid-call, GET + Last-Event-ID gets the missed events and the result', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url);
    const abort = new AbortController();
    const msg = call('progress', { steps: 5, delayMs: 30 }, { progressToken: 'A' });
    const r = await post(s.url, msg, headers, abort.signal);
    const sse = new SseReader(r);
    const priming = await sse.next();
    assert.equal(priming?.data, '');
    abort.abort();
    // Another request on the same session, running meanwhile on its own stream.
    const other = post(s.url, call('progress', { steps: 3, delayMs: 5 }, { progressToken: 'B' }), headers).then((x) => x.text());
    await sleep(60);
    const g = await sseGet(s.url, { ...headers, 'last-event-id': priming.id! });
    assert.equal(g.status, 200);
    const events = await new SseReader(g).rest();
    const messages = events.map((e) => JSON.parse(e.data!));
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    assert.deepEqual(
      progress.map((m) => [m.params.progressToken, m.params.progress]),
      [1, 2, 3, 4, 5].map((i) => ['A', i]),
    );
    const results = messages.filter((m) => 'result' in m);
    assert.equal(results.length, 1);
    assert.equal(results[0].id, msg.id);
    assert.equal(results[0].result.content[0].text, 'did 5');
    assert.equal(messages.length, 6, 'nothing from other streams');
    assert.match(await other, /"progressToken":"B"/);
    // Resuming again from a later event replays only what came after it.
    const again = await sseGet(s.url, { ...headers, 'last-event-id': events[3].id! });
    const tail = (await new SseReader(again).rest()).map((e) => JSON.parse(e.data!));
    assert.deepEqual(
      tail.map((m) => m.params?.progress ?? 'result'),
      [5, 'result'],
    );
  } finally {
    await s.running.close();
  }
});

test('resume: reconnecting while the original connection is still open moves the stream', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url);
    const msg = call('progress', { steps: 4, delayMs: 30 }, { progressToken: 'M' });
    const first = new SseReader(await post(s.url, msg, headers));
    const priming = await first.next();
    const second = new SseReader(await sseGet(s.url, { ...headers, 'last-event-id': priming!.id! }));
    const resumed = (await second.rest()).map((e) => JSON.parse(e.data!));
    assert.equal(resumed.at(-1).id, msg.id);
    // The old connection ends rather than hang (each message goes on exactly one stream).
    const leftover = await first.rest();
    assert.ok(first.ended);
    assert.ok(leftover.length < resumed.length);
  } finally {
    await s.running.close();
  }
});

test('resume: Last-Event-ID of another session or an unknown id → 400 (the session itself lives on)', async () => {
  const s = await start();
  try {
    const a = await open(s.url);
    const b = await open(s.url);
    const r = await post(s.url, call('progress', { steps: 1, delayMs: 1 }, { progressToken: 1 }), a.headers);
    const events = await new SseReader(r).rest();
    const id = events[0].id!;
    await jsonError(await sseGet(s.url, { ...b.headers, 'last-event-id': id }), 400);
    await jsonError(await sseGet(s.url, { ...a.headers, 'last-event-id': 'garbage' }), 400);
    // The owner can replay it (the call finished: replay, then the stream ends).
    const own = await sseGet(s.url, { ...a.headers, 'last-event-id': id });
    assert.equal(own.status, 200);
    const replay = await new SseReader(own).rest();
    assert.equal(JSON.parse(replay.at(-1)!.data!).result.content[0].text, 'did 1');
  } finally {
    await s.running.close();
  }
});

test('GET stream: messages sent while disconnected are replayed on resume', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url);
    const abort = new AbortController();
    const sse = new SseReader(await sseGet(s.url, headers, abort.signal));
    const priming = await sse.next();
    abort.abort();
    await waitFor(() => !getStreamOpen(s), 'the server to see the GET stream go');
    s.mcp.log('warning', 'while you were away');
    await flush(); // stored in the (in-memory) event store
    const back = new SseReader(await sseGet(s.url, { ...headers, 'last-event-id': priming!.id! }));
    const m = await back.message();
    assert.equal(m.method, 'notifications/message');
    assert.equal(m.params.data, 'while you were away');
    await back.cancel();
  } finally {
    await s.running.close();
  }
});

test('keep-alive comments appear on idle streams', async () => {
  const s = await start({ keepAliveMs: 50 });
  try {
    const { headers } = await open(s.url);
    const g = new SseReader(await sseGet(s.url, headers));
    await g.next(); // priming
    assert.deepEqual(await g.next(500), { comment: 'keepalive' });
    assert.deepEqual(await g.next(500), { comment: 'keepalive' });
    await g.cancel();
    // A POST stream waiting on a slow tool gets them too.
    const p = new SseReader(await post(s.url, call('progress', { steps: 1, delayMs: 200 }, { progressToken: 1 }), headers));
    const seen = [await p.next(), await p.next(), await p.next(), await p.next()];
    assert.ok(
      seen.some((e) => e?.comment === 'keepalive'),
      JSON.stringify(seen),
    );
    await p.rest();
  } finally {
    await s.running.close();
  }
});

test('resume with an asynchronous event store loses and repeats nothing', async () => {
  // A store whose calls take real time (a database): events keep coming during a replay.
  const inner = new InMemoryEventStore();
  const eventStore: EventStore = {
    storeEvent: async (streamId, message) => {
      await sleep(1);
      return inner.storeEvent(streamId, message);
    },
    replayEventsAfter: async (lastEventId, send) => {
      const events: Array<[string, JSONRPCMessageLike]> = [];
      const streamId = inner.replayEventsAfter(lastEventId, (id, m) => events.push([id, m]));
      await sleep(25);
      for (const [id, m] of events) send(id, m);
      return streamId;
    },
    primingEventId: (streamId) => inner.primingEventId(streamId),
  };
  const s = await start({ eventStore });
  try {
    const { headers } = await open(s.url);
    const abort = new AbortController();
    const msg = call('progress', { steps: 30, delayMs: 2 }, { progressToken: 'R' });
    const sse = new SseReader(await post(s.url, msg, headers, abort.signal));
    const priming = await sse.next();
    abort.abort();
    await sleep(20);
    const events = await new SseReader(await sseGet(s.url, { ...headers, 'last-event-id': priming!.id! })).rest();
    const messages = events.map((e) => JSON.parse(e.data!));
    assert.deepEqual(
      messages.map((m) => m.params?.progress ?? 'result'),
      [...Array.from({ length: 30 }, (_, i) => i + 1), 'result'],
    );
    assert.equal(new Set(events.map((e) => e.id)).size, events.length);
  } finally {
    await s.running.close();
  }
});
