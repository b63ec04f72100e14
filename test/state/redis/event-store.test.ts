import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { RedisEventStore, type RedisEventStoreOptions } from '../../../src/state/redis/event-store.js';
import { cleanup, connectRedis, PREFIX } from './helpers.js';
import { sleep, waitFor } from '../../support/index.js';

after(cleanup);

const note = (i: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: i } });

const progressOf = (m: JsonRpcMessage): number => (m as unknown as { params: { progress: number } }).params.progress;

async function store(options: Partial<RedisEventStoreOptions> = {}): Promise<RedisEventStore> {
  return new RedisEventStore({ client: await connectRedis(), keyPrefix: PREFIX, ...options });
}

async function replay(s: RedisEventStore, from: string): Promise<{ stream: string | undefined; events: Array<[string, JsonRpcMessage]> }> {
  const events: Array<[string, JsonRpcMessage]> = [];
  const stream = await s.replayEventsAfter(from, (id, m) => events.push([id, m]));
  return { stream, events };
}

/** The Redis entry part of an event id, as a comparable number. */
function seqOf(eventId: string): bigint {
  const [ms, seq] = eventId
    .slice(eventId.lastIndexOf(':') + 1)
    .split('-')
    .map(BigInt);
  return (ms << 64n) + seq;
}

test('events replay in order from the priming id; ids grow and name their stream', async () => {
  const s = await store({ instanceId: 'inst-A' });
  const priming = s.primingEventId('sess/1');
  assert.equal(priming, 'sess/1#inst-A:0-0');
  const ids: string[] = [];
  for (let i = 1; i <= 25; i++) ids.push(await s.storeEvent('sess/1', note(i)));
  for (const id of ids) assert.ok(id.startsWith('sess/1#inst-A:'), id);
  for (let i = 1; i < ids.length; i++) assert.ok(seqOf(ids[i]) > seqOf(ids[i - 1]), 'monotonic');
  const all = await replay(s, priming);
  assert.equal(all.stream, 'sess/1');
  assert.deepEqual(
    all.events.map(([id]) => id),
    ids,
  );
  assert.deepEqual(
    all.events.map(([, m]) => progressOf(m)),
    ids.map((_, i) => i + 1),
  );
  // From the middle: only what came after.
  const tail = await replay(s, ids[19]);
  assert.deepEqual(
    tail.events.map(([id]) => id),
    ids.slice(20),
  );
  // From the last: nothing, but the stream is known.
  assert.deepEqual(await replay(s, ids[24]), { stream: 'sess/1', events: [] });
});

test('any instance replays a stream another one wrote; only the writer gets the bare stream id', async () => {
  const a = await store({ instanceId: 'A' });
  const b = new RedisEventStore({ client: await connectRedis(), keyPrefix: PREFIX, instanceId: 'B' }); // its own connection
  const ids = [await a.storeEvent('sess/2', note(1)), await a.storeEvent('sess/2', note(2))];
  const fromB = await replay(b, a.primingEventId('sess/2'));
  // Tagged: it matches no stream of B's, so B replays and ends instead of attaching to its own.
  assert.equal(fromB.stream, 'sess/2#A');
  assert.deepEqual(
    fromB.events.map(([id]) => id),
    ids,
  );
  assert.equal((await replay(a, ids[0])).stream, 'sess/2');
});

test('streams never mix: other stream ids, and the same stream id written by two instances', async () => {
  const a = await store({ instanceId: 'A2' });
  const b = await store({ instanceId: 'B2' });
  await a.storeEvent('sess/1', note(1));
  const other = await a.storeEvent('sess/2', note(2));
  // Both instances number their streams from 1: B's sess/1 is not A's.
  await b.storeEvent('sess/1', note(3));
  const fromA = await replay(b, a.primingEventId('sess/1'));
  assert.deepEqual(
    fromA.events.map(([, m]) => progressOf(m)),
    [1],
  );
  const fromB = await replay(a, b.primingEventId('sess/1'));
  assert.deepEqual(
    fromB.events.map(([, m]) => progressOf(m)),
    [3],
  );
  assert.deepEqual(
    (await replay(a, a.primingEventId('sess/2'))).events.map(([id]) => id),
    [other],
  );
});

test('a priming id of a stream that logged nothing is valid; past ids of unknown streams are not', async () => {
  const s = await store({ instanceId: 'P' });
  assert.deepEqual(await replay(s, s.primingEventId('fresh/1')), { stream: 'fresh/1', events: [] });
  assert.deepEqual(await replay(s, 'fresh/1#P:1700000000000-0'), { stream: undefined, events: [] });
  assert.deepEqual(await replay(s, 'fresh/1#SomeoneElse:5-0'), { stream: undefined, events: [] });
});

test('malformed Last-Event-IDs are unknown, never an error', async () => {
  const s = await store({ instanceId: 'M' });
  await s.storeEvent('m/1', note(1));
  const bad = [
    '',
    'garbage',
    'm/1:1',
    'm/1:0',
    'm/1#M:abc',
    'm/1#M:1-x',
    'm/1#bad inst:1-0',
    'm/1#M:',
    '#M:0-0',
    'm/1#:0-0',
    'm/1#M:99999999999999999999-0',
    'm/1#M:1-99999999999999999999',
    `m/1#M:${'9'.repeat(30)}-0`,
    `${'x'.repeat(2000)}#M:0-0`,
    undefined as unknown as string,
    7 as unknown as string,
  ];
  for (const id of bad) assert.deepEqual(await replay(s, id), { stream: undefined, events: [] }, JSON.stringify(id));
});

test('a stream is bounded: old events are trimmed (approximately), the newest kept in order', async () => {
  const redis = await connectRedis();
  const s = new RedisEventStore({ client: redis, keyPrefix: PREFIX, instanceId: 'bound', maxEventsPerStream: 10 });
  const ids: string[] = [];
  for (let i = 1; i <= 400; i++) ids.push(await s.storeEvent('big/1', note(i)));
  const len = await redis.xlen(s.key('big/1'));
  // MAXLEN ~ trims whole radix-tree nodes (100 entries by default): far below 400, at least 10.
  assert.ok(len >= 10 && len <= 200, `XLEN ${len}`);
  const { events } = await replay(s, s.primingEventId('big/1'));
  assert.equal(events.length, len);
  assert.deepEqual(
    events.map(([id]) => id),
    ids.slice(-len),
    'the newest events, in order',
  );
});

test('replay pages through long streams', async () => {
  const s = await store({ instanceId: 'pages' });
  const ids: string[] = [];
  for (let i = 0; i < 600; i++) ids.push(await s.storeEvent('long/1', note(i)));
  const { events } = await replay(s, s.primingEventId('long/1'));
  assert.deepEqual(
    events.map(([id]) => id),
    ids,
  );
  assert.deepEqual(
    (await replay(s, ids[255])).events.map(([id]) => id),
    ids.slice(256),
  );
});

test('streams expire after their TTL, and every append refreshes it', async () => {
  const redis = await connectRedis();
  const s = new RedisEventStore({ client: redis, keyPrefix: PREFIX, instanceId: 'ttl', streamTtlMs: 300 });
  const first = await s.storeEvent('ttl/1', note(1));
  const ttl = await redis.pttl(s.key('ttl/1'));
  assert.ok(ttl > 0 && ttl <= 300, `PTTL ${ttl}`);
  await sleep(200);
  await s.storeEvent('ttl/1', note(2));
  assert.ok((await redis.pttl(s.key('ttl/1'))) > 200, 'refreshed by the append');
  await waitFor(async () => (await redis.exists(s.key('ttl/1'))) === 0, 'the stream to expire');
  assert.deepEqual(await replay(s, first), { stream: undefined, events: [] }, 'expired: unknown');
});

test("dropStream forgets this instance's log of a stream", async () => {
  const redis = await connectRedis();
  const s = new RedisEventStore({ client: redis, keyPrefix: PREFIX, instanceId: 'drop' });
  const id = await s.storeEvent('drop/1', note(1));
  await s.storeEvent('drop/2', note(2));
  s.dropStream('drop/1');
  await waitFor(async () => (await redis.exists(s.key('drop/1'))) === 0, 'the stream to be deleted');
  assert.equal(await redis.exists(s.key('drop/2')), 1, 'other streams stay');
  assert.deepEqual(await replay(s, id), { stream: undefined, events: [] });
  s.dropStream('never-was');
  s.dropStream('');
});

test('messages round-trip exactly (unicode, large payloads, responses and errors)', async () => {
  const s = await store({ instanceId: 'exact' });
  const big = 'é😀\n"\\'.repeat(20_000);
  const messages: JsonRpcMessage[] = [
    { jsonrpc: '2.0', id: 'r-1', result: { content: [{ type: 'text', text: big }] } },
    { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad', data: { nested: [1, null, true] } } },
    { jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: { messages: [] } },
  ];
  for (const m of messages) await s.storeEvent('exact/1', m);
  const { events } = await replay(s, s.primingEventId('exact/1'));
  assert.deepEqual(
    events.map(([, m]) => m),
    messages,
  );
});

test('options and arguments are checked', async () => {
  const client = await connectRedis();
  assert.throws(() => new RedisEventStore({ client, maxEventsPerStream: 0 }), RangeError);
  assert.throws(() => new RedisEventStore({ client, maxEventsPerStream: 1.5 }), RangeError);
  assert.throws(() => new RedisEventStore({ client, streamTtlMs: -1 }), RangeError);
  assert.throws(() => new RedisEventStore({ client, instanceId: 'a:b' }), TypeError);
  assert.throws(() => new RedisEventStore({ client, instanceId: 'a#b' }), TypeError);
  assert.throws(() => new RedisEventStore({ client, keyPrefix: '' }), TypeError);
  const s = new RedisEventStore({ client, keyPrefix: PREFIX });
  assert.match(s.instanceId, /^[A-Za-z0-9_-]{1,64}$/, 'a random instance id by default');
  assert.notEqual(s.instanceId, new RedisEventStore({ client }).instanceId);
  assert.equal(new RedisEventStore({ client, instanceId: 'x' }).key('s/1'), 'mcpkit:events:x:s/1', 'default prefix');
  await assert.rejects(s.storeEvent('', note(1)), TypeError);
  assert.throws(() => s.primingEventId(''), TypeError);
});

test('Redis failures: storeEvent and replay reject; a failed dropStream goes to onError', async () => {
  const errors: Error[] = [];
  const s = new RedisEventStore({ client: async () => Promise.reject(new Error('connection lost')), onError: (e) => errors.push(e) });
  await assert.rejects(s.storeEvent('x/1', note(1)), /connection lost/);
  await assert.rejects(
    s.replayEventsAfter(s.primingEventId('x/1'), () => {}),
    /connection lost/,
  );
  s.dropStream('x/1');
  await waitFor(() => errors.length === 1, 'onError');
  assert.match(errors[0].message, /connection lost/);
});

test('a corrupt entry is skipped and reported; the rest replays', async () => {
  const redis = await connectRedis();
  const errors: Error[] = [];
  const s = new RedisEventStore({ client: redis, keyPrefix: PREFIX, instanceId: 'corrupt', onError: (e) => errors.push(e) });
  const first = await s.storeEvent('c/1', note(1));
  await redis.xadd(s.key('c/1'), '*', 'm', '{not json');
  await redis.xadd(s.key('c/1'), '*', 'other', 'field');
  const last = await s.storeEvent('c/1', note(2));
  const { events } = await replay(s, s.primingEventId('c/1'));
  assert.deepEqual(
    events.map(([id]) => id),
    [first, last],
  );
  assert.equal(errors.length, 2);
});

test('every command names its one key, for clients that route by key (clusters)', async () => {
  const redis = await connectRedis();
  const seen: Array<[string, string]> = [];
  const s = new RedisEventStore({
    keyPrefix: PREFIX,
    instanceId: 'keys',
    client: (args, key) => {
      seen.push([args[0], key]);
      assert.ok(args.includes(key), `${args[0]} carries its key`);
      return redis.call(args[0], args.slice(1));
    },
  });
  const id = await s.storeEvent('k/1', note(1));
  await s.replayEventsAfter(id, () => {});
  s.dropStream('k/1');
  await waitFor(() => seen.length === 4, 'four commands');
  assert.deepEqual(seen, [
    ['EVAL', s.key('k/1')],
    ['XRANGE', s.key('k/1')],
    ['EXISTS', s.key('k/1')],
    ['DEL', s.key('k/1')],
  ]);
});

test('a command function that throws synchronously fails as a promise', async () => {
  const errors: Error[] = [];
  const s = new RedisEventStore({
    client: () => {
      throw new Error('sync boom');
    },
    onError: (e) => errors.push(e),
  });
  await assert.rejects(s.storeEvent('x/1', note(1)), /sync boom/);
  s.dropStream('x/1');
  await waitFor(() => errors.length === 1, 'onError');
});
