// A stdio server that dies at start (issue 13, item 2) is reported as such, with its stderr,
// and started once: only a server that exits in reaction to the era probe is started again
// (that path: test/client/modern/stdio.test.ts and default-era-stdio.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../src/client/client.js';
import { connectStdio } from '../../src/client/connect-stdio.js';
import { eraCache, eraKeyOf, ProbeClosedError, ServerExitedError } from '../../src/client/era.js';
import { StdioClientTransport, type StdioClientTransportOptions } from '../../src/transports/stdio/client.js';
import { patient, tempDir } from '../support/index.js';

const CRASH = fileURLToPath(new URL('../fixtures/stdio/crash-at-start.mjs', import.meta.url));

function crashing(stderr: StdioClientTransportOptions['stderr']) {
  const log = join(tempDir('crash'), 'starts');
  // The log path in the arguments keeps this command line's era cache entry to this test.
  const target: StdioClientTransportOptions = { command: process.execPath, args: [CRASH, log], env: { START_LOG: log }, stderr };
  const starts = () => readFileSync(log, 'utf8').trim().split('\n').length;
  return { target, starts };
}

for (const stderr of ['pipe', 'ignore'] as const) {
  test(`connect() to a server that exits at start (stderr: '${stderr}'): one start, how it exited, its stderr once`, async () => {
    const { target, starts } = crashing(stderr);
    // The probe waits for the server however slowly it starts and dies here (past the default
    // 3 s, a slow server is taken for a legacy one and sent initialize instead).
    const err = await connectStdio(target, { probeTimeoutMs: patient(30_000) }).catch((e: unknown) => e);
    assert.ok(err instanceof ServerExitedError, String(err));
    assert.equal(err.exitCode, 3);
    assert.equal(err.signal, null);
    assert.equal(err.stderr, 'fatal: missing API_KEY');
    assert.equal(err.method, 'server/discover');
    assert.equal(err.message, 'The MCP server exited with code 3 before answering server/discover; its stderr: fatal: missing API_KEY');
    assert.equal(starts(), 1, 'started once');
    // Nothing was learnt about its era: the next connection probes again.
    assert.equal(eraCache.get(eraKeyOf(new StdioClientTransport(target))), undefined);
  });
}

test('a server that exits at start under a pinned era: it exited before answering initialize, started once', async () => {
  const { target, starts } = crashing('pipe');
  const err = await connectStdio(target, { era: 'handshake' }).catch((e: unknown) => e);
  assert.ok(err instanceof ServerExitedError, String(err));
  assert.equal(err.method, 'initialize');
  assert.match(err.message, /^The MCP server exited with code 3 before answering initialize; its stderr: fatal: missing API_KEY$/);
  assert.equal(starts(), 1);
});

test("stderr inherited: the message cannot quote it, and names era: 'handshake' for a server that may have died of the probe", async () => {
  // A silent server (nothing on stderr) that exits 4: stderr is not captured under 'inherit',
  // so the test output stays clean.
  const log = join(tempDir('silent'), 'starts');
  const target: StdioClientTransportOptions = {
    command: process.execPath,
    args: ['-e', 'require("fs").appendFileSync(process.argv[1], "start\\n"); process.exit(4)', log],
    stderr: 'inherit',
  };
  const err = await connectStdio(target).catch((e: unknown) => e);
  assert.ok(err instanceof ServerExitedError, String(err));
  assert.equal(
    err.message,
    "The MCP server exited with code 4 before answering server/discover. If it is a handshake-era server that exits on requests it does not know, pin era: 'handshake'",
  );
  assert.equal(readFileSync(log, 'utf8'), 'start\n');
});

test('an own transport and McpClient.connect(): the same ServerExitedError, never a ProbeClosedError', async () => {
  const { target } = crashing('pipe');
  const client = new McpClient({ name: 'own', version: '1' });
  const err = await client.connect(new StdioClientTransport(target)).catch((e: unknown) => e);
  assert.ok(err instanceof ServerExitedError && !(err instanceof ProbeClosedError), String(err));
  assert.equal(client.connected, false);
});
