// RedisTaskStore against the real Redis: the store contract, and two instances sharing task
// state (a task run by one is read and cancelled through the other).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import type { TaskRecord } from '../../../src/state/task-store.js';
import { serve, type RunningServer } from '../../../src/serving/node.js';
import { RedisTaskStore } from '../../../src/state/redis/task-store.js';
import { M, V } from '../../server/modern/helpers.js';
import { cleanup, connectRedis, PREFIX } from './helpers.js';
import { tasks } from '../../../src/extensions/tasks/extension.js';
import { sleep } from '../../support/index.js';

after(cleanup);

const EXT = 'io.modelcontextprotocol/tasks';

function record(taskId: string, status: TaskRecord['task']['status'], expiresAt: number | null = Date.now() + 60_000): TaskRecord {
  const now = new Date().toISOString();
  return { task: { taskId, status, createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 100 }, owner: null, expiresAt };
}

test('RedisTaskStore: create, get, put, delete; create refuses an id in use; put never revives a task', async () => {
  const redis = await connectRedis();
  const store = new RedisTaskStore({ client: redis, keyPrefix: PREFIX });
  await store.create(record('t-1', 'working'));
  assert.equal((await store.get('t-1'))?.task.status, 'working');
  assert.ok((await redis.pttl(store.key('t-1'))) > 59_000, 'the key carries the task TTL');
  await assert.rejects(store.create(record('t-1', 'working')), /already exists/);

  await store.put(record('t-1', 'input_required'));
  assert.equal((await store.get('t-1'))?.task.status, 'input_required');
  assert.ok((await redis.pttl(store.key('t-1'))) > 50_000, 'put keeps the TTL');

  await store.delete('t-1');
  assert.equal(await store.get('t-1'), undefined);
  await store.put(record('t-1', 'working'));
  assert.equal(await store.get('t-1'), undefined, 'a dropped task stays dropped');
  assert.equal(await store.get('no such task'), undefined);
});

test('RedisTaskStore: a terminal status is final, whoever writes after it', async () => {
  const redis = await connectRedis();
  const store = new RedisTaskStore({ client: redis, keyPrefix: PREFIX });
  for (const final of ['completed', 'failed', 'cancelled'] as const) {
    const id = `t-final-${final}`;
    await store.create(record(id, 'working'));
    await store.put(record(id, final));
    await store.put(record(id, 'working'));
    await store.put(record(id, final === 'completed' ? 'failed' : 'completed'));
    assert.equal((await store.get(id))?.task.status, final);
  }
});

test('RedisTaskStore: expiry comes from Redis; foreign or malformed values are no task', async () => {
  const redis = await connectRedis();
  const store = new RedisTaskStore({ client: redis, keyPrefix: PREFIX });
  await store.create(record('t-short', 'working', Date.now() + 150));
  assert.ok(await store.get('t-short'));
  await sleep(250);
  assert.equal(await store.get('t-short'), undefined);
  assert.equal(await redis.exists(store.key('t-short')), 0, 'Redis dropped the key itself');

  await store.create(record('t-forever', 'working', null));
  assert.equal(await redis.pttl(store.key('t-forever')), -1, 'ttlMs null: no expiry');

  await redis.set(store.key('t-junk'), 'not json');
  assert.equal(await store.get('t-junk'), undefined);
  await redis.set(store.key('t-other'), JSON.stringify(record('someone-else', 'working')));
  assert.equal(await store.get('t-other'), undefined, 'a record must name the task it is stored under');
});

// ------------------------------------------------------------------ two instances, one Redis

let release: () => void = () => {};

async function instance(store: RedisTaskStore): Promise<{ running: RunningServer; url: string }> {
  const mcp = new McpServer({ name: 'scaled-tasks', version: '1.0.0', onerror: () => {}, extensions: [tasks({ store, pollIntervalMs: 50 })] });
  mcp.tool('long', { input: { label: z.string() }, task: 'required' }, async ({ label }) => {
    await new Promise<void>((resolve) => (release = resolve));
    return `done: ${label}`;
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1' });
  return { running, url: running.url };
}

let nextId = 1;
async function call(url: string, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const name = method === 'tools/call' ? params.name : params.taskId;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': V, 'mcp-method': method, 'mcp-name': String(name) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: { extensions: { [EXT]: {} } } } },
    }),
  });
  const body = (await res.json()) as Record<string, any>;
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.result;
}

test('two instances sharing a RedisTaskStore: one runs the task, the other reports it, and a cancel there is final', async () => {
  const redis = await connectRedis();
  const a = await instance(new RedisTaskStore({ client: redis, keyPrefix: PREFIX }));
  const b = await instance(new RedisTaskStore({ client: redis, keyPrefix: PREFIX }));
  try {
    // Runs on A; B, which has never seen it, answers tasks/get from Redis.
    const created = await call(a.url, 'tools/call', { name: 'long', arguments: { label: 'one' } });
    assert.equal(created.resultType, 'task');
    const onB = await call(b.url, 'tasks/get', { taskId: created.taskId });
    assert.equal(onB.taskId, created.taskId);
    assert.equal(onB.status, 'working');
    release();
    let done: Record<string, any> = onB;
    for (let i = 0; i < 100 && done.status === 'working'; i++) {
      await sleep(20);
      done = await call(b.url, 'tasks/get', { taskId: created.taskId });
    }
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'done: one' }]);

    // Cancelled through B while A still runs it: A finishing later does not undo the cancel.
    const second = await call(a.url, 'tools/call', { name: 'long', arguments: { label: 'two' } });
    const ack = await call(b.url, 'tasks/cancel', { taskId: second.taskId });
    assert.equal(ack.resultType, 'complete');
    assert.equal(ack.taskId, undefined, 'an empty ack, not the task');
    release();
    await sleep(100);
    for (const url of [a.url, b.url]) {
      const t = await call(url, 'tasks/get', { taskId: second.taskId });
      assert.equal(t.status, 'cancelled', url);
      assert.equal(t.result, undefined);
    }
  } finally {
    release();
    await a.running.close();
    await b.running.close();
  }
});
