// Interop: the OFFICIAL v2 client (@modelcontextprotocol/client 2.x, a black box from npm) in its
// 2026-07-28 mode against OUR server (the both-eras definition): over Streamable HTTP with the
// revision pinned and with its own auto negotiation, and over stdio (auto). The v2 client fulfils
// input_required rounds with the handlers registered for elicitation/create and roots/list.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { buildBothErasServer } from './both-eras-server.js';
import { deferred, within, type Deferred } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let http: RunningServer;
/** JSON-RPC methods our HTTP server received, in order. */
const saw: string[] = [];
/**
 * One latch per step of the `count` tool, opened when the v2 client's onprogress sees that step:
 * the in-process server waits on it before the next step (see BothErasOptions.stepSeen).
 */
const steps = new Map<number, Deferred<void>>();
const step = (n: number): Deferred<void> => steps.get(n) ?? steps.set(n, deferred<void>()).get(n)!;

before(async () => {
  const mcp = buildBothErasServer({ stepSeen: (n) => within(step(n).promise, `the v2 client to report step ${n} of count`) });
  mcp.use({
    incoming: async (m, next) => {
      if ('method' in m) saw.push(m.method);
      await next(m);
    },
  });
  http = await serve(mcp, { port: 0, host: '127.0.0.1' });
});

after(async () => {
  await http?.close();
});

/** Text of a tool result's content (the official typings keep `content` loose). */
function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

type Mode = 'auto' | { pin: string };

/** A v2 client in 2026-07-28 mode whose handlers answer the server's input requests. */
function v2Client(mode: Mode, asked: string[]): Client {
  const client = new Client({ name: 'official-v2-client', version: '2.4.0' }, { capabilities: { elicitation: {}, roots: {} }, versionNegotiation: { mode } });
  client.setRequestHandler('elicitation/create', async (req) => {
    const message = req.params.message;
    asked.push(message);
    if (message.includes('staging')) return { action: 'decline' as const };
    const content: Record<string, string | boolean> = message.startsWith('Deploy') ? { ok: true } : { name: 'prod' };
    return { action: 'accept' as const, content };
  });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  return client;
}

/** The same calls on every transport: discover, lists, tools (with input rounds), resources, prompts. */
async function exercise(client: Client, asked: string[], overStdio = false): Promise<void> {
  assert.equal(client.getProtocolEra(), 'modern');
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  assert.deepEqual(client.getServerVersion(), { name: 'both-eras', version: '1.2.3' });
  assert.equal(client.getInstructions(), 'One definition, both eras.');
  const discovered = client.getDiscoverResult();
  assert.ok(discovered, 'the v2 client kept our DiscoverResult');
  assert.deepEqual(discovered.supportedVersions, ['2026-07-28']);
  const caps = client.getServerCapabilities();
  assert.ok(caps?.tools && caps.resources && caps.prompts && caps.completions, JSON.stringify(caps));

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'count', 'deploy', 'echo', 'fail', 'roots']);
  assert.equal(tools.find((t) => t.name === 'add')?.outputSchema?.type, 'object');

  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })), 'hi');
  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  assert.deepEqual(add.structuredContent, { sum: 5 });
  const fail = await client.callTool({ name: 'fail', arguments: {} });
  assert.equal(fail.isError, true);
  assert.equal(textOf(fail), 'this tool always fails');

  const progress: number[] = [];
  const count = await client.callTool(
    { name: 'count', arguments: { n: 3 } },
    {
      onprogress: (p) => {
        progress.push(p.progress);
        step(p.progress).resolve();
      },
    },
  );
  steps.clear();
  assert.equal(textOf(count), 'counted to 3');
  if (overStdio) {
    // Our server sends all three before the result (our own stdio tests check that on the wire).
    // The v2 client (2.4.0) drops progress notifications that reach it in the same read as the
    // result, and the child server has no latch to wait on (in-process, the HTTP server waits for
    // each step to be seen): what arrives is in order, but may stop short.
    assert.deepEqual(progress, [1, 2, 3].slice(0, progress.length), `progress: ${JSON.stringify(progress)}`);
  } else {
    assert.deepEqual(progress, [1, 2, 3]);
  }

  // Two input_required rounds (our ctx.elicit twice), answered by the v2 client's handler.
  assert.equal(textOf(await client.callTool({ name: 'deploy', arguments: { env: 'prod' } })), 'deployed to prod');
  assert.equal(textOf(await client.callTool({ name: 'deploy', arguments: { env: 'staging' } })), 'not deployed (decline)');
  assert.deepEqual(asked, ['Deploy to prod?', 'Really deploy to prod? Type the name.', 'Deploy to staging?']);
  // ctx.roots() as an input round too.
  assert.equal(textOf(await client.callTool({ name: 'roots', arguments: {} })), 'file:///work');

  const { resources } = await client.listResources();
  assert.deepEqual(
    resources.map((r) => r.uri),
    ['file:///readme.md'],
  );
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((t) => t.uriTemplate),
    ['notes://{id}'],
  );
  const readme = await client.readResource({ uri: 'file:///readme.md' });
  assert.deepEqual(readme.contents, [{ uri: 'file:///readme.md', mimeType: 'text/markdown', text: '# Both eras\n' }]);
  const note = await client.readResource({ uri: 'notes://beta' });
  assert.deepEqual(note.contents, [{ uri: 'notes://beta', mimeType: 'text/plain', text: 'note beta at notes://beta' }]);
  // 2026-07-28's resource-not-found code.
  await assert.rejects(client.readResource({ uri: 'file:///missing.md' }), (e: unknown) => (e as { code?: number }).code === -32602);

  const { prompts } = await client.listPrompts();
  assert.deepEqual(
    prompts.map((p) => p.name),
    ['greet'],
  );
  const greet = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  assert.deepEqual(greet.messages, [{ role: 'user', content: { type: 'text', text: 'Please greet Ada warmly.' } }]);
  const done = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'c' } });
  assert.deepEqual(done.completion.values, ['Carol']);
}

for (const mode of [{ pin: '2026-07-28' }, 'auto'] as const) {
  test(`official v2 client (${JSON.stringify(mode)}) → our Streamable HTTP server: 2026-07-28 end to end`, async () => {
    const asked: string[] = [];
    const client = v2Client(mode, asked);
    const from = saw.length;
    // The v2 package's Transport type is structurally its own; the cast only names it.
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)) as Transport);
    try {
      await exercise(client, asked);
      const methods = saw.slice(from);
      assert.equal(methods[0], 'server/discover');
      assert.ok(!methods.includes('initialize'), 'no handshake');
      // echo, add, fail, count; deploy prod: asked, asked again, answered; staging: asked,
      // declined; roots: asked, answered.
      assert.equal(methods.filter((m) => m === 'tools/call').length, 4 + 3 + 2 + 2);
    } finally {
      await client.close();
    }
    assert.equal(http.handler.streamable.sessionCount, 0, 'no session was created');
  });
}

test('official v2 client (auto) → our stdio server: 2026-07-28 end to end', async () => {
  const asked: string[] = [];
  const client = v2Client('auto', asked);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'test/fixtures/stdio/both-eras-server.ts'],
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  await client.connect(transport);
  try {
    await exercise(client, asked, true);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr, /Error|Warning/i, `unexpected server stderr: ${stderr}`);
});
