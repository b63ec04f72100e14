// Cancellation end to end and per-call timeouts: aborting a message while tools run sends
// notifications/cancelled (the server sees it and its handler's signal fires), aborting while
// the model streams drops the HTTP response; a tool call times out on a manual clock unless the
// server's progress keeps it alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import type { McpServer } from '../../../src/server/mcp-server.js';
import { deferred, flush, hangTurn, ManualClock, startLoopRig, textTurn, toolCallsTurn, waitFor, within } from '../../support/index.js';

/** Records the notifications a server receives. */
function recordNotifications(mcp: McpServer, into: JsonRpcMessage[]): void {
  mcp.use({
    incoming(message, next) {
      if ('method' in message && !('id' in message)) into.push(message);
      return next(message);
    },
  });
}

for (const era of ['handshake', 'modern'] as const) {
  // Handshake-era HTTP cancels with notifications/cancelled; 2026-07-28 HTTP by closing the
  // request's response stream (the spec's rule per transport).
  const how = era === 'handshake' ? 'notifications/cancelled' : 'the response stream closed';
  test(`${era}: aborting while tools run cancels every running call on the server (${how}) and rejects with AbortError`, async () => {
    const seen: JsonRpcMessage[] = [];
    const started = { a: deferred(), b: deferred() };
    const cancelled: string[] = [];
    const rig = await startLoopRig({
      servers: {
        srv: (mcp) => {
          recordNotifications(mcp, seen);
          mcp.tool('block', { input: { key: z.enum(['a', 'b']) } }, async ({ key }, ctx) => {
            started[key].resolve();
            await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
            cancelled.push(key);
            return 'cancelled';
          });
        },
      },
      serverConfig: { srv: { era } },
      script: [
        toolCallsTurn([
          { name: 'block', arguments: { key: 'a' } },
          { name: 'block', arguments: { key: 'b' } },
        ]),
      ],
    });
    try {
      const controller = new AbortController();
      const chat = rig.host.conversation();
      const sent = chat.send('go', { signal: controller.signal });
      await within(Promise.all([started.a.promise, started.b.promise]), 'both calls to reach the server');
      controller.abort();
      await assert.rejects(sent, { name: 'AbortError' });
      await waitFor(() => cancelled.length === 2, 'both handlers to see their signal fire');
      const cancels = seen.filter((m) => 'method' in m && m.method === 'notifications/cancelled');
      assert.equal(cancels.length, era === 'handshake' ? 2 : 0, JSON.stringify(seen));
      assert.equal(chat.messages.length, 0, 'the aborted message left no trace');
      rig.llm.assertNoErrors();
    } finally {
      await rig.close();
    }
  });
}

test('aborting while the model streams drops its HTTP response; the conversation can go on', async () => {
  const rig = await startLoopRig({ script: [hangTurn('thinking'), textTurn('second try')] });
  try {
    const chat = rig.host.conversation();
    const controller = new AbortController();
    const texts: string[] = [];
    const sent = chat.send('go', {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'text') texts.push(e.delta);
      },
    });
    await waitFor(() => texts.join('') === 'thinking', 'the first text');
    controller.abort(new Error('user pressed ctrl-c'));
    await assert.rejects(sent, (err: Error) => err.name === 'AbortError' && (err.cause as Error).message === 'user pressed ctrl-c');
    await within(rig.llm.waitForDisconnect(1), 'the endpoint to see the client go');
    const answer = await chat.send('again');
    assert.equal(answer.text, 'second try');
    assert.equal(chat.messages.length, 2);
    // An already aborted signal: nothing is sent.
    await assert.rejects(chat.send('x', { signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(rig.llm.requests.length, 2);
  } finally {
    await rig.close();
  }
});

test('a per-call timeout on a manual clock: progress keeps a call alive, silence ends it (the server is told)', async () => {
  const clock = new ManualClock();
  const seen: JsonRpcMessage[] = [];
  // `started`: the handler runs, so the request is out and its timeout armed.
  const steps = { slowStarted: deferred(), silentStarted: deferred(), progress: deferred(), finish: deferred() };
  let silentCancelled = false;
  const rig = await startLoopRig({
    servers: {
      srv: (mcp) => {
        recordNotifications(mcp, seen);
        mcp.tool('slow', { input: {} }, async (_args, ctx) => {
          steps.slowStarted.resolve();
          await steps.progress.promise;
          await ctx.progress(1, 2, 'half way');
          await steps.finish.promise;
          return 'finished';
        });
        mcp.tool('silent', { input: {} }, async (_args, ctx) => {
          steps.silentStarted.resolve();
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          silentCancelled = true;
          return 'never read';
        });
      },
    },
    serverConfig: { srv: { era: 'handshake' } },
    host: { clock, toolTimeoutMs: 1000 },
    script: [
      toolCallsTurn({ name: 'slow', arguments: {} }),
      (req) => {
        assert.equal(req.body.messages.at(-1).content, 'finished');
        return toolCallsTurn({ name: 'silent', arguments: {} });
      },
      (req) => {
        assert.equal(req.body.messages.at(-1).content, 'Error: The call to silent timed out after 1000 ms without progress.');
        return textTurn('gave up on silent');
      },
    ],
  });
  try {
    const sent = rig.host.conversation().send('go');
    await within(steps.slowStarted.promise, 'the slow call to reach the server');
    clock.advance(900);
    steps.progress.resolve();
    await waitFor(() => rig.of('tool_progress').length === 1, 'the progress notification');
    assert.deepEqual(rig.of('tool_progress')[0], { type: 'tool_progress', id: 'call_0_0', progress: 1, total: 2, message: 'half way' });
    // 1800 ms since the call started, 900 since the progress: alive.
    clock.advance(900);
    steps.finish.resolve();
    await within(steps.silentStarted.promise, 'the silent call to reach the server');
    clock.advance(999);
    await flush(20);
    assert.equal(rig.of('tool_error').length, 0);
    clock.advance(1);
    const answer = await sent;
    assert.equal(answer.text, 'gave up on silent');
    assert.match(rig.of('tool_error')[0]?.message ?? '', /timed out after 1000 ms/);
    await waitFor(() => silentCancelled, 'the server to be told');
    assert.equal(seen.filter((m) => 'method' in m && m.method === 'notifications/cancelled').length, 1);
    rig.llm.assertNoErrors();
  } finally {
    await rig.close();
  }
});
