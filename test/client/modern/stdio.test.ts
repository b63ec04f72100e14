// Era negotiation over real stdio: our example server (modern), the OFFICIAL SDK v1 server
// (handshake), and a legacy server that exits on the probe (started again, then initialized).
// A busy machine can take seconds to start a tsx child: a probe timeout shorter than that
// would (correctly, per the spec) take the silent server for a legacy one, so it is raised here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAny as connect } from '../../../src/client/connect-stdio.js';
import { LocalError } from '../../../src/jsonrpc/errors.js';
import { EXIT_ON_UNKNOWN, M, OFFICIAL_STDIO, Recorder, STDIO_EXAMPLE, text, V } from './helpers.js';
import { waitFor, patient } from '../../support/index.js';

test('stdio auto: our example server speaks 2026-07-28', async () => {
  const wire = new Recorder();
  const client = await connect({ ...STDIO_EXAMPLE, stderr: 'ignore' }, { era: 'auto', probeTimeoutMs: patient(30_000), middleware: [wire] });
  try {
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, V);
    assert.deepEqual(client.serverInfo, { name: 'example-stdio', version: '1.0.0' });
    assert.equal(client.instructions, 'Tools for demos and tests.');
    assert.equal(text(await client.callTool('echo', { message: 'over stdio' })), 'over stdio');
    assert.deepEqual(wire.methods(), ['server/discover', 'tools/call']);
    assert.equal(wire.sent[1].params!._meta[M.protocolVersion], V);
    // Progress still works per request.
    const steps: number[] = [];
    assert.equal(text(await client.callTool('count', { n: 3 }, { onprogress: (p) => steps.push(p.progress) })), 'counted to 3');
    assert.deepEqual(steps, [1, 2, 3]);
  } finally {
    await client.close();
  }
});

test('stdio modern: cancelling a call sends notifications/cancelled for it', async () => {
  const wire = new Recorder();
  const client = await connect({ ...STDIO_EXAMPLE, stderr: 'ignore' }, { era: 'modern', middleware: [wire] });
  try {
    const ctl = new AbortController();
    const call = client.callTool('count', { n: 100 }, { signal: ctl.signal, onprogress: () => ctl.abort() });
    await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
    const id = wire.requests('tools/call')[0].id;
    assert.deepEqual(
      wire.requests('notifications/cancelled').map((m) => m.params!.requestId),
      [id],
    );
    // The connection is still good.
    assert.equal(text(await client.callTool('echo', { message: 'still here' })), 'still here');
  } finally {
    await client.close();
  }
});

test('stdio auto: the OFFICIAL SDK v1 server answers the probe with an error → handshake', async () => {
  const wire = new Recorder();
  const client = await connect({ ...OFFICIAL_STDIO, stderr: 'ignore' }, { era: 'auto', probeTimeoutMs: patient(30_000), middleware: [wire] });
  try {
    assert.equal(client.era, 'handshake');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal(client.serverInfo?.name, 'official-fixture');
    assert.deepEqual(wire.methods().slice(0, 3), ['server/discover', 'initialize', 'notifications/initialized']);
    assert.equal(wire.received[0].error?.code, -32601);
    assert.equal(text(await client.callTool('echo', { message: 'interop' })), 'interop');
  } finally {
    await client.close();
  }
});

test('stdio auto: a legacy server that exits on the probe is started again and initialized; remembered next time', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-exit-'));
  const log = join(dir, 'log');
  const target = { command: process.execPath, args: [EXIT_ON_UNKNOWN], env: { EXIT_FIXTURE_LOG: log }, stderr: 'ignore' as const };
  const lines = () => readFileSync(log, 'utf8').trim().split('\n');
  try {
    const client = await connect(target, { era: 'auto', probeTimeoutMs: patient(30_000) });
    assert.equal(client.era, 'handshake');
    assert.equal(client.serverInfo?.name, 'exit-on-unknown');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['noop'],
    );
    await client.close();
    assert.deepEqual(lines(), ['start', 'server/discover', 'start', 'initialize', 'notifications/initialized', 'tools/list']);

    // Same command line: the era is remembered, so no probe and a single start.
    const again = await connect(target, { era: 'auto' });
    assert.equal(again.era, 'handshake');
    await again.close();
    await waitFor(() => lines().length === 9);
    assert.deepEqual(lines().slice(6), ['start', 'initialize', 'notifications/initialized']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
