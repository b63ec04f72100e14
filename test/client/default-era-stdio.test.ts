// The default era ('auto') with McpClient.connect(transport) over stdio, where the caller owns
// the transport: a server that exits on the server/discover probe cannot be restarted by the
// client, but the failure says what to do, and the next connection initializes without probing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient } from '../../src/client/client.js';
import { ProbeClosedError } from '../../src/client/era.js';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';
import { EXIT_ON_UNKNOWN } from './modern/helpers.js';
import { waitFor, patient } from '../support/index.js';

test('default era, own stdio transport: a server killed by the probe → ProbeClosedError; reconnecting initializes directly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-default-era-'));
  const log = join(dir, 'log');
  // A unique argument keeps this command line's era cache entry to this test.
  const target = { command: process.execPath, args: [EXIT_ON_UNKNOWN, `--tag=${dir}`], env: { EXIT_FIXTURE_LOG: log }, stderr: 'ignore' as const };
  const lines = () => readFileSync(log, 'utf8').trim().split('\n');
  try {
    const first = new McpClient({ name: 'own-transport', version: '1', probeTimeoutMs: patient(30_000) });
    const err = await first.connect(new StdioClientTransport(target)).catch((e: unknown) => e);
    assert.ok(err instanceof ProbeClosedError, String(err));
    assert.match(err.message, /Connecting to it again .* initializes without the probe; or pin era: 'handshake'/);
    assert.equal(first.connected, false);

    const second = new McpClient({ name: 'own-transport', version: '1' });
    await second.connect(new StdioClientTransport(target));
    assert.equal(second.era, 'handshake');
    assert.deepEqual(
      (await second.listTools()).tools.map((t) => t.name),
      ['noop'],
    );
    await second.close();
    await waitFor(() => lines().length === 6);
    assert.deepEqual(lines(), ['start', 'server/discover', 'start', 'initialize', 'notifications/initialized', 'tools/list']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
