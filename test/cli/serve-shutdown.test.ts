// Ctrl-C on `mcpkit serve` (issue 28, trap 4), on the real process: streams that only wait for
// notifications (a 2026-07-28 listen, a handshake-era GET) end at once, so the process exits and
// the port is free right away, however long --shutdown-grace is; a request really running is
// said to be drained, and a second Ctrl-C stops at once. No timing is asserted: the grace is an
// hour, so anything that waited for it would time the test out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { connect } from '../../src/client/connect.js';
import { deferred, waitFor, within } from '../support/index.js';
import { startListeningProcess } from './helpers.js';

const HOUR = ['--shutdown-grace', '3600'];

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Binds `port` on loopback and lets it go: it fails with EADDRINUSE while anything holds it. */
function bindable(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

for (const era of ['modern', 'handshake'] as const) {
  test(`Ctrl-C with an idle client (${era === 'modern' ? 'an open subscriptions/listen' : 'an open GET stream'}): the process exits at once, saying nothing of a drain, and the port is free`, async () => {
    const serving = await startListeningProcess(['serve', '--port', '0', ...HOUR]);
    const port = Number(new URL(serving.url).port);
    const client = await connect(serving.url, { era, reinitializeOnExpiry: false });
    try {
      assert.equal(client.era, era);
      if (era === 'modern') await client.listen({ toolsListChanged: true }).acknowledged;
      else await waitFor(() => (client.connected ? true : undefined), 'the handshake-era client');
      const exit = exited(serving.child);
      serving.child.kill('SIGINT');
      const { code } = await within(exit, () => `serve to exit on Ctrl-C with an idle client (it lingers)\nstderr: ${serving.stderr()}`);
      assert.equal(code, 0, serving.stderr());
      assert.doesNotMatch(serving.stderr(), /Draining/);
      // An immediate restart on the same port works: nothing holds it.
      await bindable(port);
    } finally {
      await client.close().catch(() => {});
      if (serving.child.exitCode === null) serving.child.kill('SIGKILL');
    }
  });
}

test('Ctrl-C with a call running: it says it is draining; a second Ctrl-C exits at once, and the port is free', async () => {
  const serving = await startListeningProcess(['serve', '--port', '0', ...HOUR]);
  const port = Number(new URL(serving.url).port);
  const client = await connect(serving.url);
  try {
    const started = deferred();
    // count to 1000 takes 100 s: still running when the signals come.
    const call = client.callTool('count', { n: 1000 }, { onprogress: () => started.resolve() }).catch((e: Error) => e);
    await within(started.promise, 'the first progress of the call');
    const exit = exited(serving.child);
    serving.child.kill('SIGINT');
    await waitFor(
      () => (/Draining: 1 request still running, given up to 3600 s to finish \(Ctrl-C again stops now\)/.test(serving.stderr()) ? true : undefined),
      'the draining line',
    );
    assert.equal(serving.child.exitCode, null, 'it waits for the call');
    serving.child.kill('SIGINT');
    const { code } = await within(exit, () => `serve to exit on a second Ctrl-C\nstderr: ${serving.stderr()}`);
    assert.equal(code, 130);
    await bindable(port);
    assert.ok((await call) instanceof Error, 'the call did not complete');
  } finally {
    await client.close().catch(() => {});
    if (serving.child.exitCode === null) serving.child.kill('SIGKILL');
  }
});
