// McpClient in the handshake era at 2025-11-25 against OUR McpServer's task tools, served as
// that revision's experimental core tasks (SEP-1686), over stdio and HTTP: required tools are
// augmented, optional ones only when asked, questions of a task reach the handlers on the
// tasks/result stream, and an abandoned call cancels its task.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/options.js';
import type { DetailedTask } from '../../src/protocol/tasks.js';
import { LocalError, McpError } from '../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/streamable.js';
import { serve } from '../../src/serving/node.js';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';
import { taskToolsServer, type TaskToolLog } from '../fixtures/tasks-tools.js';
import { ManualClock, waitFor } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RELATED = 'io.modelcontextprotocol/related-task';
type Sent = { method?: string; params?: Record<string, any> };

function base(sent: Sent[], asked: Array<Record<string, any>>, options: Partial<ClientOptions>): ClientOptions {
  return {
    name: 'core-e2e',
    version: '1.0.0',
    era: 'handshake',
    protocolVersion: '2025-11-25',
    elicitation: (params) => {
      asked.push(params as Record<string, any>);
      const content: Record<string, string | boolean> =
        params.message === 'Sure?' ? { ok: true } : { name: params.message === 'First name?' ? 'Ada' : 'Lovelace' };
      return { action: 'accept', content };
    },
    middleware: [{ outgoing: (m, next) => (sent.push(m as never), next(m)) }],
    ...options,
  };
}

async function overStdio(t: TestContext, options: Partial<ClientOptions> = {}) {
  const sent: Sent[] = [];
  const asked: Array<Record<string, any>> = [];
  const client = new McpClient(base(sent, asked, options));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/tasks-tools.ts'], cwd: ROOT }));
  t.after(() => client.close());
  return { client, sent, asked };
}

async function overHttp(
  t: TestContext,
  options: Partial<ClientOptions> = {},
): Promise<{ client: McpClient; sent: Sent[]; asked: Array<Record<string, any>>; log: TaskToolLog }> {
  const { mcp, log } = taskToolsServer();
  const running = await serve(mcp, { port: 0, host: '127.0.0.1' });
  const sent: Sent[] = [];
  const asked: Array<Record<string, any>> = [];
  const client = new McpClient(base(sent, asked, options));
  await client.connect(new StreamableHttpClientTransport({ url: running.url }));
  t.after(async () => {
    await client.close();
    await running.close();
  });
  return { client, sent, asked, log };
}

const calls = (sent: Sent[]) => sent.filter((m) => m.method === 'tools/call');

test("core tasks stdio: a required tool runs as a task; its elicitation is answered; the result is the tool's", async (t) => {
  const { client, sent, asked } = await overStdio(t);
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.deepEqual(client.serverCapabilities?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  // The client capability is for tasks the server asks of the client: not offered.
  const init = sent.find((m) => m.method === 'initialize')!;
  assert.deepEqual(init.params?.capabilities, { elicitation: { form: {} } });
  const seen: DetailedTask[] = [];
  const r = await client.callTool('confirm', undefined, { ontask: (task) => seen.push(task) });
  assert.deepEqual(r, { content: [{ type: 'text', text: 'confirmed: true' }] });
  // Learned lazily, once.
  assert.equal(sent.filter((m) => m.method === 'tools/list').length, 1);
  assert.deepEqual(calls(sent)[0].params?.task, {});
  const id = seen[0].taskId;
  assert.equal(seen[0].status, 'working');
  assert.equal(seen.at(-1)!.status, 'completed');
  assert.equal(typeof seen[0].ttlMs === 'number' || seen[0].ttlMs === null, true);
  assert.deepEqual(
    sent.filter((m) => m.method === 'tasks/result').map((m) => m.params?.taskId),
    [id],
  );
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0]._meta?.[RELATED], { taskId: id });

  // Two questions in turn, and a second call without a second tools/list.
  assert.deepEqual((await client.callTool('two_questions')).content, [{ type: 'text', text: 'hello Ada Lovelace' }]);
  assert.equal(sent.filter((m) => m.method === 'tools/list').length, 1);
  // startToolCall runs it too (a handshake-era task is not handed over).
  assert.deepEqual(await client.startToolCall('confirm'), { content: [{ type: 'text', text: 'confirmed: true' }] });
});

test('core tasks stdio: an optional tool runs plainly unless the call or the tasks option asks', async (t) => {
  const { client, sent } = await overStdio(t);
  const plain = await client.callTool('compute', { ms: 5 });
  assert.deepEqual(plain, { content: [{ type: 'text', text: 'computed in 5 ms' }] });
  assert.equal(calls(sent)[0].params?.task, undefined);
  assert.equal(sent.filter((m) => m.method === 'tasks/result').length, 0);
  const tasked = await client.callTool('compute', { ms: 5 }, { task: { ttlMs: 30_000 } });
  assert.deepEqual(tasked, plain);
  assert.deepEqual(calls(sent)[1].params?.task, { ttl: 30_000 });
  assert.equal(sent.filter((m) => m.method === 'tasks/result').length, 1);

  const opted = await overStdio(t, { tasks: true });
  assert.deepEqual(await opted.client.callTool('compute', { ms: 5 }), plain);
  assert.deepEqual(calls(opted.sent)[0].params?.task, {});
  await opted.client.callTool('compute', { ms: 5 }, { task: false });
  assert.equal(calls(opted.sent)[1].params?.task, undefined);
});

test('core tasks stdio: failures come back as from a plain call', async (t) => {
  const { client } = await overStdio(t);
  await assert.rejects(client.callTool('explode'), (e: unknown) => e instanceof McpError && e.code === -32050 && e.message === 'the job exploded');
  const r = await client.callTool('tool_error');
  assert.equal(r.isError, true);
  assert.equal(r._meta, undefined);
});

test('core tasks HTTP: a required tool with an elicitation; abort cancels the task on the server', async (t) => {
  const { client, asked, log } = await overHttp(t);
  assert.deepEqual((await client.callTool('confirm')).content, [{ type: 'text', text: 'confirmed: true' }]);
  assert.equal(asked.length, 1);

  const ctl = new AbortController();
  let id: string | undefined;
  const call = client.callTool('forever', { label: 'http' }, { signal: ctl.signal, ontask: (task) => (id ??= task.taskId) });
  const taskId = await waitFor(() => id, 'the task id');
  ctl.abort(new Error('stop'));
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
  await waitFor(async () => (await client.getTask(taskId)).status === 'cancelled', 'the task to be cancelled');
  assert.deepEqual(log.aborted, ['http']);
});

test('core tasks HTTP: a call that times out cancels its task', async (t) => {
  // The client's clock: the call times out once its task exists, however long that takes here.
  const clock = new ManualClock();
  const { client, log } = await overHttp(t, { clock });
  let id: string | undefined;
  const call = client.callTool('forever', { label: 'late' }, { timeoutMs: 200, ontask: (task) => (id ??= task.taskId) });
  await waitFor(() => id, 'the task id');
  clock.advance(200);
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'timeout');
  assert.ok(id);
  await waitFor(() => log.aborted.includes('late'), 'the handler to see its abort');
  assert.deepEqual(log.aborted, ['late']);
  const task = await client.getTask(id);
  assert.equal(task.status, 'cancelled');
  assert.equal(task.pollIntervalMs, 20);
  // request() is left as sent: a plain call to a required tool is the server's -32601.
  await assert.rejects(
    client.request('tools/call', { name: 'forever', arguments: { label: 'raw' } }),
    (e: unknown) => e instanceof McpError && e.code === -32601,
  );
});

test('core tasks: other handshake revisions are left alone', async (t) => {
  const { client, sent } = await overStdio(t, { protocolVersion: '2025-06-18', tasks: true });
  assert.deepEqual((await client.callTool('confirm')).content, [{ type: 'text', text: 'confirmed: true' }]);
  assert.equal(sent.filter((m) => m.method === 'tools/list' || m.method?.startsWith('tasks/')).length, 0);
});
