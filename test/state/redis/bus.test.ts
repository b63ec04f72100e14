// RedisBus on the real Redis: two instances joined by Redis pub/sub and a RedisTaskStore pass
// the same cross-instance checks as with the in-process bus (test/server/bus.test.ts).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisBus } from '../../../src/state/redis/bus.js';
import { RedisTaskStore } from '../../../src/state/redis/task-store.js';
import { crossInstanceChecks, instance } from '../../server/bus-helpers.js';
import { cleanup, connectRedis, PREFIX } from './helpers.js';
import { sleep } from '../../support/index.js';

after(cleanup);

test('RedisBus: resource updates, logs, list changes, task answers and cancels reach the other instance', async () => {
  const redis = await connectRedis();
  const store = new RedisTaskStore({ client: redis, keyPrefix: PREFIX });
  const a = await instance(new RedisBus({ client: redis, subscriber: await connectRedis(), keyPrefix: PREFIX }), store);
  const b = await instance(new RedisBus({ client: redis, subscriber: await connectRedis(), keyPrefix: PREFIX }), store);
  try {
    await Promise.all([a.mcp.server.bus!.ready, b.mcp.server.bus!.ready]);
    await crossInstanceChecks(a, b);
    assert.deepEqual(
      [...a.errors, ...b.errors].map((e) => e.message),
      [],
    );
  } finally {
    await a.running.close();
    await b.running.close();
  }
});

test('RedisBus: publish and subscribe through the raw channel; stop ends the delivery', async () => {
  const redis = await connectRedis();
  const bus = new RedisBus({ client: redis, subscriber: await connectRedis(), keyPrefix: PREFIX });
  assert.equal(bus.channel, `${PREFIX}bus`);
  const got: string[] = [];
  const stop = await bus.subscribe((m) => got.push(m));
  await bus.publish('one');
  await redis.publish(bus.channel, 'two');
  for (let i = 0; i < 50 && got.length < 2; i++) await sleep(10);
  assert.deepEqual(got, ['one', 'two']);
  await stop();
  await bus.publish('three');
  await sleep(50);
  assert.deepEqual(got, ['one', 'two']);
  assert.throws(() => new RedisBus({ client: redis, subscriber: {} as never }), /subscriber must be/);
});
