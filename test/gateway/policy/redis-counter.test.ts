// Limit counters in the real Redis (127.0.0.1:6379, a key prefix unique to this run): two
// counters on two connections share the numbers, as two gateway instances would; windows and
// buckets expire their keys; and a Redis that fails, hangs or is missing fails open or closed
// as configured, logging the outage once.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { RedisCounter, loadRedis } from '../../../src/gateway/policy/redis-counter.js';
import { Limits } from '../../../src/gateway/policy/limits.js';
import { createPolicy } from '../../../src/gateway/policy/create.js';
import { ManualClock } from '../../support/index.js';
import { cleanup, connectRedis, PREFIX, REDIS_URL } from '../../state/redis/helpers.js';
import { caller, tool } from './helpers.js';

after(cleanup);

const alice = caller('alice');
const bob = caller('bob');

test('two counters on two connections share a fixed window: the limit holds across them', async () => {
  const [r1, r2] = [await connectRedis(), await connectRedis()];
  const keyPrefix = `${PREFIX}window:`;
  const rules = [{ name: 'per-user', limit: 3, windowMs: 60_000 }];
  const a = new Limits(rules, new RedisCounter({ client: r1, keyPrefix }));
  const b = new Limits(rules, new RedisCounter({ client: r2, keyPrefix }));
  assert.deepEqual(await a.admit(alice, tool('x_y')), { ok: true });
  assert.deepEqual(await b.admit(alice, tool('x_y')), { ok: true });
  assert.deepEqual(await a.admit(alice, tool('x_y')), { ok: true });
  const refused = await b.admit(alice, tool('x_y'));
  assert.equal(refused.ok, false);
  assert.ok(!refused.ok && refused.retryAfterMs > 0 && refused.retryAfterMs <= 60_000, JSON.stringify(refused));
  assert.match(!refused.ok ? refused.reason : '', /^Rate limit "per-user" reached \(3 calls per 60s\); retry in \d+s$/);
  assert.equal((await a.admit(alice, tool('x_y'))).ok, false);
  // Bob's count is his own; another prefix is another set of counters.
  assert.equal((await b.admit(bob, tool('x_y'))).ok, true);
  const elsewhere = new Limits(rules, new RedisCounter({ client: r1, keyPrefix: `${PREFIX}other:` }));
  assert.equal((await elsewhere.admit(alice, tool('x_y'))).ok, true);
  // The counter key expires with its window.
  const ttl = await r1.pttl(`${keyPrefix}per-user:alice`);
  assert.ok(ttl > 0 && ttl <= 60_000, String(ttl));
});

test('two counters share a token bucket, refilled by Redis time; the bucket key expires once it would be full', async () => {
  const [r1, r2] = [await connectRedis(), await connectRedis()];
  const keyPrefix = `${PREFIX}bucket:`;
  // One token every 1000 s: nothing refills during the test, whatever the machine's load.
  const rules = [{ name: 'burst', per: 'caller-item' as const, tokenBucket: { capacity: 2, refillPerSecond: 0.001 } }];
  const a = new Limits(rules, new RedisCounter({ client: r1, keyPrefix }));
  const b = new Limits(rules, new RedisCounter({ client: r2, keyPrefix }));
  assert.equal((await a.admit(alice, tool('x_y'))).ok, true);
  assert.equal((await b.admit(alice, tool('x_y'))).ok, true);
  const refused = await a.admit(alice, tool('x_y'));
  assert.ok(!refused.ok && refused.retryAfterMs > 900_000 && refused.retryAfterMs <= 1_000_000, JSON.stringify(refused));
  assert.equal((await b.admit(alice, tool('x_z'))).ok, true);
  const ttl = await r1.pttl(`${keyPrefix}burst:alice:tool:x_y`);
  assert.ok(ttl > 1_000_000 && ttl <= 2_001_000, String(ttl));
});

test('Redis failing: open admits, closed refuses; the outage is logged when it starts and when it ends, not per call', async () => {
  for (const onError of ['open', 'closed'] as const) {
    let down = true;
    let counts = 0;
    const lines: string[] = [];
    const command = async () => {
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      counts++;
      return [1, 0];
    };
    const counter = new RedisCounter({ client: command, onError, log: (l) => lines.push(l) });
    const limits = new Limits([{ name: 'r', limit: 5, windowMs: 1000 }], counter);
    for (let i = 0; i < 3; i++) {
      const a = await limits.admit(alice, tool('x_y'));
      if (onError === 'open') assert.deepEqual(a, { ok: true });
      else assert.deepEqual(a, { ok: false, retryAfterMs: 1000, reason: 'Rate limits cannot be checked right now; try again shortly' });
    }
    assert.equal(counter.failing, true);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      onError === 'open'
        ? /Redis failed \(connect ECONNREFUSED.*\); calls are admitted without limits \(onError: open\)/
        : /calls are refused \(onError: closed\)/,
    );
    down = false;
    assert.deepEqual(await limits.admit(alice, tool('x_y')), { ok: true });
    assert.equal(counts, 1);
    assert.equal(counter.failing, false);
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /Redis answers again after 3 failed count\(s\)/);
  }
});

test('a Redis that does not answer counts as failed after timeoutMs', async () => {
  const clock = new ManualClock(0);
  const lines: string[] = [];
  const counter = new RedisCounter({ client: () => new Promise(() => {}), onError: 'closed', timeoutMs: 250, clock, log: (l) => lines.push(l) });
  const pending = counter.take('k', { kind: 'window', limit: 1, windowMs: 1000 });
  clock.advance(249);
  assert.equal(lines.length, 0);
  clock.advance(1);
  assert.equal((await pending).ok, false);
  assert.match(lines[0]!, /no answer within 250ms/);
  assert.equal(clock.pending, 0);
});

test('an unexpected reply is a failure, not a decision', async () => {
  const lines: string[] = [];
  const counter = new RedisCounter({ client: async () => 'OK', onError: 'closed', log: (l) => lines.push(l) });
  assert.equal((await counter.take('k', { kind: 'window', limit: 1, windowMs: 1000 })).ok, false);
  assert.match(lines[0]!, /unexpected reply "OK"/);
});

test('a Redis URL nobody listens on: ioredis fails the count, the policy fails closed as configured', async () => {
  // A port that was free a moment ago: listen, note it, close.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const lines: string[] = [];
  const policy = createPolicy(
    { limits: { store: { redis: `redis://127.0.0.1:${port}`, onError: 'closed', timeoutMs: 5000 }, rules: [{ limit: 1, windowMs: 1000 }] } },
    { log: (l) => lines.push(l) },
  );
  try {
    const a = await policy.admit(alice, tool('x_y'));
    assert.equal(a.ok, false);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /rate limits: Redis failed \(.+\); calls are refused/);
  } finally {
    await policy.close();
  }
});

test('ioredis missing: the first count says what to install, and the process lives on', async () => {
  const lines: string[] = [];
  const loaded = loadRedis('redis://127.0.0.1:6379', () => Promise.reject(new Error("Cannot find package 'ioredis'")));
  const counter = new RedisCounter({ client: loaded.client, onError: 'open', log: (l) => lines.push(l) });
  assert.equal((await counter.take('k', { kind: 'window', limit: 1, windowMs: 1000 })).ok, true);
  assert.match(lines[0]!, /needs the "ioredis" package, which could not be loaded \(Cannot find package 'ioredis'\): run `npm i ioredis`/);
  await loaded.close();
});

test('two policies from the same config (two gateway instances) share limits through the Redis URL', async () => {
  const config = {
    limits: { store: { redis: REDIS_URL, keyPrefix: `${PREFIX}policy:` }, rules: [{ name: 'per-user', limit: 2, windowMs: 60_000 }] },
  };
  const one = createPolicy(config);
  const two = createPolicy(config);
  try {
    assert.equal((await one.admit(alice, tool('x_y'))).ok, true);
    assert.equal((await two.admit(alice, tool('x_y'))).ok, true);
    assert.equal((await one.admit(alice, tool('x_y'))).ok, false);
    assert.equal((await two.admit(alice, tool('x_y'))).ok, false);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});
