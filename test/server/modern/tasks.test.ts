// The tasks extension (SEP-2663), server side: negotiation, task creation, tasks/get|cancel,
// outcomes, the handshake era, access control and limits. Raw frames over the in-memory pair.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { ErrorCode, McpError } from '../../../src/jsonrpc/errors.js';
import { InMemoryTaskStore, type TaskStore } from '../../../src/state/task-store.js';
import { McpServer, type McpServerOptions } from '../../../src/server/mcp-server.js';
import { assertError, errorSink, M, Wire } from './helpers.js';
import { assertCreated, EXT, gate, settled, TASKS, taskWhere } from './tasks-helpers.js';
import { tasks, type TaskServerOptions } from '../../../src/extensions/tasks/extension.js';
import { flush, ManualClock, sleep, waitFor } from '../../support/index.js';

const INFO = { name: 'tasks', version: '1.0.0' };

function server(options: Partial<McpServerOptions> & { tasks?: TaskServerOptions } = {}) {
  const { tasks: taskOptions, ...rest } = options;
  const s = new McpServer({ ...INFO, onerror: () => {}, ...rest, extensions: [tasks(taskOptions ?? { pollIntervalMs: 250 })] });
  const release = gate();
  const seen: { aborted?: boolean; afterCancel?: string } = {};
  s.tool('sync', { input: { name: z.string() } }, ({ name }) => `Hello, ${name}!`);
  s.tool('job', { input: { n: z.number() }, task: 'optional' }, ({ n }) => ({ content: [{ type: 'text', text: `twice ${n} is ${2 * n}` }] }));
  s.tool('must', { task: 'required' }, () => 'done as a task');
  s.tool('wait', { task: 'optional' }, async (_a, ctx) => {
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      void release.wait().then(resolve);
    });
    seen.aborted = ctx.signal.aborted;
    // Returns anyway: a cancelled task stays cancelled.
    return 'finished after all';
  });
  s.tool('tool-error', { task: 'optional' }, async () => {
    throw new Error('the tool broke');
  });
  s.tool('protocol-error', { task: 'optional' }, async () => {
    throw new McpError(ErrorCode.InvalidParams, 'no such row', { row: 7 });
  });
  return { s, release, seen };
}

test('server/discover advertises the extension (under extensions, never a v1 tasks slot); initialize does not', async () => {
  const { s } = server();
  const w = await Wire.connect(s);
  const d = await w.result('server/discover', {});
  assert.deepEqual(d.capabilities.extensions, { [EXT]: {} });
  assert.equal('tasks' in d.capabilities, false);
  const init = await w.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
  assert.equal('extensions' in init.result!.capabilities, false, 'the handshake era has no extensions');
  // A server without task tools advertises nothing.
  const plain = new McpServer({ ...INFO });
  plain.tool('t', () => 't');
  const w2 = await Wire.connect(plain);
  assert.equal('extensions' in (await w2.result('server/discover', {})).capabilities, false);
});

test('a task tool answers a declaring client with a flat CreateTaskResult; tasks/get resolves at once and then inlines the result', async () => {
  const { s } = server();
  const w = await Wire.connect(s);
  const created = await w.result('tools/call', { name: 'job', arguments: { n: 21 } }, TASKS);
  const id = assertCreated(created, 3_600_000, 250);
  assert.deepEqual(created._meta, { [M.serverInfo]: INFO });
  // Durable before the reply: the very next tasks/get finds it.
  const first = await w.result('tasks/get', { taskId: id }, TASKS);
  assert.equal(first.taskId, id);
  assert.equal(first.resultType, 'complete');
  assert.equal(first.createdAt, created.createdAt);
  const done = await settled(w, id);
  assert.deepEqual(done, {
    resultType: 'complete',
    taskId: id,
    status: 'completed',
    createdAt: created.createdAt,
    lastUpdatedAt: done.lastUpdatedAt,
    ttlMs: 3_600_000,
    pollIntervalMs: 250,
    result: { content: [{ type: 'text', text: 'twice 21 is 42' }] },
    _meta: { [M.serverInfo]: INFO },
  });
  assert.ok(done.lastUpdatedAt >= created.lastUpdatedAt);
});

test('without the extension: an optional tool runs synchronously, a required one is -32021 naming the extension', async () => {
  const { s } = server();
  const w = await Wire.connect(s);
  const r = await w.result('tools/call', { name: 'job', arguments: { n: 2 } }, { elicitation: {} });
  assert.equal(r.resultType, 'complete');
  assert.equal('taskId' in r, false);
  assert.deepEqual(r.content, [{ type: 'text', text: 'twice 2 is 4' }]);
  const f = await w.modern('tools/call', { name: 'must', arguments: {} }, {}, 'req');
  const e = assertError(f, 'req', -32021);
  assert.deepEqual(e.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
  // The extension declared with a non-object value is not a declaration.
  assertError(await w.modern('tools/call', { name: 'must' }, { extensions: { [EXT]: true } }, 'req2'), 'req2', -32021);
});

test('the client never chooses: a legacy task param neither promotes a sync tool nor is an error', async () => {
  const { s } = server();
  const w = await Wire.connect(s);
  const r = await w.result('tools/call', { name: 'sync', arguments: { name: 'legacy' }, task: { ttl: 60000, pollInterval: 100 } }, TASKS);
  assert.equal(r.resultType, 'complete');
  assert.equal('taskId' in r, false);
  assert.deepEqual(r.content, [{ type: 'text', text: 'Hello, legacy!' }]);
});

test('handshake era: task tools are ordinary tools and tasks/* do not exist', async () => {
  const { s } = server();
  const w = await Wire.connect(s);
  // Before 2025-11-25, which has core tasks of its own (test/server/legacy-tasks.test.ts).
  await w.request('initialize', { protocolVersion: '2025-06-18', capabilities: { extensions: { [EXT]: {} } }, clientInfo: { name: 'c', version: '1' } });
  w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const r = await w.request('tools/call', { name: 'must', arguments: {} });
  assert.deepEqual(r.result, { content: [{ type: 'text', text: 'done as a task' }] });
  assertError(await w.request('tasks/get', { taskId: 'x' }, 'g'), 'g', -32601);
  // A task tool's McpError is a protocol error in every mode.
  assertError(await w.request('tools/call', { name: 'protocol-error', arguments: {} }, 'p'), 'p', -32602, /no such row/);
});

test('a tool error completes the task (isError inlined); a JSON-RPC error fails it with the error and no result', async () => {
  const { s } = server();
  const w = await Wire.connect(s);
  const a = await settled(w, (await w.result('tools/call', { name: 'tool-error', arguments: {} }, TASKS)).taskId);
  assert.equal(a.status, 'completed');
  assert.deepEqual(a.result, { content: [{ type: 'text', text: 'the tool broke' }], isError: true });
  assert.equal('error' in a, false);
  const b = await settled(w, (await w.result('tools/call', { name: 'protocol-error', arguments: {} }, TASKS)).taskId);
  assert.equal(b.status, 'failed');
  assert.deepEqual(b.error, { code: -32602, message: 'no such row', data: { row: 7 } });
  assert.equal(b.statusMessage, 'no such row');
  assert.equal('result' in b, false);
  // Argument errors are tool errors too, reported in the task.
  const c = await settled(w, (await w.result('tools/call', { name: 'job', arguments: { n: 'x' } }, TASKS)).taskId);
  assert.equal(c.status, 'completed');
  assert.equal(c.result.isError, true);
});

test('tasks/cancel: an empty ack, the handler sees its signal abort, and the task stays cancelled whatever it returns', async () => {
  const { s, seen } = server();
  const w = await Wire.connect(s);
  const id = (await w.result('tools/call', { name: 'wait', arguments: {} }, TASKS)).taskId;
  assert.equal((await w.result('tasks/get', { taskId: id }, TASKS)).status, 'working');
  const ack = await w.result('tasks/cancel', { taskId: id }, TASKS);
  assert.deepEqual(ack, { resultType: 'complete', _meta: { [M.serverInfo]: INFO } });
  const t = await w.result('tasks/get', { taskId: id }, TASKS);
  assert.equal(t.status, 'cancelled');
  assert.equal('result' in t, false);
  await waitFor(() => seen.aborted === true, 'the handler to see its signal abort');
  await flush(); // the handler's late return is processed
  assert.equal((await w.result('tasks/get', { taskId: id }, TASKS)).status, 'cancelled', 'the late return changed nothing');
  // Cancelling a terminal task is the same ack.
  assert.deepEqual(await w.result('tasks/cancel', { taskId: id }, TASKS), ack);
});

test('tasks/* need the extension (checked before the taskId); unknown ids are -32602; tasks/result and tasks/list are gone', async () => {
  const { s } = server();
  const w = await Wire.connect(s);
  const id = (await w.result('tools/call', { name: 'job', arguments: { n: 1 } }, TASKS)).taskId;
  let n = 0;
  for (const [method, params] of [
    ['tasks/get', { taskId: id }],
    ['tasks/update', { taskId: 'nope', inputResponses: {} }],
    ['tasks/cancel', {}],
  ] as const) {
    const e = assertError(await w.modern(method, params, {}, ++n), n, -32021);
    assert.deepEqual(e.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
  }
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    assertError(await w.modern(method, { taskId: 'tasks-unknown-1', inputResponses: {} }, TASKS, ++n), n, -32602, /no task/);
    assertError(await w.modern(method, { taskId: 42, inputResponses: {} }, TASKS, ++n), n, -32602, /taskId/);
  }
  assertError(await w.modern('tasks/update', { taskId: id, inputResponses: [] }, TASKS, ++n), n, -32602, /inputResponses/);
  for (const method of ['tasks/result', 'tasks/list']) assertError(await w.modern(method, { taskId: id }, TASKS, ++n), n, -32601);
});

test('a task belongs to the principal that created it: anyone else gets exactly the unknown-task error', async () => {
  const { s } = server();
  const alice = await Wire.connect(s, { authInfo: { principal: 'alice' } });
  const bob = await Wire.connect(s, { authInfo: { principal: 'bob' } });
  const anon = await Wire.connect(s);
  const id = (await alice.result('tools/call', { name: 'wait', arguments: {} }, TASKS)).taskId;
  const unknown = assertError(await bob.modern('tasks/get', { taskId: 'tasks-unknown-2' }, TASKS, 1), 1, -32602);
  for (const w of [bob, anon]) {
    assert.deepEqual(assertError(await w.modern('tasks/get', { taskId: id }, TASKS, 2), 2, -32602), unknown);
    assertError(await w.modern('tasks/cancel', { taskId: id }, TASKS, 3), 3, -32602);
  }
  assert.equal((await alice.result('tasks/get', { taskId: id }, TASKS)).status, 'working', "bob's cancel did nothing");
  await alice.result('tasks/cancel', { taskId: id }, TASKS);
});

test('maxTasks caps running tasks: then an optional tool runs synchronously and a required one is -32603', async () => {
  const { s, release } = server({ tasks: { maxTasks: 1 } });
  const w = await Wire.connect(s);
  const id = (await w.result('tools/call', { name: 'wait', arguments: {} }, TASKS)).taskId;
  const sync = await w.result('tools/call', { name: 'job', arguments: { n: 3 } }, TASKS);
  assert.equal(sync.resultType, 'complete');
  assert.deepEqual(sync.content, [{ type: 'text', text: 'twice 3 is 6' }]);
  assertError(await w.modern('tools/call', { name: 'must' }, TASKS, 'm'), 'm', -32603, /Cannot start a task/);
  release.open();
  await settled(w, id);
  // The slot is free again.
  assert.equal((await w.result('tools/call', { name: 'must', arguments: {} }, TASKS)).resultType, 'task');
});

test('ttlMs: readable for its whole TTL, gone after it (-32602); a task still running then is stopped', async () => {
  const clock = new ManualClock();
  const { s, seen } = server({ tasks: { ttlMs: 300, pollIntervalMs: 10, clock } });
  const w = await Wire.connect(s);
  const done = (await w.result('tools/call', { name: 'job', arguments: { n: 1 } }, TASKS)).taskId;
  await settled(w, done);
  const running = await w.result('tools/call', { name: 'wait', arguments: {} }, TASKS);
  assertCreated(running, 300, 10);
  clock.advance(299);
  assert.equal((await w.result('tasks/get', { taskId: done }, TASKS)).status, 'completed', 'still there before its TTL');
  assert.equal((await w.result('tasks/get', { taskId: running.taskId }, TASKS)).status, 'working', 'and the running one too');
  assert.equal(seen.aborted, undefined, 'its handler still runs');
  clock.advance(1);
  assertError(await w.modern('tasks/get', { taskId: done }, TASKS, 'x'), 'x', -32602);
  assertError(await w.modern('tasks/get', { taskId: running.taskId }, TASKS, 'y'), 'y', -32602);
  await waitFor(() => seen.aborted !== undefined, "the expired task's handler to return");
  assert.equal(seen.aborted, true, 'the expired task was stopped');
});

test('server options are checked: ttlMs and pollIntervalMs are positive integers (ttlMs may be null)', () => {
  assert.throws(() => new McpServer({ ...INFO, extensions: [tasks({ ttlMs: 1.5 })] }), /ttlMs/);
  assert.throws(() => new McpServer({ ...INFO, extensions: [tasks({ pollIntervalMs: 0 })] }), /pollIntervalMs/);
  assert.throws(() => new McpServer({ ...INFO, extensions: [tasks()] }).tool('x', { task: 'sometimes' as never }, () => 'x'), /task support/);
  assert.doesNotThrow(() => new McpServer({ ...INFO, extensions: [tasks({ ttlMs: null })] }));
});

test('a task tool without the tasks extension is refused at registration, naming the option; the old tasks option says where it went', () => {
  assert.throws(
    () => new McpServer({ ...INFO }).tool('x', { task: 'optional' }, () => 'x'),
    /Tool "x": unknown option "task": no installed extension reads it/,
  );
  assert.throws(() => new McpServer({ ...INFO, tasks: {} } as never), /extensions: \[tasks\(\{ \.\.\. \}\)\]/);
  assert.throws(() => new McpServer({ ...INFO, extensions: [tasks(), tasks()] }), /installed already/);
});

test('server.close() stops running tasks: they fail, and their handlers see the abort', async () => {
  const sink = errorSink();
  const store = new InMemoryTaskStore();
  const { s, seen } = server({ onerror: sink.onerror, tasks: { store, pollIntervalMs: 250 } });
  const w = await Wire.connect(s);
  const id = (await w.result('tools/call', { name: 'wait', arguments: {} }, TASKS)).taskId;
  await s.close();
  assert.equal(seen.aborted, true);
  const rec = await store.get(id);
  assert.equal(rec?.task.status, 'failed');
  assert.equal(rec?.task.error?.code, -32603);
  assert.deepEqual(sink.errors, []);
});

test('request middleware sees tasks/* like any method', async () => {
  const { s } = server();
  const seen: string[] = [];
  s.use(async (method, _p, _ctx, next) => {
    seen.push(method);
    return next();
  });
  const w = await Wire.connect(s);
  const id = (await w.result('tools/call', { name: 'job', arguments: { n: 1 } }, TASKS)).taskId;
  await taskWhere(w, id, (t) => t.status === 'completed');
  assert.deepEqual([...new Set(seen)], ['tools/call', 'tasks/get']);
});

test('a custom store: the CreateTaskResult waits for a slow create, and every state change is written to it', async () => {
  const inner = new InMemoryTaskStore();
  const writes: string[] = [];
  let created = false;
  const store: TaskStore = {
    create: async (r) => {
      await sleep(30); // a slow store (pacing, not a condition)
      await inner.create(r);
      created = true;
    },
    get: (id) => inner.get(id),
    put: async (r) => {
      writes.push(r.task.status);
      await inner.put(r);
    },
    delete: (id) => inner.delete(id),
  };
  const { s } = server({ tasks: { store } });
  const w = await Wire.connect(s);
  const r = await w.result('tools/call', { name: 'job', arguments: { n: 5 } }, TASKS);
  assert.equal(created, true, 'the reply left only after the store had the task');
  const done = await settled(w, r.taskId);
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'twice 5 is 10' }] });
  assert.deepEqual(writes, ['completed']);
  assert.equal((await inner.get(r.taskId))?.owner, null);
});

test('a full store refuses new tasks: an optional tool then runs synchronously, a required one is -32603', async () => {
  const sink = errorSink();
  const { s, release } = server({ onerror: sink.onerror, tasks: { store: new InMemoryTaskStore({ maxTasks: 1 }) } });
  const w = await Wire.connect(s);
  const id = (await w.result('tools/call', { name: 'job', arguments: { n: 1 } }, TASKS)).taskId;
  await settled(w, id);
  // The finished task still counts until its TTL: the store never drops it early.
  const sync = await w.result('tools/call', { name: 'job', arguments: { n: 4 } }, TASKS);
  assert.deepEqual(sync.content, [{ type: 'text', text: 'twice 4 is 8' }]);
  assertError(await w.modern('tools/call', { name: 'must' }, TASKS, 'full'), 'full', -32603, /store is full/);
  assert.equal((await w.result('tasks/get', { taskId: id }, TASKS)).status, 'completed');
  assert.deepEqual(sink.errors, [], 'a full store is a limit, not an error to report');
  release.open();
});
