// The connection doctor against servers that work: every step passes, over stdio and HTTP, for
// mcpkit's demo server (both eras, CORS for a loopback page) and the official TypeScript SDK's
// servers (handshake era over stdio, Streamable HTTP and the legacy HTTP+SSE transport).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startLegacySseServer, startStreamableServer } from '../../fixtures/http/official-servers.js';
import { REPO_ROOT, startDemoHttp } from '../../support/index.js';
import { assertHealthy, run } from './helpers.js';

const TSX = import.meta.resolve('tsx');

test('the demo server over Streamable HTTP, with a browser page on a loopback origin: every step passes', async () => {
  const demo = await startDemoHttp();
  try {
    const d = await run(demo.url, { origin: 'http://localhost:5173' });
    assertHealthy(d, ['dns', 'connect', 'preflight', 'post', 'discover', 'list', 'cors']);
    assert.equal(d.transport, 'streamable-http');
    assert.deepEqual(
      { name: d.server?.name, era: d.server?.era, protocolVersion: d.server?.protocolVersion },
      { name: 'mcpkit-demo', era: 'modern', protocolVersion: '2026-07-28' },
    );
    assert.match(d.steps.find((s) => s.step === 'list')!.detail, /^tools\/list: \d+ tools \(echo, /);
  } finally {
    await demo.close();
  }
});

test('the demo server over stdio (mcpkit serve --stdio): every step passes', async () => {
  const d = await run({ command: process.execPath, args: ['--import', TSX, join(REPO_ROOT, 'src/cli/main.ts'), 'serve', '--stdio'], cwd: REPO_ROOT });
  assertHealthy(d, ['spawn', 'stdout', 'start', 'discover', 'list']);
  assert.equal(d.server?.era, 'modern');
  assert.match(d.steps.find((s) => s.step === 'stdout')!.detail, /only JSON-RPC/);
});

test('the official SDK (v1) over stdio: a handshake-era server, every step passes', async () => {
  const d = await run({ command: process.execPath, args: ['--import', TSX, join(REPO_ROOT, 'test/fixtures/official-server.ts')], cwd: REPO_ROOT });
  assertHealthy(d, ['spawn', 'stdout', 'start', 'discover', 'initialize', 'list']);
  assert.deepEqual({ name: d.server?.name, era: d.server?.era }, { name: 'official-fixture', era: 'handshake' });
});

test('the official SDK (v1) over Streamable HTTP: every step passes, and the session it opened is ended', async () => {
  const server = await startStreamableServer();
  try {
    const d = await run(server.url);
    assertHealthy(d, ['dns', 'connect', 'post', 'discover', 'initialize', 'list']);
    assert.equal(d.transport, 'streamable-http');
    assert.equal(d.server?.era, 'handshake');
    assert.equal(server.deleted.length, 1, 'the diagnosis session was DELETEd');
  } finally {
    await server.close();
  }
});

test('the official SDK (v1) over the legacy HTTP+SSE transport: every step passes', async () => {
  const server = await startLegacySseServer();
  try {
    const d = await run(server.url);
    assertHealthy(d, ['post', 'discover', 'initialize', 'list']);
    assert.equal(d.transport, 'sse');
    assert.match(d.steps.find((s) => s.step === 'post' && s.ok)!.detail, /HTTP\+SSE endpoint/);
  } finally {
    await server.close();
  }
});
