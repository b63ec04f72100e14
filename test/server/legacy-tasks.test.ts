// 2025-11-25 experimental core tasks (SEP-1686) served to handshake sessions, over an
// in-memory pair: capability and execution.taskSupport per revision, augmentation, tasks/*.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import { createTestPair } from '../../src/testing/index.js';
import { rejectsWithCode } from './helpers.js';
import { tasks } from '../../src/extensions/tasks/extension.js';
import { ManualClock, waitFor } from '../support/index.js';

const RELATED = 'io.modelcontextprotocol/related-task';

function build(options: { maxTasks?: number; ttlMs?: number; clock?: ManualClock } = {}): { mcp: McpServer; release: () => void } {
  const mcp = new McpServer({ name: 'legacy-tasks', version: '1.0.0', extensions: [tasks(options)] });
  let release!: () => void;
  let gate = new Promise<void>((r) => (release = r));
  mcp.tool('plain', () => 'plain');
  mcp.tool('quick', { task: 'optional' }, () => 'quick done');
  mcp.tool('slow', { task: 'required' }, async (_args, ctx) => {
    await gate;
    gate = new Promise<void>((r) => (release = r));
    return `slow done ${ctx.taskId === undefined ? 'untasked' : 'tasked'}`;
  });
  mcp.tool('broken', { task: 'optional' }, () => {
    throw new Error('kaput');
  });
  return { mcp, release: () => release() };
}

interface Task {
  taskId: string;
  status: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
  statusMessage?: string;
}

test('capability and execution.taskSupport appear only at 2025-11-25', async () => {
  const { mcp } = build();
  const latest = await createTestPair(mcp, { protocolVersion: '2025-11-25' });
  assert.deepEqual((latest.initialize.serverCapabilities as JsonObject).tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const tools = (await latest.client.request('tools/list', {})).tools as Array<{ name: string; execution?: unknown }>;
  assert.deepEqual(Object.fromEntries(tools.map((t) => [t.name, t.execution])), {
    plain: undefined,
    quick: { taskSupport: 'optional' },
    slow: { taskSupport: 'required' },
    broken: { taskSupport: 'optional' },
  });
  await latest.close();

  const older = await createTestPair(mcp, { protocolVersion: '2025-06-18' });
  assert.equal(older.initialize.protocolVersion, '2025-06-18');
  assert.equal((older.initialize.serverCapabilities as JsonObject).tasks, undefined);
  const olderTools = (await older.client.request('tools/list', {})).tools as Array<{ execution?: unknown }>;
  assert.ok(olderTools.every((t) => t.execution === undefined));
  // Before 2025-11-25 a task tool is an ordinary tool, and tasks/* do not exist.
  const r = (await older.client.request('tools/call', { name: 'quick', arguments: {} })) as JsonObject;
  assert.deepEqual(r.content, [{ type: 'text', text: 'quick done' }]);
  await rejectsWithCode(older.client.request('tasks/list', {}), ErrorCode.MethodNotFound);
  await older.close();

  const bare = new McpServer({ name: 'no-tasks', version: '1.0.0' });
  bare.tool('plain', () => 'plain');
  const none = await createTestPair(bare, { protocolVersion: '2025-11-25' });
  assert.equal((none.initialize.serverCapabilities as JsonObject).tasks, undefined);
  await none.close();
});

test('augmented call → CreateTaskResult; get, result, list; isError → failed', async () => {
  const { mcp, release } = build();
  const { client, close } = await createTestPair(mcp, { protocolVersion: '2025-11-25' });
  const created = (await client.request('tools/call', { name: 'slow', arguments: {}, task: { ttl: 60_000 } })) as unknown as { task: Task };
  const task = created.task;
  assert.equal(task.status, 'working');
  assert.equal(task.ttl, 60_000);
  assert.equal(typeof task.pollInterval, 'number');
  assert.ok(!Number.isNaN(Date.parse(task.createdAt)) && !Number.isNaN(Date.parse(task.lastUpdatedAt)));

  const got = (await client.request('tasks/get', { taskId: task.taskId })) as unknown as Task;
  assert.equal(got.status, 'working');
  const result = client.request('tasks/result', { taskId: task.taskId });
  release();
  const r = (await result) as JsonObject;
  assert.deepEqual(r.content, [{ type: 'text', text: 'slow done tasked' }]);
  assert.deepEqual((r._meta as JsonObject)[RELATED], { taskId: task.taskId });
  assert.equal(((await client.request('tasks/get', { taskId: task.taskId })) as unknown as Task).status, 'completed');

  const broken = ((await client.request('tools/call', { name: 'broken', arguments: {}, task: {} })) as unknown as { task: Task }).task;
  const failed = (await client.request('tasks/result', { taskId: broken.taskId })) as JsonObject;
  assert.equal(failed.isError, true);
  assert.equal(((await client.request('tasks/get', { taskId: broken.taskId })) as unknown as Task).status, 'failed');

  const listed = (await client.request('tasks/list', {})) as unknown as { tasks: Task[] };
  assert.deepEqual(listed.tasks.map((t) => t.taskId).sort(), [task.taskId, broken.taskId].sort());
  // The server caps the TTL: a longer one asked for is shortened.
  const capped = ((await client.request('tools/call', { name: 'quick', arguments: {}, task: { ttl: 1e12 } })) as unknown as { task: Task }).task;
  assert.equal(capped.ttl, 3_600_000);
  await close();
});

test('cancel, -32601 and -32602 cases, tasks bound to their session', async () => {
  const { mcp } = build();
  const a = await createTestPair(mcp, { protocolVersion: '2025-11-25' });
  const b = await createTestPair(mcp, { protocolVersion: '2025-11-25' });
  // A plain call to a required tool, and an augmented call to a tool without task support.
  await rejectsWithCode(a.client.request('tools/call', { name: 'slow', arguments: {} }), ErrorCode.MethodNotFound);
  await rejectsWithCode(a.client.request('tools/call', { name: 'plain', arguments: {}, task: {} }), ErrorCode.MethodNotFound);
  // An optional tool called plainly runs as usual.
  assert.deepEqual(((await a.client.request('tools/call', { name: 'quick', arguments: {} })) as JsonObject).content, [{ type: 'text', text: 'quick done' }]);

  const task = ((await a.client.request('tools/call', { name: 'slow', arguments: {}, task: {} })) as unknown as { task: Task }).task;
  await rejectsWithCode(b.client.request('tasks/get', { taskId: task.taskId }), ErrorCode.InvalidParams);
  await rejectsWithCode(b.client.request('tasks/cancel', { taskId: task.taskId }), ErrorCode.InvalidParams);
  assert.deepEqual(((await b.client.request('tasks/list', {})) as unknown as { tasks: Task[] }).tasks, []);
  await rejectsWithCode(a.client.request('tasks/get', { taskId: 'nope' }), ErrorCode.InvalidParams);
  await rejectsWithCode(a.client.request('tasks/result', { taskId: 'nope' }), ErrorCode.InvalidParams);

  const waiting = a.client.request('tasks/result', { taskId: task.taskId });
  const cancelled = (await a.client.request('tasks/cancel', { taskId: task.taskId })) as unknown as Task;
  assert.equal(cancelled.status, 'cancelled');
  await assert.rejects(waiting);
  await rejectsWithCode(a.client.request('tasks/cancel', { taskId: task.taskId }), ErrorCode.InvalidParams, /already cancelled/);
  await a.close();
  await b.close();
});

test('status notifications carry the full task; expired tasks are unknown', async () => {
  const clock = new ManualClock();
  const { mcp } = build({ ttlMs: 50, clock });
  const { client, wire, close } = await createTestPair(mcp, { protocolVersion: '2025-11-25' });
  const task = ((await client.request('tools/call', { name: 'quick', arguments: {}, task: {} })) as unknown as { task: Task }).task;
  await waitFor(async () => wire.messages('notifications/tasks/status').length > 0);
  const note = wire.messages('notifications/tasks/status')[0].params as unknown as Task;
  assert.equal(note.taskId, task.taskId);
  assert.equal(note.status, 'completed');
  assert.equal(note.ttl, 50);
  clock.advance(49);
  assert.equal(((await client.request('tasks/get', { taskId: task.taskId })) as unknown as Task).status, 'completed', 'readable for its whole TTL');
  clock.advance(1);
  await rejectsWithCode(client.request('tasks/get', { taskId: task.taskId }), ErrorCode.InvalidParams);
  await close();
});

test('the running-task cap refuses new tasks', async () => {
  const { mcp, release } = build({ maxTasks: 1 });
  const { client, close } = await createTestPair(mcp, { protocolVersion: '2025-11-25' });
  const first = ((await client.request('tools/call', { name: 'slow', arguments: {}, task: {} })) as unknown as { task: Task }).task;
  await rejectsWithCode(client.request('tools/call', { name: 'slow', arguments: {}, task: {} }), ErrorCode.InternalError);
  release();
  await client.request('tasks/result', { taskId: first.taskId });
  await client.request('tools/call', { name: 'quick', arguments: {}, task: {} });
  await close();
});

test('a question of a task waits for tasks/result and travels on it, tagged with the task', async () => {
  const mcp = new McpServer({ name: 'ask', version: '1.0.0', extensions: [tasks()] });
  mcp.tool('ask', { task: 'required' }, async (_args, ctx) => {
    const a = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(a.content?.name)}`;
  });
  const questions: JsonObject[] = [];
  const { client, wire, close } = await createTestPair(mcp, {
    protocolVersion: '2025-11-25',
    elicitation: (params: unknown) => {
      questions.push(params as JsonObject);
      return { action: 'accept' as const, content: { name: 'Ada' } };
    },
  });
  const task = ((await client.request('tools/call', { name: 'ask', arguments: {}, task: {} })) as unknown as { task: Task }).task;
  await waitFor(async () => ((await client.request('tasks/get', { taskId: task.taskId })) as unknown as Task).status === 'input_required');
  // Nothing pending to carry it yet: the question is queued, not sent.
  assert.equal(questions.length, 0);
  const r = (await client.request('tasks/result', { taskId: task.taskId })) as JsonObject;
  assert.deepEqual(r.content, [{ type: 'text', text: 'hello Ada' }]);
  assert.equal(questions.length, 1);
  assert.deepEqual((questions[0]._meta as JsonObject)[RELATED], { taskId: task.taskId });
  // The elicitation went out after (and on behalf of) the tasks/result request.
  const order = wire.methods().filter((m) => m.includes('tasks/result') || m.includes('elicitation/create'));
  assert.deepEqual(order, ['→ tasks/result', '← elicitation/create']);
  await close();
});
