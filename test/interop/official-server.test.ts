// Interop: OUR client drives a server built with the OFFICIAL MCP TypeScript SDK
// (test/fixtures/official-server.ts), spawned as a real stdio child process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectAny as connect } from '../../src/client/connect-stdio.js';
import type { McpClient } from '../../src/client/client.js';
import { LocalError, McpError } from '../../src/jsonrpc/errors.js';
import type { ProgressInfo } from '../../src/engine/peer.js';
import type { CallToolResult, CreateMessageParams, ElicitParams } from '../../src/protocol/params.js';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let client: McpClient;
/** A second connection pinned to 2024-11-05, opened alongside the first so start-ups overlap. */
let legacy: Promise<McpClient>;
let transport: StdioClientTransport;
let stderr = '';
const elicited: ElicitParams[] = [];
const sampled: CreateMessageParams[] = [];
const clientErrors: Error[] = [];

function firstText(r: CallToolResult): string {
  assert.ok(r.content.length > 0, 'expected at least one content block');
  const block = r.content[0];
  assert.equal(block.type, 'text');
  return (block as { text: string }).text;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function rejectsWithCode(p: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof McpError, `expected McpError, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  });
}

before(async () => {
  transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'test/fixtures/official-server.ts'],
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  legacy = connect(
    { command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/official-server.ts'], cwd: ROOT, stderr: 'pipe' },
    { name: 'mcpkit-legacy', version: '0.0.1', protocolVersion: '2024-11-05' },
  );
  legacy.catch(() => {}); // reported by the test that awaits it
  client = await connect(transport, {
    name: 'mcpkit-interop',
    version: '0.0.1',
    onerror: (e) => clientErrors.push(e),
    roots: [{ uri: 'file:///tmp/project', name: 'project' }],
    elicitation: (params) => {
      elicited.push(params);
      return { action: 'accept', content: { name: 'Ada' } };
    },
    sampling: (params) => {
      sampled.push(params);
      return { role: 'assistant', content: { type: 'text', text: 'sampled answer' }, model: 'test-model', stopReason: 'endTurn' };
    },
  });
});

after(async () => {
  await client?.close().catch(() => {});
  await (await legacy.catch(() => undefined))?.close().catch(() => {});
});

test('initialize: negotiated version, server info, capabilities, instructions', () => {
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.deepEqual(client.serverInfo, { name: 'official-fixture', version: '2.3.4' });
  const caps = client.serverCapabilities!;
  assert.ok(caps.tools, 'tools');
  assert.ok(caps.resources, 'resources');
  assert.ok(caps.prompts, 'prompts');
  assert.ok(caps.completions, 'completions');
  assert.ok(caps.logging, 'logging');
  assert.equal(client.instructions, 'Official SDK fixture.');
});

test('tools/list: names, object input schemas, output schema of add', async () => {
  const tools = await client.listAllTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'ask', 'count', 'echo', 'fail', 'log', 'roots', 'sample']);
  for (const t of tools) assert.equal(t.inputSchema.type, 'object', `inputSchema of ${t.name}`);
  const add = tools.find((t) => t.name === 'add')!;
  assert.equal(add.title, 'Add two numbers');
  assert.equal(add.outputSchema?.type, 'object');
  assert.ok(Object.keys(add.outputSchema?.properties ?? {}).includes('sum'), 'outputSchema has "sum"');
});

test('tools/call echo and add (structuredContent)', async () => {
  const e = await client.callTool('echo', { message: 'hi official' });
  assert.notEqual(e.isError, true);
  assert.equal(firstText(e), 'hi official');
  const a = await client.callTool('add', { a: 20, b: 22 });
  assert.notEqual(a.isError, true);
  assert.deepEqual(a.structuredContent, { sum: 42 });
});

test('tools/call count: 5 increasing progress notifications', async () => {
  const seen: ProgressInfo[] = [];
  const r = await client.callTool('count', { n: 5 }, { onprogress: (p) => seen.push(p) });
  assert.equal(firstText(r), 'counted to 5');
  assert.deepEqual(
    seen.map((p) => p.progress),
    [1, 2, 3, 4, 5],
  );
  for (const p of seen) assert.equal(p.total, 5);
  assert.equal(seen[4].message, 'step 5 of 5');
});

test('tools/call fail and bad arguments: isError results', async () => {
  const f = await client.callTool('fail', {});
  assert.equal(f.isError, true);
  assert.match(firstText(f), /this tool always fails/);
  const bad = await client.callTool('add', { a: 'two', b: 2 });
  assert.equal(bad.isError, true);
  assert.ok(firstText(bad).length > 0);
});

test('unknown tool: the official server answers with an isError result (or -32602)', async () => {
  // The official McpServer wraps "Tool x not found" (-32602) into a tool error result; the spec
  // lists unknown tools as a protocol error. Our client must cope with either.
  try {
    const r = await client.callTool('no-such-tool', {});
    assert.equal(r.isError, true);
    assert.match(firstText(r), /no-such-tool/);
  } catch (e) {
    assert.ok(e instanceof McpError, `expected McpError, got ${String(e)}`);
    assert.equal(e.code, -32602);
  }
});

test('-32602 surfaces as McpError: unknown prompt, unknown resource', async () => {
  await rejectsWithCode(client.getPrompt('no-such-prompt', {}), -32602);
  await rejectsWithCode(client.readResource('file:///nope.txt'), -32602);
});

test('resources: list, templates, read static and via template', async () => {
  const resources = await client.listAllResources();
  const readme = resources.find((r) => r.uri === 'file:///readme.md');
  assert.ok(readme, 'readme listed');
  assert.equal(readme.name, 'readme');
  assert.equal(readme.mimeType, 'text/markdown');
  const templates = await client.listAllResourceTemplates();
  assert.ok(templates.some((t) => t.uriTemplate === 'docs://{name}' && t.name === 'doc'));

  const a = await client.readResource('file:///readme.md');
  assert.deepEqual(a.contents, [{ uri: 'file:///readme.md', mimeType: 'text/markdown', text: '# Hello\n' }]);
  const b = await client.readResource('docs://intro');
  assert.deepEqual(b.contents, [{ uri: 'docs://intro', mimeType: 'text/plain', text: 'contents of intro' }]);
});

test('prompts: list, get, complete (prompt argument and template variable)', async () => {
  const prompts = await client.listAllPrompts();
  const greet = prompts.find((p) => p.name === 'greet');
  assert.ok(greet, 'greet listed');
  assert.equal(greet.arguments?.[0]?.name, 'name');
  assert.equal(greet.arguments?.[0]?.required, true);

  const got = await client.getPrompt('greet', { name: 'Ada' });
  assert.deepEqual(got.messages, [{ role: 'user', content: { type: 'text', text: 'Please greet Ada warmly.' } }]);

  const c = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'b' } });
  assert.deepEqual(c.completion.values, ['Bob']);
  const t = await client.complete({ ref: { type: 'ref/resource', uri: 'docs://{name}' }, argument: { name: 'name', value: 'g' } });
  assert.deepEqual(t.completion.values, ['guide']);
});

test('logging/setLevel and ping', async () => {
  assert.deepEqual(await client.setLoggingLevel('debug'), {});
  assert.deepEqual(await client.ping(), {});
});

test('notifications/message from the official server reach our listener, filtered by setLevel', async () => {
  const got: unknown[] = [];
  const off = client.on('notifications/message', (p) => got.push(p));
  await client.setLoggingLevel('warning');
  await client.callTool('log', { level: 'info', text: 'quiet' });
  await client.callTool('log', { level: 'error', text: 'loud' });
  off();
  assert.deepEqual(got, [{ level: 'error', data: 'loud', logger: 'fixture' }]);
});

test('cancelling a call with an AbortSignal: LocalError aborted, the connection keeps working', async () => {
  const ac = new AbortController();
  let progressed = 0;
  const call = client.callTool(
    'count',
    { n: 100 },
    {
      signal: ac.signal,
      onprogress: () => {
        if (++progressed === 2) ac.abort(new Error('user gave up'));
      },
    },
  );
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
  assert.ok(progressed >= 2 && progressed < 100, `progress after cancel: ${progressed}`);
  assert.deepEqual(await client.ping(), {});
  assert.equal(firstText(await client.callTool('echo', { message: 'after cancel' })), 'after cancel');
});

test('server -> client: elicitation/create answered by our elicitation handler', async () => {
  const r = await client.callTool('ask', {});
  assert.notEqual(r.isError, true, firstText(r));
  const answer = JSON.parse(firstText(r)) as { action: string; content: Record<string, unknown> };
  assert.equal(answer.action, 'accept');
  // Our client fills in the schema default (age: 30) for a field the user left out.
  assert.deepEqual(answer.content, { name: 'Ada', age: 30 });
  assert.equal(elicited.length, 1);
  assert.equal(elicited[0].message, 'What is your name?');
});

test('server -> client: sampling/createMessage answered by our sampling handler', async () => {
  const r = await client.callTool('sample', { prompt: 'say hi' });
  assert.notEqual(r.isError, true, firstText(r));
  const answer = JSON.parse(firstText(r)) as Record<string, unknown>;
  assert.equal(answer.model, 'test-model');
  assert.equal(answer.role, 'assistant');
  assert.deepEqual(answer.content, { type: 'text', text: 'sampled answer' });
  assert.equal(sampled.length, 1);
  assert.equal(sampled[0].maxTokens, 50);
  assert.deepEqual(sampled[0].messages[0].content, { type: 'text', text: 'say hi' });
});

test('server -> client: roots/list answered from our roots option', async () => {
  const r = await client.callTool('roots', {});
  assert.notEqual(r.isError, true, firstText(r));
  assert.deepEqual(JSON.parse(firstText(r)), { roots: [{ uri: 'file:///tmp/project', name: 'project' }] });
});

test('server -> client: an error thrown by our sampling handler reaches the official server', async () => {
  client.setSamplingHandler(() => {
    throw new McpError(-1, 'User rejected sampling');
  });
  try {
    const r = await client.callTool('sample', { prompt: 'nope' });
    assert.equal(r.isError, true);
    assert.match(firstText(r), /User rejected sampling/);
  } finally {
    client.setSamplingHandler((params) => {
      sampled.push(params);
      return { role: 'assistant', content: { type: 'text', text: 'sampled answer' }, model: 'test-model' };
    });
  }
});

test('close: the official server exits on stdin EOF; no errors on either side', async () => {
  const pid = transport.pid!;
  let reason: Error | undefined | null = null;
  client.onClose((r) => (reason = r));
  // Our transport closes stdin, waits, then signals: how the child ended tells which happened.
  const child = (transport as unknown as { child?: ChildProcess }).child;
  assert.ok(child, 'the transport keeps its child');
  const ended = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  await client.close();
  assert.deepEqual(await ended, [0, null], 'the official server exited on EOF with code 0, not by a signal');
  assert.equal(reason, undefined, 'an expected close has no reason');
  assert.equal(isAlive(pid), false, 'child process is gone');
  assert.deepEqual(clientErrors, []);
  assert.doesNotMatch(stderr, /Error/, `unexpected server stderr: ${stderr}`);
});

test('a pinned older revision (2024-11-05) is negotiated with the official server', async () => {
  const old = await legacy;
  try {
    assert.equal(old.protocolVersion, '2024-11-05');
    assert.equal(firstText(await old.callTool('echo', { message: 'old times' })), 'old times');
    const seen: ProgressInfo[] = [];
    await old.callTool('count', { n: 3 }, { onprogress: (p) => seen.push(p) });
    assert.deepEqual(
      seen.map((p) => p.progress),
      [1, 2, 3],
    );
    const c = await old.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'c' } });
    assert.deepEqual(c.completion.values, ['Carol']);
  } finally {
    await old.close();
  }
});
