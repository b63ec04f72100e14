// The tasks extension (SEP-2663): input inside a task (input_required, tasks/update), the
// MRTR → task composition (ctx.startTask), and status notifications on listen streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { assertError, M, meta, Wire, type Frame } from './helpers.js';
import { assertCreated, EXT, settled, TASKS, taskWhere } from './tasks-helpers.js';
import { tasks } from '../../../src/extensions/tasks/extension.js';
import { flush } from '../../support/index.js';

const INFO = { name: 'tasks-input', version: '1.0.0' };
const FORM = { type: 'object' as const, properties: { name: { type: 'string' as const } } };
const ACCEPT = (name: string) => ({ action: 'accept', content: { name } });

function server() {
  const s = new McpServer({ ...INFO, onerror: () => {}, extensions: [tasks({ pollIntervalMs: 100 })] });
  s.tool('ask', { task: 'optional' }, async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Your name?', requestedSchema: FORM });
    return `Hello, ${String(r.content?.name)} (${ctx.taskId === undefined ? 'sync' : 'task'})`;
  });
  s.tool('two', { task: 'optional' }, async (_a, ctx) => {
    const [a, b] = await Promise.all([ctx.elicit({ message: 'First?', requestedSchema: FORM }), ctx.elicit({ message: 'Second?', requestedSchema: FORM })]);
    return `${String(a.content?.name)} & ${String(b.content?.name)}`;
  });
  s.tool('steps', { task: 'optional' }, async (_a, ctx) => {
    const a = await ctx.elicit({ message: 'Step 1', requestedSchema: FORM });
    const b = await ctx.elicit({ message: 'Step 2', requestedSchema: FORM }, { key: 'elicit-1' });
    return `${String(a.content?.name)} then ${String(b.content?.name)}`;
  });
  s.tool('mixed', { task: 'optional' }, async (_a, ctx) => {
    const [roots, sampled] = await Promise.all([
      ctx.roots({ key: 'where' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 }),
    ]);
    return `${roots.length} roots, ${(sampled.content as { text: string }).text}`;
  });
  // MRTR first, then the handler makes the task.
  s.tool('escalate', { task: { support: 'required', start: 'handler' } }, async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Your name?', requestedSchema: FORM }, { key: 'user_name' });
    const before = ctx.taskId;
    await ctx.startTask();
    // In the task now: this question parks the task instead of ending a round.
    const again = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `${String(r.content?.name)} ${String(again.content?.ok)} before=${String(before)} task=${ctx.taskId === undefined ? 'no' : 'yes'}`;
  });
  s.tool('maybe', { task: { support: 'optional', start: 'handler' } }, async (_a, ctx) => {
    await ctx.startTask();
    return ctx.taskId === undefined ? 'ran synchronously' : 'ran as a task';
  });
  return s;
}

test('a task that asks parks in input_required with the question on tasks/get; tasks/update resumes it', async () => {
  const w = await Wire.connect(server());
  const created = await w.result('tools/call', { name: 'ask', arguments: {} }, TASKS);
  const id = assertCreated(created, 3_600_000, 100);
  const parked = await taskWhere(w, id, (t) => t.status === 'input_required');
  assert.deepEqual(parked.inputRequests, { 'elicit-1': { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: FORM } } });
  assert.equal('requestState' in parked, false);
  // No server-to-client request ever went on the wire.
  assert.equal(w.frames.filter((f) => f.method !== undefined).length, 0);
  const ack = await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-1': ACCEPT('Ada'), stray: { action: 'accept' } } }, TASKS);
  assert.deepEqual(ack, { resultType: 'complete', _meta: { [M.serverInfo]: INFO } });
  const done = await settled(w, id);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'Hello, Ada (task)' }] });
  assert.equal('inputRequests' in done, false);
});

test('partial answers: the task stays input_required listing only what is still open, and resumes when all are in', async () => {
  const w = await Wire.connect(server());
  const id = (await w.result('tools/call', { name: 'two', arguments: {} }, TASKS)).taskId;
  const parked = await taskWhere(w, id, (t) => t.status === 'input_required');
  assert.deepEqual(Object.keys(parked.inputRequests).sort(), ['elicit-1', 'elicit-2']);
  await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-2': ACCEPT('second') } }, TASKS);
  const half = await w.result('tasks/get', { taskId: id }, TASKS);
  assert.equal(half.status, 'input_required');
  assert.deepEqual(Object.keys(half.inputRequests), ['elicit-1']);
  // An answered key cannot be answered again.
  await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-2': ACCEPT('changed') } }, TASKS);
  await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-1': ACCEPT('first') } }, TASKS);
  const done = await settled(w, id);
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'first & second' }] });
});

test('a malformed answer is -32602 and changes nothing; keys are never reused within a task', async () => {
  const w = await Wire.connect(server());
  const id = (await w.result('tools/call', { name: 'steps', arguments: {} }, TASKS)).taskId;
  await taskWhere(w, id, (t) => t.status === 'input_required');
  assertError(await w.modern('tasks/update', { taskId: id, inputResponses: { 'elicit-1': 12345 } }, TASKS, 'bad'), 'bad', -32602, /elicit-1.*ElicitResult/);
  assertError(await w.modern('tasks/update', { taskId: id, inputResponses: { 'elicit-1': { action: 'maybe' } } }, TASKS, 'bad2'), 'bad2', -32602);
  assert.deepEqual(Object.keys((await w.result('tasks/get', { taskId: id }, TASKS)).inputRequests), ['elicit-1']);
  await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-1': ACCEPT('one') } }, TASKS);
  // The second question asks for the key "elicit-1" again: refused, which the tool reports.
  const done = await settled(w, id);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.isError, true);
  assert.match(done.result.content[0].text, /already used/);
});

test('roots and sampling park the task too, each answer checked against its question', async () => {
  const w = await Wire.connect(server());
  const caps = { ...TASKS, roots: {}, sampling: {} };
  const id = (await w.result('tools/call', { name: 'mixed', arguments: {} }, caps)).taskId;
  const parked = await taskWhere(w, id, (t) => t.status === 'input_required', caps);
  assert.deepEqual(parked.inputRequests.where, { method: 'roots/list' });
  assert.equal(parked.inputRequests['sample-1'].method, 'sampling/createMessage');
  assertError(await w.modern('tasks/update', { taskId: id, inputResponses: { where: { roots: 'x' } } }, caps, 'r'), 'r', -32602, /ListRootsResult/);
  await w.result(
    'tasks/update',
    {
      taskId: id,
      inputResponses: { where: { roots: [{ uri: 'file:///a' }] }, 'sample-1': { role: 'assistant', content: { type: 'text', text: 'Hey' }, model: 'm' } },
    },
    caps,
  );
  assert.deepEqual((await settled(w, id, caps)).result, { content: [{ type: 'text', text: '1 roots, Hey' }] });
});

test('cancelling a task that waits for input ends the wait; the task is cancelled', async () => {
  const w = await Wire.connect(server());
  const id = (await w.result('tools/call', { name: 'ask', arguments: {} }, TASKS)).taskId;
  await taskWhere(w, id, (t) => t.status === 'input_required');
  await w.result('tasks/cancel', { taskId: id }, TASKS);
  const t = await w.result('tasks/get', { taskId: id }, TASKS);
  assert.equal(t.status, 'cancelled');
  assert.equal('inputRequests' in t, false);
  // Late answers are acknowledged and ignored.
  await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-1': ACCEPT('late') } }, TASKS);
  await flush(); // whatever the late answer could set off has run (in-memory, no timers)
  assert.equal((await w.result('tasks/get', { taskId: id }, TASKS)).status, 'cancelled');
});

test('without the extension the same tool asks through MRTR rounds, as any tool does', async () => {
  const w = await Wire.connect(server());
  const r1 = await w.result('tools/call', { name: 'ask', arguments: {} }, { elicitation: {} });
  assert.equal(r1.resultType, 'input_required');
  const r2 = await w.result(
    'tools/call',
    { name: 'ask', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('Bo') }, requestState: r1.requestState },
    { elicitation: {} },
  );
  assert.deepEqual(r2.content, [{ type: 'text', text: 'Hello, Bo (sync)' }]);
});

test('MRTR then task: round 1 is a plain input_required; the round that calls ctx.startTask() answers with the task', async () => {
  const w = await Wire.connect(server());
  const r1 = await w.result('tools/call', { name: 'escalate', arguments: {} }, TASKS);
  assert.equal(r1.resultType, 'input_required');
  assert.equal('taskId' in r1, false);
  assert.deepEqual(Object.keys(r1.inputRequests), ['user_name']);
  const r2 = await w.result(
    'tools/call',
    { name: 'escalate', arguments: {}, inputResponses: { user_name: ACCEPT('Alice') }, requestState: r1.requestState },
    TASKS,
  );
  const id = assertCreated(r2, 3_600_000, 100);
  const parked = await taskWhere(w, id, (t) => t.status === 'input_required');
  assert.deepEqual(Object.keys(parked.inputRequests), ['elicit-1']);
  await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-1': { action: 'accept', content: { ok: true } } } }, TASKS);
  const done = await settled(w, id);
  assert.deepEqual(done.result, { content: [{ type: 'text', text: 'Alice true before=undefined task=yes' }] });
  // Required: a client without the extension is refused before the handler runs.
  assertError(await w.modern('tools/call', { name: 'escalate', arguments: {} }, { elicitation: {} }, 'no'), 'no', -32021);
});

test('ctx.startTask() changes nothing where no task can be made (no extension; the handshake era)', async () => {
  const s = server();
  const w = await Wire.connect(s);
  assert.deepEqual((await w.result('tools/call', { name: 'maybe', arguments: {} }, {})).content, [{ type: 'text', text: 'ran synchronously' }]);
  const t = await w.result('tools/call', { name: 'maybe', arguments: {} }, TASKS);
  assert.deepEqual((await settled(w, t.taskId)).result, { content: [{ type: 'text', text: 'ran as a task' }] });
  const h = await Wire.connect(s);
  await h.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
  assert.deepEqual((await h.request('tools/call', { name: 'maybe', arguments: {} })).result, { content: [{ type: 'text', text: 'ran synchronously' }] });
});

test("notifications/tasks: a listen stream with taskIds gets every state of the caller's own tasks, tagged", async () => {
  const s = server();
  const w = await Wire.connect(s);
  const id = (await w.result('tools/call', { name: 'ask', arguments: {} }, TASKS)).taskId;
  await taskWhere(w, id, (t) => t.status === 'input_required');
  w.send({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { _meta: meta(TASKS), notifications: { taskIds: [id, 'tasks-unknown', 7] } } });
  const ack = await w.waitFor('ack', (f) => f.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params, { notifications: { taskIds: [id] }, _meta: { [M.subscriptionId]: 'L' } });
  await w.result('tasks/update', { taskId: id, inputResponses: { 'elicit-1': ACCEPT('Cy') } }, TASKS);
  const final = await w.waitFor('completed notification', (f) => f.method === 'notifications/tasks' && f.params?.status === 'completed');
  const got = await w.result('tasks/get', { taskId: id }, TASKS);
  const { resultType: _r, _meta: _m, ...task } = got;
  assert.deepEqual(final.params, { ...task, _meta: { [M.subscriptionId]: 'L' } }, 'the notification is the whole task, as tasks/get shows it');
  const states = w.notifications('notifications/tasks').map((f: Frame) => f.params!.status);
  assert.deepEqual(states, ['working', 'completed']);
  // Asking for task notifications without the extension is -32021.
  const f = await w.request('subscriptions/listen', { _meta: meta({}), notifications: { taskIds: [id] } }, 'L2');
  assertError(f, 'L2', -32021);
  assert.deepEqual(f.error!.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
  await s.close();
});

test("a listen stream never follows someone else's task: it is not acknowledged and nothing arrives", async () => {
  const s = server();
  const alice = await Wire.connect(s, { authInfo: { principal: 'alice' } });
  const bob = await Wire.connect(s, { authInfo: { principal: 'bob' } });
  const id = (await alice.result('tools/call', { name: 'ask', arguments: {} }, TASKS)).taskId;
  await taskWhere(alice, id, (t) => t.status === 'input_required');
  bob.send({ jsonrpc: '2.0', id: 'B', method: 'subscriptions/listen', params: { _meta: meta(TASKS), notifications: { taskIds: [id] } } });
  const ack = await bob.waitFor('ack', (f) => f.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params!.notifications, { taskIds: [] });
  await alice.result('tasks/update', { taskId: id, inputResponses: { 'elicit-1': ACCEPT('Di') } }, TASKS);
  await settled(alice, id);
  await flush(); // notifications are published as the task settles (in-memory, no timers)
  assert.deepEqual(bob.notifications('notifications/tasks'), []);
  await s.close();
});
