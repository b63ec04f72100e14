// Interop: the OFFICIAL MCP TypeScript SDK v1 client's experimental tasks API (2025-11-25 core
// tasks) against our server over Streamable HTTP, including a task that elicits and samples
// (its questions reach the client on the stream of tasks/result).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, CreateTaskResultSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { tasks } from '../../src/extensions/tasks/extension.js';

const RELATED = 'io.modelcontextprotocol/related-task';
let http: RunningServer;
const asked: Array<{ method: string; related: unknown }> = [];

before(async () => {
  const mcp = new McpServer({ name: 'tasks-interop', version: '1.0.0', extensions: [tasks({ pollIntervalMs: 20 })] });
  mcp.tool('add', { task: 'optional', input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, async (args) => {
    await new Promise((r) => setTimeout(r, 30));
    return `${Number(args.a) + Number(args.b)}`;
  });
  mcp.tool('confirm_delete', { task: 'required' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Delete important.txt?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    if (answer.action !== 'accept' || answer.content?.ok !== true) return 'kept';
    const poem = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'A haiku on deletion' } }], maxTokens: 50 });
    return `deleted; ${(poem.content as { text?: string }).text ?? ''}`;
  });
  mcp.tool(
    'forever',
    { task: 'required' },
    (_args, ctx) => new Promise<string>((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
  );
  http = await serve(mcp, { port: 0, host: '127.0.0.1' });
});

after(async () => {
  await http?.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'official-tasks-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, sampling: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push({ method: 'elicitation/create', related: req.params._meta?.[RELATED] });
    return { action: 'accept', content: { ok: true } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    asked.push({ method: 'sampling/createMessage', related: req.params._meta?.[RELATED] });
    return { role: 'assistant', model: 'test', content: { type: 'text', text: 'gone, gone, gone' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  return client;
}

test('the official client sees the capability and taskSupport, and streams a task to its result', async () => {
  const client = await connect();
  assert.deepEqual(client.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const { tools } = await client.listTools();
  assert.deepEqual(tools.find((t) => t.name === 'add')?.execution, { taskSupport: 'optional' });
  const kinds: string[] = [];
  let result: unknown;
  for await (const m of client.experimental.tasks.callToolStream({ name: 'add', arguments: { a: 2, b: 3 } }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
    kinds.push(m.type);
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  assert.equal(kinds[0], 'taskCreated');
  assert.equal(kinds.at(-1), 'result');
  assert.deepEqual((result as { content: unknown }).content, [{ type: 'text', text: '5' }]);
  const { tasks } = await client.experimental.tasks.listTasks();
  assert.equal(tasks.length, 1);
  assert.equal(tasks[0].status, 'completed');
  await client.close();
});

test('a task that elicits and samples: questions arrive on tasks/result, tagged with the task', async () => {
  const client = await connect();
  await client.listTools();
  asked.length = 0;
  let taskId: string | undefined;
  let result: unknown;
  const statuses: string[] = [];
  for await (const m of client.experimental.tasks.callToolStream({ name: 'confirm_delete', arguments: {} })) {
    if (m.type === 'taskCreated') taskId = m.task.taskId;
    if (m.type === 'taskStatus') statuses.push(m.task.status);
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  assert.ok(taskId);
  assert.ok(statuses.includes('input_required'), `statuses: ${statuses.join(',')}`);
  assert.deepEqual(asked, [
    { method: 'elicitation/create', related: { taskId } },
    { method: 'sampling/createMessage', related: { taskId } },
  ]);
  assert.deepEqual((result as { content: unknown }).content, [{ type: 'text', text: 'deleted; gone, gone, gone' }]);
  assert.deepEqual((result as { _meta?: Record<string, unknown> })._meta?.[RELATED], { taskId });
  assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
  await client.close();
});

test('cancel through the official client; a plain call to a required tool is refused', async () => {
  const client = await connect();
  await client.listTools();
  const created = await client.request({ method: 'tools/call', params: { name: 'forever', arguments: {}, task: {} } }, CreateTaskResultSchema);
  const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  await assert.rejects(client.experimental.tasks.cancelTask(created.task.taskId), (e: unknown) => e instanceof McpError && e.code === -32602);
  await assert.rejects(
    client.request({ method: 'tools/call', params: { name: 'forever', arguments: {} } }, CallToolResultSchema),
    (e: unknown) => e instanceof McpError && e.code === -32601,
  );
  await client.close();
});
