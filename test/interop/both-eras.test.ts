// One server definition, three clients: pinned to the handshake era, pinned to 2026-07-28, and
// the default (auto, which must pick 2026-07-28 here). Each runs the same table of calls over
// Streamable HTTP and over stdio; the results must be equal once the era's own fields
// (resultType, cache hints, the reserved _meta keys) are set aside. The era shows only where it
// should: on the wire (initialize vs server/discover, elicitation/create vs input_required
// rounds) and in the resource-not-found code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { connectAny as connect } from '../../src/client/connect-stdio.js';
import type { ClientOptions, McpClient } from '../../src/client/client.js';
import { eraCache } from '../../src/client/era.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import type { ElicitParams, ElicitResult } from '../../src/protocol/params.js';
import { WireRecorder } from '../../src/testing/index.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { buildBothErasServer } from './both-eras-server.js';
import { patient } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STDIO_SERVER = 'test/fixtures/stdio/both-eras-server.ts';
const ERAS = ['handshake', 'modern', 'auto'] as const;
type EraChoice = (typeof ERAS)[number];
type Via = 'http' | 'stdio';

let http: RunningServer;
/** JSON-RPC methods the HTTP server received, in order (all clients). */
const serverSaw: string[] = [];
/** Per transport and era, what the table of calls returned (era fields stripped). */
const transcripts = new Map<string, JsonObject>();

before(async () => {
  const mcp = buildBothErasServer();
  mcp.use({
    incoming: async (m, next) => {
      if ('method' in m) serverSaw.push(m.method);
      await next(m);
    },
  });
  http = await serve(mcp, { port: 0, host: '127.0.0.1' });
});

after(async () => {
  await http?.close();
});

/** Sets aside what only one era has: resultType, ttlMs/cacheScope and the reserved _meta keys. */
function neutral<T>(result: T): T {
  const out = { ...(result as Record<string, unknown>) };
  delete out.resultType;
  delete out.ttlMs;
  delete out.cacheScope;
  const meta = out._meta as Record<string, unknown> | undefined;
  if (meta) {
    const rest = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith('io.modelcontextprotocol/')));
    if (Object.keys(rest).length > 0) out._meta = rest;
    else delete out._meta;
  }
  return out as T;
}

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? `[${c.type}]`).join('');

async function open(via: Via, era: EraChoice, wire: WireRecorder, asked: string[]): Promise<McpClient> {
  const options: Partial<ClientOptions> = {
    name: 'both-eras-client',
    version: '0.0.1',
    // 'auto' is the default: leave it unsaid, as most callers will.
    ...(era === 'auto' ? {} : { era }),
    // A stdio server under tsx on a busy machine can take longer than the 3 s default to answer
    // the probe, and would be taken for a legacy one.
    probeTimeoutMs: patient(30_000),
    middleware: [wire],
    roots: [{ uri: 'file:///work', name: 'work' }],
    elicitation: (params: ElicitParams): ElicitResult => {
      asked.push(params.message);
      if (params.message.includes('staging')) return { action: 'decline' };
      return { action: 'accept', content: params.message.startsWith('Deploy') ? { ok: true } : { name: 'prod' } };
    },
  };
  if (via === 'http') return connect(http.url, options);
  return connect({ command: process.execPath, args: ['--import', 'tsx', STDIO_SERVER], cwd: ROOT, stderr: 'pipe' }, options);
}

/** The table: every call, with what it must return in any era. Returns the raw results. */
async function runTable(client: McpClient): Promise<JsonObject> {
  assert.deepEqual(client.serverInfo, { name: 'both-eras', version: '1.2.3' });
  assert.equal(client.instructions, 'One definition, both eras.');
  assert.deepEqual(client.serverCapabilities, {
    logging: {},
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    completions: {},
    prompts: { listChanged: true },
  });

  const tools = neutral(await client.listTools());
  assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['add', 'count', 'deploy', 'echo', 'fail', 'roots']);
  assert.deepEqual(tools.tools.find((t) => t.name === 'add')?.outputSchema?.required, ['sum']);

  const echo = neutral(await client.callTool('echo', { message: 'hi' }));
  assert.deepEqual(echo, { content: [{ type: 'text', text: 'hi' }] });
  const add = neutral(await client.callTool('add', { a: 1, b: 2 }));
  assert.deepEqual(add, { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } });
  const fail = neutral(await client.callTool('fail'));
  assert.deepEqual(fail, { content: [{ type: 'text', text: 'this tool always fails' }], isError: true });
  const badArgs = neutral(await client.callTool('add', { a: 'one' }));
  assert.equal(badArgs.isError, true);
  const unknown = await client.callTool('nope').catch((e: unknown) => e);
  assert.ok(unknown instanceof McpError && unknown.code === -32602, String(unknown));

  const progress: Array<[number, number | undefined, string | undefined]> = [];
  const count = neutral(await client.callTool('count', { n: 3 }, { onprogress: (p) => progress.push([p.progress, p.total, p.message]) }));
  assert.equal(text(count), 'counted to 3');
  assert.deepEqual(progress, [
    [1, 3, 'step 1'],
    [2, 3, 'step 2'],
    [3, 3, 'step 3'],
  ]);

  const deployed = neutral(await client.callTool('deploy', { env: 'prod' }));
  assert.equal(text(deployed), 'deployed to prod');
  const declined = neutral(await client.callTool('deploy', { env: 'staging' }));
  assert.equal(text(declined), 'not deployed (decline)');
  const roots = neutral(await client.callTool('roots'));
  assert.equal(text(roots), 'file:///work');

  const resources = neutral(await client.listResources());
  assert.deepEqual(resources, { resources: [{ uri: 'file:///readme.md', name: 'readme', mimeType: 'text/markdown', description: 'The readme' }] });
  const templates = neutral(await client.listResourceTemplates());
  assert.deepEqual(templates, { resourceTemplates: [{ uriTemplate: 'notes://{id}', name: 'note', mimeType: 'text/plain' }] });
  const readme = neutral(await client.readResource('file:///readme.md'));
  assert.deepEqual(readme, { contents: [{ uri: 'file:///readme.md', text: '# Both eras\n', mimeType: 'text/markdown' }] });
  const note = neutral(await client.readResource('notes://beta'));
  assert.deepEqual(note, { contents: [{ uri: 'notes://beta', text: 'note beta at notes://beta', mimeType: 'text/plain' }] });

  const prompts = neutral(await client.listPrompts());
  assert.deepEqual(
    prompts.prompts.map((p) => p.name),
    ['greet'],
  );
  const greet = neutral(await client.getPrompt('greet', { name: 'Ada' }));
  assert.deepEqual(greet, { description: 'Greets someone', messages: [{ role: 'user', content: { type: 'text', text: 'Please greet Ada warmly.' } }] });
  const missingArg = await client.getPrompt('greet', {}).catch((e: unknown) => e);
  assert.ok(missingArg instanceof McpError && missingArg.code === -32602, String(missingArg));

  const names = neutral(await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' } }));
  assert.deepEqual(names.completion.values, ['Alice']);
  const ids = neutral(await client.complete({ ref: { type: 'ref/resource', uri: 'notes://{id}' }, argument: { name: 'id', value: 'b' } }));
  assert.deepEqual(ids.completion.values, ['beta']);

  return {
    tools,
    echo,
    add,
    fail,
    badArgs,
    count,
    progress,
    deployed,
    declined,
    roots,
    resources,
    templates,
    readme,
    note,
    prompts,
    greet,
    names,
    ids,
  } as unknown as JsonObject;
}

/** The resource-not-found code: the one answer the eras give differently. */
async function missingResourceCode(client: McpClient): Promise<number> {
  const err = await client.readResource('file:///missing.md').catch((e: unknown) => e);
  assert.ok(err instanceof McpError, String(err));
  return err.code;
}

for (const via of ['http', 'stdio'] as const) {
  for (const era of ERAS) {
    test(`both eras, ${via}, era ${era}: the table of tools, resources, prompts and completions`, async () => {
      // 'auto' must detect, not remember an earlier test's verdict.
      eraCache.clear();
      const wire = new WireRecorder();
      const asked: string[] = [];
      const sawBefore = serverSaw.length;
      const client = await open(via, era, wire, asked);
      try {
        const speaks = era === 'handshake' ? 'handshake' : 'modern';
        assert.equal(client.era, speaks);
        assert.equal(client.protocolVersion, speaks === 'handshake' ? '2025-11-25' : '2026-07-28');
        transcripts.set(`${via} ${era}`, await runTable(client));
        // Both eras asked the same questions, in the same order, once each.
        assert.deepEqual(asked, ['Deploy to prod?', 'Really deploy to prod? Type the name.', 'Deploy to staging?']);
        assert.equal(await missingResourceCode(client), speaks === 'handshake' ? -32002 : -32602);

        const sent = wire.messages().filter((m) => 'method' in m && 'id' in m);
        const methods = wire.methods();
        const deployCalls = wire.messages('tools/call').filter((m) => (m.params as { name?: string }).name === 'deploy');
        if (speaks === 'handshake') {
          assert.deepEqual(methods.slice(0, 3), ['→ initialize', '← response 0', '→ notifications/initialized']);
          assert.ok(!methods.includes('→ server/discover'), 'no probe when pinned');
          // ctx.elicit and ctx.roots are real server-to-client requests.
          assert.equal(methods.filter((m) => m === '← elicitation/create').length, 3);
          assert.equal(methods.filter((m) => m === '← roots/list').length, 1);
          assert.equal(deployCalls.length, 2, 'one tools/call per deploy');
        } else {
          assert.ok(!methods.includes('→ initialize'), 'never initialize');
          assert.ok(
            !methods.some((m) => m.startsWith('← ') && !m.startsWith('← response') && !m.startsWith('← notifications/')),
            `no server requests: ${methods.join(', ')}`,
          );
          // Every request carries the envelope.
          for (const m of sent) assert.equal((m.params?._meta as JsonObject | undefined)?.['io.modelcontextprotocol/protocolVersion'], '2026-07-28', m.method);
          // prod: asked, asked again, answered (3 calls); staging: asked, declined (2 calls).
          assert.equal(deployCalls.length, 5);
          const [, second, third] = deployCalls;
          assert.deepEqual(second.params?.inputResponses, { 'elicit-1': { action: 'accept', content: { ok: true } } });
          assert.equal(typeof second.params?.requestState, 'string');
          assert.deepEqual(Object.keys(third.params?.inputResponses as JsonObject), ['confirm-name']);
          if (via === 'stdio') {
            // Over stdio the probe is on the wire (over HTTP it is a bare POST, checked below).
            const discovers = methods.filter((m) => m === '→ server/discover').length;
            assert.equal(discovers, 1, 'one server/discover, its answer adopted');
            if (era === 'auto') assert.equal(methods[0], '→ server/discover');
          }
        }
        if (via === 'http') {
          const saw = serverSaw.slice(sawBefore);
          assert.equal(saw.filter((m) => m === 'server/discover').length, speaks === 'handshake' ? 0 : 1);
          assert.equal(saw.filter((m) => m === 'initialize').length, speaks === 'handshake' ? 1 : 0);
        }
      } finally {
        await client.close();
      }
    });
  }

  test(`both eras, ${via}: every era returned the same results`, () => {
    const base = transcripts.get(`${via} handshake`);
    assert.ok(base, 'the handshake run finished');
    for (const era of ['modern', 'auto'] as const) {
      const other = transcripts.get(`${via} ${era}`);
      assert.ok(other, `the ${era} run finished`);
      assert.deepEqual(other, base, `${via}: ${era} differs from handshake`);
    }
  });
}
