// McpClient against OUR McpServer's task tools (the tasks extension, SEP-2663), over HTTP
// (serve()) and stdio: transparent polling, an elicitation inside a task, failed tasks, tool
// errors, cancellation by abort, hand-driven tasks, listen notifications, and what a client
// that does not opt in gets.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../src/client/client.js';
import { TaskCancelledError } from '../../src/client/tasks.js';
import type { ClientOptions } from '../../src/client/options.js';
import type { DetailedTask } from '../../src/protocol/tasks.js';
import { LocalError, McpError } from '../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/streamable.js';
import { serve } from '../../src/serving/node.js';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';
import { taskToolsServer, type TaskToolLog } from '../fixtures/tasks-tools.js';
import { ManualClock, waitFor, within, patient } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FAST = { minPollIntervalMs: 5 };
const yes = () => ({ action: 'accept' as const, content: { ok: true } });

interface Seen {
  method: string;
  headers: Record<string, string>;
}

async function overHttp(
  t: TestContext,
  options: Partial<ClientOptions> = {},
  pollIntervalMs = 20,
): Promise<{ client: McpClient; log: TaskToolLog; seen: Seen[] }> {
  const { mcp, log } = taskToolsServer(pollIntervalMs);
  const running = await serve(mcp, { port: 0, host: '127.0.0.1' });
  const seen: Seen[] = [];
  const recording: typeof fetch = (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    if (body?.method) seen.push({ method: body.method, headers });
    return fetch(input, init);
  };
  const client = new McpClient({ name: 'e2e', version: '1.0.0', tasks: FAST, elicitation: yes, ...options });
  await client.connect(new StreamableHttpClientTransport({ url: running.url, fetch: recording }));
  t.after(async () => {
    await client.close();
    await running.close();
  });
  return { client, log, seen };
}

async function overStdio(t: TestContext, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  // probeTimeoutMs: the fixture starts under tsx, slower than the 3 s default on a busy machine.
  const client = new McpClient({ name: 'e2e', version: '1.0.0', tasks: FAST, elicitation: yes, probeTimeoutMs: patient(30_000), ...options });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/tasks-tools.ts'], cwd: ROOT }));
  t.after(() => client.close());
  return client;
}

test('e2e HTTP: callTool drives a task tool to its result; the server advertises the extension', async (t) => {
  const { client, seen } = await overHttp(t);
  assert.equal(client.era, 'modern');
  assert.deepEqual(client.serverCapabilities?.extensions?.['io.modelcontextprotocol/tasks'], {});
  const statuses: string[] = [];
  const r = await client.callTool('compute', { ms: 60 }, { ontask: (task) => statuses.push(task.status) });
  assert.deepEqual(r, { content: [{ type: 'text', text: 'computed in 60 ms' }] });
  assert.equal(statuses[0], 'working');
  assert.equal(statuses.at(-1), 'completed');
  const gets = seen.filter((s) => s.method === 'tasks/get');
  assert.ok(gets.length >= 1);
  const call = seen.find((s) => s.method === 'tools/call')!;
  assert.equal(call.headers['mcp-name'], 'compute');
});

test('e2e HTTP: tasks/* carry Mcp-Name = taskId', async (t) => {
  const { client, seen } = await overHttp(t);
  let id = '';
  await client.callTool('confirm', {}, { ontask: (task) => (id ||= task.taskId) });
  for (const method of ['tasks/get', 'tasks/update']) {
    const posts = seen.filter((s) => s.method === method);
    assert.ok(posts.length > 0, method);
    for (const p of posts) {
      assert.equal(p.headers['mcp-name'], id, method);
      assert.equal(p.headers['mcp-method'], method);
    }
  }
});

test("e2e HTTP: an elicitation inside a task is answered by the client's handler, once per question", async (t) => {
  const asked: string[] = [];
  const { client, seen } = await overHttp(t, {
    elicitation: (p) => {
      asked.push(p.message);
      return { action: 'accept', content: { name: p.message.startsWith('First') ? 'Ada' : 'Lovelace' } };
    },
  });
  const r = await client.callTool('two_questions');
  assert.deepEqual(r.content, [{ type: 'text', text: 'hello Ada Lovelace' }]);
  assert.deepEqual(asked, ['First name?', 'Last name?']);
  assert.equal(seen.filter((s) => s.method === 'tasks/update').length, 2);
});

test('e2e HTTP: a failed task is an McpError; a tool error is a completed task with isError', async (t) => {
  const { client } = await overHttp(t);
  await assert.rejects(
    client.callTool('explode'),
    (e: unknown) => e instanceof McpError && e.code === -32050 && e.message === 'the job exploded' && (e.data as { stage: number }).stage === 2,
  );
  const r = await client.callTool('tool_error');
  assert.equal(r.isError, true);
  assert.match(JSON.stringify(r.content), /bad input/);
});

test('e2e HTTP: aborting the call cancels the task on the server', async (t) => {
  const { client, log } = await overHttp(t);
  const ctl = new AbortController();
  let id = '';
  const call = client.callTool('forever', { label: 'http' }, { signal: ctl.signal, ontask: (task) => (id ||= task.taskId) });
  await waitFor(() => id, 'the task id');
  ctl.abort(new Error('stop'));
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
  await waitFor(() => log.aborted.includes('http'), 'the handler to see its abort');
  assert.deepEqual(log.aborted, ['http']);
  const after = await client.getTask(id);
  assert.equal(after.status, 'cancelled');
});

test('e2e HTTP: startToolCall + cancelTask + waitForTask, by hand', async (t) => {
  const { client, log } = await overHttp(t);
  const started = await client.startToolCall('forever', { label: 'manual' });
  assert.equal(started.resultType, 'task');
  if (started.resultType !== 'task') return;
  const now: DetailedTask = await client.getTask(started.taskId);
  assert.equal(now.status, 'working');
  await client.cancelTask(started.taskId);
  await assert.rejects(client.waitForTask(started.taskId), TaskCancelledError);
  assert.deepEqual(log.aborted, ['manual']);
  await assert.rejects(client.getTask('00000000-0000-4000-8000-000000000000'), (e: unknown) => e instanceof McpError && e.code === -32602);

  const confirm = await client.startToolCall('confirm');
  if (confirm.resultType !== 'task') throw new Error('expected a task');
  const task = await waitFor(async () => {
    const t = await client.getTask(confirm.taskId);
    return t.status === 'input_required' && t;
  }, 'the task to ask for input');
  const [key] = Object.keys(task.inputRequests ?? {});
  await client.updateTask(confirm.taskId, { [key]: { action: 'accept', content: { ok: false } } });
  assert.deepEqual((await client.waitForTask(confirm)).content, [{ type: 'text', text: 'confirmed: false' }]);
});

test('e2e HTTP: notifications/tasks on a listen stream end the wait before the next poll', async (t) => {
  // The server suggests polling every 10 s; the notification must not have to wait for that.
  // The client's clock stands still, so the 10 s wait can only be ended by the stream.
  const clock = new ManualClock();
  const { client } = await overHttp(t, { tasks: { listen: true, maxPollIntervalMs: 60_000 }, clock }, 10_000);
  const r = await within(client.callTool('compute', { ms: 50 }), 'the call, with the client clock standing still');
  assert.deepEqual(r.content, [{ type: 'text', text: 'computed in 50 ms' }]);
});

test('e2e HTTP: without the tasks option, optional task tools answer at once and required ones are refused', async (t) => {
  const { client, seen } = await overHttp(t, { tasks: false });
  const r = await client.callTool('compute', { ms: 5 });
  assert.deepEqual(r.content, [{ type: 'text', text: 'computed in 5 ms' }]);
  assert.equal(seen.filter((s) => s.method.startsWith('tasks/')).length, 0);
  await assert.rejects(client.callTool('confirm'), (e: unknown) => e instanceof McpError && e.code === -32021);
});

test('e2e stdio: a task with an elicitation, a failed task, and a cancelled one', async (t) => {
  const client = await overStdio(t);
  assert.equal(client.era, 'modern');
  assert.deepEqual((await client.callTool('confirm')).content, [{ type: 'text', text: 'confirmed: true' }]);
  assert.deepEqual((await client.callTool('compute', { ms: 30 })).content, [{ type: 'text', text: 'computed in 30 ms' }]);
  await assert.rejects(client.callTool('explode'), (e: unknown) => e instanceof McpError && e.code === -32050);
  const ctl = new AbortController();
  let id = '';
  const call = client.callTool('forever', { label: 'stdio' }, { signal: ctl.signal, ontask: (task) => (id ||= task.taskId) });
  await waitFor(() => id, 'the task id');
  ctl.abort();
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
  await waitFor(async () => (await client.getTask(id)).status === 'cancelled', 'the task to be cancelled');
});

test('e2e stdio: the handshake era ignores the tasks option and runs task tools as ordinary tools', async (t) => {
  const sent: Array<{ method?: string; params?: Record<string, any> }> = [];
  const client = await overStdio(t, {
    era: 'handshake',
    // Before 2025-11-25: that revision has core tasks, where a required tool must be augmented.
    protocolVersion: '2025-06-18',
    middleware: [{ outgoing: (m, next) => (sent.push(m as never), next(m)) }],
  });
  assert.equal(client.era, 'handshake');
  const init = sent.find((m) => m.method === 'initialize')!;
  assert.deepEqual(init.params?.capabilities, { elicitation: { form: {} } });
  assert.deepEqual((await client.callTool('confirm')).content, [{ type: 'text', text: 'confirmed: true' }]);
  assert.equal(sent.filter((m) => m.method?.startsWith('tasks/')).length, 0);
});
