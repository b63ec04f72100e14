// Interop: OUR client against servers built with the OFFICIAL v2 SDK (@modelcontextprotocol/server
// 2.x, a black box from npm), over Streamable HTTP (createMcpHandler) and stdio (serveStdio).
// With the default era ('auto') our client must find the 2026-07-28 era the v2 server offers;
// pinned to 'handshake' it must get the v2 server's 2025 fallback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { connectAny as connect } from '../../src/client/connect-stdio.js';
import type { McpClient } from '../../src/client/client.js';
import { eraCache } from '../../src/client/era.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import type { ListenNotification } from '../../src/client/listen.js';
import { WireRecorder } from '../../src/testing/index.js';
import { startV2HttpServer, type V2HttpServer } from '../fixtures/v2/server.js';
import { patient } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STDIO = { command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/v2/stdio-server.ts'], cwd: ROOT, stderr: 'pipe' as const };

let v2: V2HttpServer;

before(async () => {
  v2 = await startV2HttpServer();
});

after(async () => {
  await v2?.close();
});

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? '').join('');

/** The calls both eras answer the same way. */
async function exercise(client: McpClient): Promise<void> {
  assert.deepEqual(client.serverInfo, { name: 'official-v2', version: '2.4.0' });
  assert.equal(client.instructions, 'The official v2 SDK.');
  assert.ok(client.serverCapabilities?.tools && client.serverCapabilities.resources && client.serverCapabilities.prompts);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, client.era === 'modern' ? ['add', 'count', 'deploy', 'echo'] : ['add', 'count', 'echo']);
  assert.equal(text(await client.callTool('echo', { message: 'hi' })), 'hi');
  const add = await client.callTool('add', { a: 2, b: 5 });
  assert.deepEqual(add.structuredContent, { sum: 7 });
  assert.equal(text(add), '7');
  const progress: number[] = [];
  assert.equal(text(await client.callTool('count', { n: 3 }, { onprogress: (p) => progress.push(p.progress) })), 'counted to 3');
  assert.deepEqual(progress, [1, 2, 3]);

  assert.deepEqual(
    (await client.listResources()).resources.map((r) => r.uri),
    ['file:///readme.md'],
  );
  assert.deepEqual(
    (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
    ['notes://{id}'],
  );
  const readme = await client.readResource('file:///readme.md');
  assert.deepEqual(readme.contents, [{ uri: 'file:///readme.md', mimeType: 'text/markdown', text: '# v2\n' }]);
  const note = await client.readResource('notes://7');
  assert.deepEqual(note.contents, [{ uri: 'notes://7', text: 'note 7' }]);
  // The v2 SDK answers an unknown resource with -32602 in both eras.
  const missing = await client.readResource('file:///missing.md').catch((e: unknown) => e);
  assert.ok(missing instanceof McpError && missing.code === -32602, String(missing));

  assert.deepEqual(
    (await client.listPrompts()).prompts.map((p) => p.name),
    ['greet'],
  );
  const greet = await client.getPrompt('greet', { name: 'Ada' });
  assert.deepEqual(greet.messages, [{ role: 'user', content: { type: 'text', text: 'Please greet Ada warmly.' } }]);
}

/** The v2 server's input_required tool: our elicitation handler answers, the call retries. */
async function deploy(client: McpClient, asked: string[]): Promise<void> {
  assert.equal(text(await client.callTool('deploy', { env: 'prod' })), 'deployed to prod');
  assert.deepEqual(asked, ['Deploy to prod?']);
}

function options(wire: WireRecorder, asked: string[], era?: 'handshake') {
  return {
    name: 'mcpkit-interop',
    version: '0.0.1',
    middleware: [wire],
    ...(era ? { era } : {}),
    // The stdio server starts under tsx: on a busy machine slower than the 3 s default probe wait.
    probeTimeoutMs: patient(30_000),
    elicitation: (p: { message: string }) => {
      asked.push(p.message);
      return { action: 'accept' as const, content: { ok: true } };
    },
  };
}

test('our client (default era) → official v2 Streamable HTTP server: negotiates 2026-07-28', async () => {
  eraCache.clear();
  const from = v2.seen.length;
  const wire = new WireRecorder();
  const asked: string[] = [];
  const client = await connect(v2.url, options(wire, asked));
  try {
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, '2026-07-28');
    await exercise(client);
    await deploy(client, asked);
    const deployCalls = wire.messages('tools/call').filter((m) => (m.params as { name?: string }).name === 'deploy');
    assert.equal(deployCalls.length, 2, 'input_required, then the retry');
    assert.deepEqual(deployCalls[1].params?.inputResponses, { confirm: { action: 'accept', content: { ok: true } } });
    const seen = v2.seen.slice(from);
    // The probe was adopted: one server/discover, never initialize; every POST names the revision.
    assert.deepEqual(seen.filter((r) => r.rpc === 'server/discover').length, 1);
    assert.equal(seen[0].rpc, 'server/discover');
    assert.ok(!seen.some((r) => r.rpc === 'initialize'));
    assert.ok(
      seen.every((r) => r.method === 'POST' && r.protocolVersion === '2026-07-28'),
      JSON.stringify(seen),
    );
  } finally {
    await client.close();
  }
});

test('our client → official v2 HTTP server: subscriptions/listen delivers tools/list_changed', async () => {
  const client = await connect(v2.url, { name: 'listener', version: '1', era: 'modern' });
  try {
    const got: ListenNotification[] = [];
    const changed = new Promise<void>((resolve) => client.on('notifications/tools/list_changed', () => resolve()));
    const sub = client.listen({ toolsListChanged: true }, (n) => got.push(n));
    assert.deepEqual(await sub.acknowledged, { toolsListChanged: true });
    // Not subscribed to, so it must not arrive (published first: same stream, so it would
    // come before the one awaited).
    v2.notify.promptsChanged();
    v2.notify.toolsChanged();
    await changed;
    assert.deepEqual(
      got.map((n) => n.method),
      ['notifications/tools/list_changed'],
    );
    await sub.close();
    await sub.ended;
  } finally {
    await client.close();
  }
});

test('our client (era handshake) → official v2 HTTP server: its stateless 2025 fallback', async () => {
  const from = v2.seen.length;
  const client = await connect(v2.url, options(new WireRecorder(), [], 'handshake'));
  try {
    assert.equal(client.era, 'handshake');
    assert.equal(client.protocolVersion, '2025-11-25');
    await exercise(client);
    const seen = v2.seen.slice(from);
    assert.equal(seen[0].rpc, 'initialize');
    assert.ok(!seen.some((r) => r.rpc === 'server/discover'), 'no probe when pinned');
  } finally {
    await client.close();
  }
});

test('our client (default era) → official v2 stdio server: server/discover, then 2026-07-28', async () => {
  eraCache.clear();
  const wire = new WireRecorder();
  const asked: string[] = [];
  const client = await connect(STDIO, options(wire, asked));
  try {
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, '2026-07-28');
    await exercise(client);
    await deploy(client, asked);
    const methods = wire.methods();
    assert.deepEqual(methods.slice(0, 2), ['→ server/discover', '← response 0']);
    assert.ok(!methods.includes('→ initialize'));
    assert.ok(!methods.includes('→ server/discover', 2), 'the probe result was adopted');
  } finally {
    await client.close();
  }
});

test('our client (era handshake) → official v2 stdio server: initialize, pinned for the connection', async () => {
  const wire = new WireRecorder();
  const client = await connect(STDIO, options(wire, [], 'handshake'));
  try {
    assert.equal(client.era, 'handshake');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(wire.methods().slice(0, 3), ['→ initialize', '← response 0', '→ notifications/initialized']);
    await exercise(client);
  } finally {
    await client.close();
  }
});
