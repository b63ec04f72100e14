// A 2026-07-28 server slow to acknowledge its listen stream: the pool uses it after a short grace
// (not after a whole request timeout, which held a link "connecting" for a minute), and lists it
// again once the stream is acknowledged, so that a tool added in between is not missed. Real HTTP;
// the grace is timed on a ManualClock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { ServerPool } from '../../src/pool/pool.js';
import { deferred, ManualClock, waitFor } from '../support/index.js';

test('a server that acknowledges its listen stream late is used after the grace, and relisted when it does', async () => {
  const mcp = new McpServer({ name: 'late-ack', version: '1.0.0' });
  mcp.tool('first', { input: { n: z.number() } }, ({ n }) => `first ${n}`);
  const listenSeen = deferred<void>();
  const gate = deferred<void>();
  // Holds the listen request, and so its acknowledgement, until the test opens the gate.
  mcp.server.use({
    async incoming(message, next) {
      if ('method' in message && message.method === 'subscriptions/listen') {
        listenSeen.resolve();
        await gate.promise;
      }
      return next(message);
    },
  });
  const running = await serve(mcp, { port: 0 });
  const clock = new ManualClock();
  const pool = new ServerPool({ servers: [{ name: 'mo', target: running.url, era: 'modern' }], clock });
  try {
    const started = pool.start();
    await listenSeen.promise;
    // Listed, but not yet acknowledged: waiting out the grace, not the 60 s request timeout.
    await waitFor(() => clock.pending > 0, 'the grace timer');
    assert.notEqual(pool.server('mo')?.state, 'connected');
    clock.advance(5_000);
    await started;
    assert.equal(pool.server('mo')?.state, 'connected');
    assert.deepEqual(
      pool.tools().map((t) => t.name),
      ['first'],
    );
    // Added while no acknowledged stream follows the server: no list_changed can reach the pool.
    mcp.tool('second', { input: { n: z.number() } }, ({ n }) => `second ${n}`);
    gate.resolve();
    await waitFor(() => pool.tools().some((t) => t.name === 'second'), 'the pool to list "second" after the acknowledgement');
    const r = await pool.call('second', { n: 2 });
    assert.equal((r.content[0] as { text: string }).text, 'second 2');
  } finally {
    gate.resolve();
    await pool.close();
    await running.close();
  }
});
