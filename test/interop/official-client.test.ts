// Interop: the OFFICIAL MCP TypeScript SDK client (used as a black box from npm) drives our
// stdio example server, spawned as a real child process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let client: Client;
let transport: StdioClientTransport;
let stderr = '';
type WireMessage = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown };
const wire: WireMessage[] = [];

/** Text of the first content block of a tool result (the official typings keep `content` loose). */
function firstText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  assert.ok(content.length > 0, 'expected at least one content block');
  assert.equal(content[0].type, 'text');
  return content[0].text ?? '';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

before(async () => {
  transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'examples/stdio-server.ts'],
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  client = new Client({ name: 'official-interop-client', version: '9.9.9' }, { capabilities: {} });
  await client.connect(transport);
  // Tap what arrives on the wire (Transport.onmessage is public API) to check message order.
  const deliver = transport.onmessage;
  transport.onmessage = (m) => {
    wire.push(m as WireMessage);
    deliver?.(m);
  };
});

after(async () => {
  // Safety net if the close test failed half-way.
  await client?.close().catch(() => {});
});

test('initialize: server version, capabilities and instructions', () => {
  assert.deepEqual(client.getServerVersion(), { name: 'example-stdio', version: '1.0.0' });
  const caps = client.getServerCapabilities();
  assert.ok(caps, 'server capabilities');
  assert.ok(caps.tools, 'tools capability');
  assert.ok(caps.resources, 'resources capability');
  assert.ok(caps.prompts, 'prompts capability');
  assert.ok(caps.completions, 'completions capability');
  assert.ok(caps.logging, 'logging capability');
  assert.equal(client.getInstructions(), 'Tools for demos and tests.');
});

test('tools/list: names, object input schemas, output schema of add', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'count', 'echo', 'fail']);
  for (const t of tools) assert.equal(t.inputSchema.type, 'object', `inputSchema of ${t.name}`);
  const echo = tools.find((t) => t.name === 'echo')!;
  assert.equal(echo.description, 'Echoes the message back');
  assert.deepEqual(echo.inputSchema.required, ['message']);
  const add = tools.find((t) => t.name === 'add')!;
  assert.equal(add.title, 'Add two numbers');
  assert.ok(add.outputSchema, 'add declares an output schema');
  assert.equal(add.outputSchema.type, 'object');
  assert.ok(add.outputSchema.properties && 'sum' in add.outputSchema.properties, 'outputSchema has "sum"');
  assert.equal(add.annotations?.readOnlyHint, true);
});

test('tools/call echo', async () => {
  const r = await client.callTool({ name: 'echo', arguments: { message: 'hello interop' } });
  assert.notEqual(r.isError, true);
  assert.equal(firstText(r), 'hello interop');
});

test('tools/call add: structuredContent validated by the official client', async () => {
  // listTools above cached the output schema; the official client validates against it.
  const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  assert.notEqual(r.isError, true);
  assert.deepEqual(r.structuredContent, { sum: 42 });
  assert.deepEqual(JSON.parse(firstText(r)), { sum: 42 });
});

test('tools/call count: 5 increasing progress notifications', async () => {
  const seen: Array<{ progress: number; total?: number; message?: string }> = [];
  const from = wire.length;
  const r = await client.callTool({ name: 'count', arguments: { n: 5 } }, undefined, {
    onprogress: (p) => seen.push(p),
  });
  assert.equal(firstText(r), 'counted to 5');
  // On the wire: five progress notifications, increasing, all before the response.
  const msgs = wire.slice(from);
  const end = msgs.findIndex((m) => 'result' in m);
  assert.ok(end >= 0, 'response seen on the wire');
  const progress = msgs
    .slice(0, end)
    .filter((m) => m.method === 'notifications/progress')
    .map((m) => m.params!);
  assert.deepEqual(
    progress.map((p) => p.progress),
    [1, 2, 3, 4, 5],
  );
  for (const p of progress) {
    assert.equal(p.total, 5);
    // The official client uses the request id as its progressToken: it must be echoed.
    assert.equal(p.progressToken, msgs[end].id);
  }
  assert.equal(progress[0].message, 'step 1 of 5');
  assert.equal(
    msgs.slice(end).some((m) => m.method === 'notifications/progress'),
    false,
    'no progress after the response',
  );
  // The official client dispatches notifications in a microtask but responses synchronously, so
  // progress that shares a read chunk with the response is dropped on ITS side (a busy machine
  // batches the tail into one chunk). What it does deliver is an increasing prefix (usually all 5).
  assert.deepEqual(
    seen.map((p) => p.progress),
    [1, 2, 3, 4, 5].slice(0, seen.length),
  );
  for (const p of seen) assert.equal(p.total, 5);
});

test('tools/call fail: isError result carrying the message', async () => {
  const r = await client.callTool({ name: 'fail', arguments: {} });
  assert.equal(r.isError, true);
  assert.match(firstText(r), /this tool always fails/);
});

test('tools/call of an unknown tool: JSON-RPC error -32602', async () => {
  await assert.rejects(client.callTool({ name: 'no-such-tool', arguments: {} }), (e: unknown) => {
    assert.ok(e instanceof McpError, `expected McpError, got ${String(e)}`);
    assert.equal(e.code, -32602);
    return true;
  });
});

test('tools/call add with bad arguments: a tool error (isError), not a protocol error', async () => {
  const r = await client.callTool({ name: 'add', arguments: { a: 'two', b: 2 } });
  assert.equal(r.isError, true);
  assert.ok(firstText(r).length > 0, 'the error explains itself');
  assert.equal(r.structuredContent, undefined);
});

test('resources: list, templates, read static and via template', async () => {
  const { resources } = await client.listResources();
  const readme = resources.find((r) => r.uri === 'file:///readme.md');
  assert.ok(readme, 'readme listed');
  assert.equal(readme.name, 'readme');
  assert.equal(readme.mimeType, 'text/markdown');

  const { resourceTemplates } = await client.listResourceTemplates();
  const doc = resourceTemplates.find((t) => t.uriTemplate === 'docs://{name}');
  assert.ok(doc, 'docs://{name} template listed');
  assert.equal(doc.name, 'doc');

  const a = await client.readResource({ uri: 'file:///readme.md' });
  assert.equal(a.contents.length, 1);
  assert.equal(a.contents[0].uri, 'file:///readme.md');
  assert.equal((a.contents[0] as { text?: string }).text, '# Hello\n');

  const b = await client.readResource({ uri: 'docs://intro' });
  assert.equal(b.contents[0].uri, 'docs://intro');
  assert.equal((b.contents[0] as { text?: string }).text, 'contents of docs://intro');
});

test('prompts: list, get greet, complete its argument', async () => {
  const { prompts } = await client.listPrompts();
  const greet = prompts.find((p) => p.name === 'greet');
  assert.ok(greet, 'greet listed');
  assert.deepEqual(greet.arguments, [{ name: 'name', description: 'Who to greet', required: true }]);

  const got = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  assert.equal(got.messages.length, 1);
  assert.equal(got.messages[0].role, 'user');
  assert.deepEqual(got.messages[0].content, { type: 'text', text: 'Please greet Ada warmly.' });

  const c = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' } });
  assert.deepEqual(c.completion.values, ['Alice']);
  const all = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: '' } });
  assert.deepEqual(all.completion.values, ['Alice', 'Bob', 'Carol']);
});

test('errors the official client sees: unknown resource -32002, missing prompt argument -32602', async () => {
  // 2025-11-25 (legacy era) resource-not-found code.
  await assert.rejects(client.readResource({ uri: 'file:///missing.txt' }), (e: unknown) => {
    assert.ok(e instanceof McpError, `expected McpError, got ${String(e)}`);
    assert.equal(e.code, -32002);
    return true;
  });
  await assert.rejects(client.getPrompt({ name: 'greet', arguments: {} }), (e: unknown) => {
    assert.ok(e instanceof McpError, `expected McpError, got ${String(e)}`);
    assert.equal(e.code, -32602);
    return true;
  });
});

test('resources/subscribe and unsubscribe', async () => {
  assert.deepEqual(await client.subscribeResource({ uri: 'file:///readme.md' }), {});
  assert.deepEqual(await client.unsubscribeResource({ uri: 'file:///readme.md' }), {});
});

test('cancelling a call from the official client (AbortSignal): rejected locally, server keeps serving', async () => {
  const ac = new AbortController();
  let progressed = 0;
  const call = client.callTool({ name: 'count', arguments: { n: 100 } }, undefined, {
    signal: ac.signal,
    onprogress: () => {
      if (++progressed === 2) ac.abort(new Error('user gave up'));
    },
  });
  await assert.rejects(call);
  assert.ok(progressed >= 2 && progressed < 100, `progress after cancel: ${progressed}`);
  assert.deepEqual(await client.ping(), {});
  const r = await client.callTool({ name: 'echo', arguments: { message: 'still here' } });
  assert.equal(firstText(r), 'still here');
});

test('logging/setLevel and ping', async () => {
  assert.deepEqual(await client.setLoggingLevel('warning'), {});
  assert.deepEqual(await client.ping(), {});
});

test('close: the child exits on stdin EOF, without being signalled', async () => {
  const pid = transport.pid;
  assert.equal(typeof pid, 'number');
  // The official transport waits up to 2 s for 'close', then sends SIGTERM: how the child ended
  // tells whether it left on EOF by itself (no timing involved).
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  assert.ok(child, 'the official transport keeps its child in _process');
  const ended = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  await client.close();
  assert.deepEqual(await ended, [0, null], 'the server exited on EOF with code 0, not by a signal');
  assert.equal(isAlive(pid!), false, 'child process is gone');
  assert.doesNotMatch(stderr, /Error|Warning/i, `unexpected server stderr: ${stderr}`);
});
