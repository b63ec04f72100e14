import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionRecord } from '../../../src/state/session-store.js';
import { RedisSessionStore } from '../../../src/state/redis/session-store.js';
import type { RedisCommand } from '../../../src/state/redis/client.js';
import { cleanup, connectRedis, PREFIX } from './helpers.js';
import { sleep } from '../../support/index.js';

after(cleanup);

const RECORD: SessionRecord = {
  protocolVersion: '2025-06-18',
  clientCapabilities: { roots: { listChanged: true }, sampling: {} },
  clientInfo: { name: 'lb-client', version: '1.2.3' },
  principal: 'alice',
};

test('set then get returns the record; the value lives under <prefix>session:<id> with a TTL', async () => {
  const redis = await connectRedis();
  const store = new RedisSessionStore({ client: redis, keyPrefix: PREFIX });
  await store.set('s-1', RECORD, 60_000);
  assert.deepEqual(await store.get('s-1'), RECORD);
  assert.equal(store.key('s-1'), `${PREFIX}session:s-1`);
  const ttl = await redis.pttl(`${PREFIX}session:s-1`);
  assert.ok(ttl > 59_000 && ttl <= 60_000, `PTTL ${ttl}`);
  // Another store (another instance) with the same prefix sees it; another prefix does not.
  assert.deepEqual(await new RedisSessionStore({ client: redis, keyPrefix: PREFIX }).get('s-1'), RECORD);
  assert.equal(await new RedisSessionStore({ client: redis, keyPrefix: `${PREFIX}other:` }).get('s-1'), undefined);
});

test('the default key prefix is mcpkit:', () => {
  const store = new RedisSessionStore({ client: async () => null });
  assert.equal(store.key('abc'), 'mcpkit:session:abc');
});

test('a minimal record (no clientInfo, no principal) round-trips without gaining fields', async () => {
  const store = new RedisSessionStore({ client: await connectRedis(), keyPrefix: PREFIX });
  await store.set('minimal', { protocolVersion: '2024-11-05', clientCapabilities: {} }, 10_000);
  assert.deepEqual(await store.get('minimal'), { protocolVersion: '2024-11-05', clientCapabilities: {} });
});

test('records expire after their TTL', async () => {
  const store = new RedisSessionStore({ client: await connectRedis(), keyPrefix: PREFIX });
  await store.set('short', RECORD, 60);
  assert.ok(await store.get('short'));
  await sleep(150);
  assert.equal(await store.get('short'), undefined);
});

test('get refreshes nothing; set and touch do', async () => {
  const redis = await connectRedis();
  const store = new RedisSessionStore({ client: redis, keyPrefix: PREFIX });
  await store.set('t', RECORD, 1000);
  await sleep(120);
  await store.get('t');
  assert.ok((await redis.pttl(store.key('t'))) <= 900, 'get must not extend the TTL');
  assert.equal(await store.touch('t', 5000), true);
  assert.ok((await redis.pttl(store.key('t'))) > 4000, 'touch extends the TTL');
  await store.set('t', RECORD, 20_000);
  assert.ok((await redis.pttl(store.key('t'))) > 19_000, 'set resets the TTL');
  assert.equal(await store.touch('never-was', 5000), false);
  assert.equal(await redis.exists(store.key('never-was')), 0, 'touch creates nothing');
});

test('delete removes the record; deleting an unknown id is harmless', async () => {
  const redis = await connectRedis();
  const store = new RedisSessionStore({ client: redis, keyPrefix: PREFIX });
  await store.set('gone', RECORD, 10_000);
  await store.delete('gone');
  assert.equal(await store.get('gone'), undefined);
  assert.equal(await redis.exists(store.key('gone')), 0);
  await store.delete('gone');
  await store.delete('never-was');
});

test('unknown and malformed ids are no session, without a Redis round trip for the malformed', async () => {
  const redis = await connectRedis();
  const sent: string[][] = [];
  const spy: RedisCommand = (args) => {
    sent.push(args);
    return redis.call(args[0], args.slice(1));
  };
  const store = new RedisSessionStore({ client: spy, keyPrefix: PREFIX });
  assert.equal(await store.get('unknown'), undefined);
  assert.equal(sent.length, 1);
  for (const bad of ['', 'has space', 'line\nbreak', 'x'.repeat(257), 'ünïcode', undefined as unknown as string, 42 as unknown as string]) {
    assert.equal(await store.get(bad), undefined, JSON.stringify(bad));
    await store.delete(bad);
    assert.equal(await store.touch(bad, 1000), false);
  }
  assert.equal(sent.length, 1, 'malformed ids never reach Redis');
});

test('set refuses bad ids, TTLs and records', async () => {
  const store = new RedisSessionStore({ client: await connectRedis(), keyPrefix: PREFIX });
  await assert.rejects(store.set('', RECORD, 1000), TypeError);
  await assert.rejects(store.set('a b', RECORD, 1000), TypeError);
  for (const ttl of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) await assert.rejects(store.set('ok', RECORD, ttl), RangeError, String(ttl));
  await assert.rejects(store.set('ok', { protocolVersion: 1 } as unknown as SessionRecord, 1000), TypeError);
  await assert.rejects(store.set('ok', { protocolVersion: '2025-06-18' } as unknown as SessionRecord, 1000), TypeError);
  assert.equal(await store.get('ok'), undefined, 'nothing was written');
  // A fractional TTL is rounded up, never to 0 (PX 0 is an error in Redis).
  await store.set('frac', RECORD, 0.4);
});

test('a value that is not a session record reads as no session', async () => {
  const redis = await connectRedis();
  const store = new RedisSessionStore({ client: redis, keyPrefix: PREFIX });
  const cases = [
    'not json',
    '[]',
    'null',
    '{"protocolVersion":1,"clientCapabilities":{}}',
    '{"protocolVersion":"x","clientCapabilities":[]}',
    '{"protocolVersion":"x","clientCapabilities":{},"clientInfo":"y"}',
    '{"protocolVersion":"x","clientCapabilities":{},"principal":7}',
  ];
  for (const [i, text] of cases.entries()) {
    await redis.set(store.key(`odd-${i}`), text, 'PX', 10_000);
    assert.equal(await store.get(`odd-${i}`), undefined, text);
  }
  // Extra fields a newer version might add are not carried over.
  await redis.set(store.key('extra'), JSON.stringify({ ...RECORD, evil: true }), 'PX', 10_000);
  assert.deepEqual(await store.get('extra'), RECORD);
});

test('accepts a node-redis style client (sendCommand) and a command function; refuses anything else', async () => {
  const redis = await connectRedis();
  const nodeRedisLike = { sendCommand: (args: string[]) => redis.call(args[0], args.slice(1)) };
  const a = new RedisSessionStore({ client: nodeRedisLike, keyPrefix: PREFIX });
  await a.set('nr', RECORD, 10_000);
  const b = new RedisSessionStore({ client: (args: string[]) => redis.call(args[0], args.slice(1)), keyPrefix: PREFIX });
  assert.deepEqual(await b.get('nr'), RECORD);
  assert.throws(() => new RedisSessionStore({ client: {} as never }), TypeError);
  assert.throws(() => new RedisSessionStore({ client: redis, keyPrefix: '' }), TypeError);
});

test('Redis errors reach the caller', async () => {
  const store = new RedisSessionStore({ client: async () => Promise.reject(new Error('connection lost')) });
  await assert.rejects(store.get('x'), /connection lost/);
  await assert.rejects(store.set('x', RECORD, 1000), /connection lost/);
  await assert.rejects(store.delete('x'), /connection lost/);
});
