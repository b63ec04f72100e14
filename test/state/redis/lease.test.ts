// RedisInstanceLease against the real Redis, and what the stores do with it: a stream of an
// instance that is gone ends with an error per unanswered request, a task it left running fails.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { ABANDONED_MESSAGE, RedisEventStore } from '../../../src/state/redis/event-store.js';
import { RedisInstanceLease } from '../../../src/state/redis/lease.js';
import { ORPHANED_TASK_MESSAGE, RedisTaskStore } from '../../../src/state/redis/task-store.js';
import type { TaskRecord } from '../../../src/state/task-store.js';
import { cleanup, connectRedis, PREFIX } from './helpers.js';
import { waitFor } from '../../support/index.js';

after(cleanup);

const progress = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } });
const result = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, result: { content: [] } });

async function replay(store: RedisEventStore, from: string): Promise<JsonRpcMessage[]> {
  const out: JsonRpcMessage[] = [];
  await store.replayEventsAfter(from, (_id, m) => out.push(m));
  return out;
}

test('RedisInstanceLease: alive while renewed, gone at close or when its key runs out', async () => {
  const redis = await connectRedis();
  const a = new RedisInstanceLease({ client: redis, keyPrefix: PREFIX, instanceId: 'lease-a', leaseMs: 60_000 });
  const b = new RedisInstanceLease({ client: redis, keyPrefix: PREFIX, instanceId: 'lease-b' });
  await a.start();
  assert.ok((await redis.pttl(a.key())) > 50_000);
  assert.equal(await b.alive('lease-a'), true);
  assert.equal(await b.alive('no-such-instance'), false);
  assert.equal(await b.alive('not an id!'), false);
  await a.close();
  assert.equal(await b.alive('lease-a'), false, 'given up at close');
  assert.equal(await a.alive('lease-a'), false, 'closed: not alive to itself either');
  // A killed instance just stops renewing: its key runs out on its own. (The key gets its short
  // life after the check that it counts while there: a busy machine may take 100 ms between two
  // Redis commands.)
  await redis.set(b.key('ghost'), '1');
  assert.equal(await b.alive('ghost'), true);
  await redis.pexpire(b.key('ghost'), 100);
  await waitFor(async () => !(await b.alive('ghost')), 'the ghost lease to run out');
  assert.throws(() => new RedisInstanceLease({ client: redis, leaseMs: 0 }), /leaseMs must be a positive number/);
});

test("RedisEventStore with a lease: a dead instance's unanswered stream ends with one error per request, once", async () => {
  const redis = await connectRedis();
  const leaseA = new RedisInstanceLease({ client: redis, keyPrefix: PREFIX, instanceId: 'ev-a' });
  const leaseB = new RedisInstanceLease({ client: redis, keyPrefix: PREFIX, instanceId: 'ev-b' });
  await leaseA.start();
  await leaseB.start();
  const a = new RedisEventStore({ client: redis, keyPrefix: PREFIX, lease: leaseA });
  const b = new RedisEventStore({ client: redis, keyPrefix: PREFIX, lease: leaseB });
  assert.equal(a.instanceId, 'ev-a');
  assert.throws(() => new RedisEventStore({ client: redis, lease: leaseA, instanceId: 'other' }), /lease's instanceId/);
  try {
    const cut = a.primingEventId('s/x.1');
    await a.storeEvent('s/x.1', progress(1), [7]);
    const done = a.primingEventId('s/x.2');
    await a.storeEvent('s/x.2', progress(1), [8]);
    await a.storeEvent('s/x.2', result(8), [8]);
    const bare = a.primingEventId('s/x.3');
    await a.storeEvent('s/x.3', progress(1)); // no request ids (a GET stream)

    assert.deepEqual(await replay(b, cut), [progress(1)], 'A alive: what is stored, nothing more');
    await leaseA.close();
    const expected = { jsonrpc: '2.0', id: 7, error: { code: -32603, message: ABANDONED_MESSAGE } };
    assert.deepEqual(await replay(b, cut), [progress(1), expected]);
    assert.deepEqual(await replay(b, cut), [progress(1), expected], 'added once, then replayed like any event');
    assert.deepEqual(await replay(b, done), [progress(1), result(8)], 'an answered stream stays as it was');
    assert.deepEqual(await replay(b, bare), [progress(1)], 'no requests, nothing to answer');
  } finally {
    await leaseB.close();
  }
});

test('RedisTaskStore with a lease: a task left working by a dead instance fails, for good', async () => {
  const redis = await connectRedis();
  const leaseA = new RedisInstanceLease({ client: redis, keyPrefix: PREFIX, instanceId: 'task-a' });
  const leaseB = new RedisInstanceLease({ client: redis, keyPrefix: PREFIX, instanceId: 'task-b' });
  await leaseA.start();
  await leaseB.start();
  const a = new RedisTaskStore({ client: redis, keyPrefix: PREFIX, lease: leaseA });
  const b = new RedisTaskStore({ client: redis, keyPrefix: PREFIX, lease: leaseB });
  const now = new Date().toISOString();
  const record = (taskId: string, status: TaskRecord['task']['status']): TaskRecord => ({
    task: { taskId, status, createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 100 },
    owner: null,
    expiresAt: Date.now() + 60_000,
  });
  try {
    await a.create(record('lt-1', 'working'));
    await a.create(record('lt-2', 'working'));
    await a.put(record('lt-2', 'completed'));
    const read = await b.get('lt-1');
    assert.equal(read?.task.status, 'working');
    assert.equal((read as unknown as Record<string, unknown>).instance, undefined, 'the instance stays inside the store');

    await leaseA.close();
    const failed = await b.get('lt-1');
    assert.equal(failed?.task.status, 'failed');
    assert.equal(failed?.task.statusMessage, ORPHANED_TASK_MESSAGE);
    assert.deepEqual(failed?.task.error, { code: -32603, message: ORPHANED_TASK_MESSAGE });
    assert.equal((await b.get('lt-2'))?.task.status, 'completed', 'a finished task is left alone');
    await a.put(record('lt-1', 'completed'));
    assert.equal((await b.get('lt-1'))?.task.status, 'failed', 'a late finish does not undo it');

    // The same when the lease simply runs out (a killed process renews nothing).
    await redis.set(leaseB.key('task-ghost'), '1', 'PX', 100);
    await redis.set(b.key('lt-3'), JSON.stringify({ ...record('lt-3', 'working'), instance: 'task-ghost' }), 'PX', 60_000);
    assert.equal((await b.get('lt-3'))?.task.status, 'working');
    await waitFor(async () => (await b.get('lt-3'))?.task.status === 'failed', 'the orphaned task to fail');
  } finally {
    await leaseB.close();
  }
});
