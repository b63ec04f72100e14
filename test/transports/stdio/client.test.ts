import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { StdioClientTransport, type StdioClientTransportOptions } from '../../../src/transports/stdio/client.js';
import { ServerExitError } from '../../../src/transports/stdio/exit.js';
import { flush, SAFETY_NET_MS, waitFor, WatchedClock, within } from '../../support/index.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/stdio/${name}`, import.meta.url));

function open(script: string, extra: Partial<StdioClientTransportOptions> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    stderr: 'pipe',
    shutdownTimeoutMs: 200,
    ...extra,
    // TypeScript fixtures run through tsx, which must be loaded first.
    args: [...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), fixture(script), ...(extra.args ?? [])],
  });
  const frames: string[] = [];
  const errors: Error[] = [];
  const closes: Array<Error | undefined> = [];
  const waiters: Array<() => void> = [];
  transport.onmessage = (f) => {
    frames.push(f as string);
    for (const w of waiters.splice(0)) w();
  };
  transport.onerror = (e) => errors.push(e);
  const closed = new Promise<Error | undefined>((resolve) => {
    transport.onclose = (r) => {
      closes.push(r);
      resolve(r);
    };
  });
  // Fails instead of hanging if the server dies before sending enough lines.
  const nextFrames = async (n: number): Promise<string[]> => {
    while (frames.length < n) {
      if (closes.length > 0) throw new Error(`server closed early: ${closes[0]?.message}`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), closed]);
    }
    return frames.slice(0, n);
  };
  return { transport, frames, errors, closes, closed, nextFrames };
}

const ping = (id: number, extra: Record<string, unknown> = {}): JsonRpcMessage => ({ jsonrpc: '2.0', id, method: 'ping', params: extra });

test('round-trips messages, including a large multi-byte one, through a real child', async () => {
  // A shutdown timeout far beyond the safety net below: close() can only finish in time if the
  // server exits on stdin EOF by itself, with no signal.
  const { transport, nextFrames, closes, errors } = open('echo-server.mjs', { shutdownTimeoutMs: 10 * SAFETY_NET_MS });
  await transport.start();
  assert.equal(typeof transport.pid, 'number');
  const big = 'ü€'.repeat(300_000);
  await transport.send(ping(1));
  await transport.send(ping(2, { big }));
  const [a, b] = await nextFrames(2);
  assert.deepEqual(JSON.parse(a), ping(1));
  assert.equal((JSON.parse(b) as { params: { big: string } }).params.big, big);
  await within(transport.close(), 'a graceful close: the echo server exits on stdin EOF, no signal needed');
  assert.deepEqual(closes, [undefined]);
  assert.deepEqual(errors, []);
  await transport.close();
  assert.equal(closes.length, 1);
  await assert.rejects(transport.send(ping(3)), /not connected/);
});

test('passes only the safe default environment plus the given env', async () => {
  process.env.MCPKIT_TEST_SECRET = 'do-not-leak';
  try {
    const { transport, nextFrames } = open('echo-server.mjs', { env: { MCPKIT_GIVEN: 'yes' } });
    await transport.start();
    await transport.send({ jsonrpc: '2.0', method: 'env' });
    const [line] = await nextFrames(1);
    const env = (JSON.parse(line) as { params: Record<string, string> }).params;
    assert.equal(env.MCPKIT_GIVEN, 'yes');
    assert.equal(env.MCPKIT_TEST_SECRET, undefined);
    assert.equal(env.PATH, process.env.PATH);
    await transport.close();
  } finally {
    delete process.env.MCPKIT_TEST_SECRET;
  }
});

test('stderr is exposed when piped', async () => {
  // It must exit on stdin EOF and say so, not be killed after a short grace on a busy machine.
  const { transport } = open('echo-server.mjs', { shutdownTimeoutMs: SAFETY_NET_MS });
  assert.ok(transport.stderr);
  let text = '';
  transport.stderr.on('data', (c: Buffer) => (text += c.toString('utf8')));
  await transport.start();
  // The child writes its banner once it runs: closing before that (a busy machine starts node
  // slowly) would end it before it says anything.
  await waitFor(() => /echo-server: ready/.test(text), "the server's banner on stderr");
  await transport.close();
  if (!transport.stderr.readableEnded) await once(transport.stderr, 'end');
  assert.match(text, /echo-server: ready/);
  assert.match(text, /stdin closed, exiting/);
});

test('a missing command rejects start() with a clear error', async () => {
  const transport = new StdioClientTransport({ command: 'mcpkit-no-such-command-xyz' });
  let closed = false;
  transport.onclose = () => (closed = true);
  await assert.rejects(transport.start(), {
    message: 'Cannot start MCP server "mcpkit-no-such-command-xyz": command not found',
  });
  await transport.close();
  await assert.rejects(transport.send(ping(1)), /not connected/);
  assert.equal(closed, false);
});

test('an unexpected exit closes with an error carrying the exit code and stderr tail', async () => {
  const { transport, closed, closes } = open('crash-server.mjs');
  await transport.start();
  await transport.send(ping(1));
  const reason = await closed;
  assert.ok(reason instanceof ServerExitError);
  assert.match(reason.message, /^MCP server process exited unexpectedly \(code 1, signal null\); last stderr: /);
  assert.match(reason.message, /fatal: boom/);
  assert.deepEqual(
    { exitCode: reason.exitCode, signal: reason.signal, stderr: reason.stderr, stderrSeen: reason.stderrSeen },
    { exitCode: 1, signal: null, stderr: 'crash-server: starting\ncrash-server: fatal: boom', stderrSeen: true },
  );
  await assert.rejects(transport.send(ping(2)), /not connected/);
  await transport.close();
  assert.equal(closes.length, 1);
});

test("stderr: 'ignore' hides the server's stderr but still quotes its tail when it dies", async () => {
  const { transport, closed } = open('crash-server.mjs', { stderr: 'ignore' });
  assert.equal(transport.stderr, null);
  await transport.start();
  await transport.send(ping(1));
  const reason = await closed;
  assert.ok(reason instanceof ServerExitError);
  assert.equal(reason.stderr, 'crash-server: starting\ncrash-server: fatal: boom');
  await transport.close();
});

test('close() sends SIGTERM when the server ignores stdin EOF', async () => {
  const clock = new WatchedClock();
  const { transport, nextFrames, closes } = open('stubborn-server.mjs', { args: ['--honor-sigterm'], clock });
  await transport.start();
  await nextFrames(1);
  const closing = transport.close();
  // stdin is closed; the transport waits shutdownTimeoutMs on its clock, which stands still.
  const due = await waitFor(() => clock.nextDue(), 'the wait after stdin EOF');
  await flush();
  assert.deepEqual(closes, [], 'not closed before the wait is over');
  clock.set(due);
  await within(closing, 'the server to exit on SIGTERM');
  // A second wait was armed after SIGTERM and never had to run out: no SIGKILL.
  assert.deepEqual(clock.armed, [200, 200]);
  assert.equal(clock.nextDue(), undefined);
  assert.deepEqual(closes, [undefined]);
});

test('close() escalates to SIGKILL when the server ignores SIGTERM too', async () => {
  const clock = new WatchedClock();
  const { transport, nextFrames, closes } = open('stubborn-server.mjs', { clock });
  await transport.start();
  await nextFrames(1);
  const pid = transport.pid;
  assert.equal(typeof pid, 'number');
  const closing = Promise.all([transport.close(), transport.close()]);
  // Each step's wait runs out on the clock: stdin EOF, then SIGTERM, both ignored.
  for (let step = 1; step <= 2; step++) {
    const due = await waitFor(() => clock.armed.length === step && clock.nextDue(), `shutdown wait ${step}`);
    await flush();
    assert.deepEqual(closes, [], `still running after step ${step}`);
    clock.set(due);
  }
  await within(closing, 'the SIGKILL');
  assert.deepEqual(clock.armed, [200, 200]);
  assert.deepEqual(closes, [undefined]);
  assert.throws(() => process.kill(pid as number, 0), { code: 'ESRCH' });
});

test('an over-long line from the server is dropped with an error; the next line arrives', async () => {
  const { transport, nextFrames, errors } = open('noisy-server.mjs', { args: ['200000'], maxMessageSize: 1000 });
  await transport.start();
  const [line] = await nextFrames(1);
  assert.deepEqual(JSON.parse(line), { jsonrpc: '2.0', method: 'small' });
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /more than 1000 bytes/);
  await transport.close();
});

test('close() before start() closes once without spawning', async () => {
  const transport = new StdioClientTransport({ command: process.execPath });
  let closes = 0;
  transport.onclose = () => closes++;
  await transport.close();
  await transport.close();
  assert.equal(closes, 1);
  assert.equal(transport.pid, undefined);
  await assert.rejects(transport.start(), /already started/);
});

test('end to end: StdioServerTransport in a child exits by itself on stdin EOF', async () => {
  // The clock stands still: only the server's own exit on EOF can end close(), never a signal.
  const clock = new WatchedClock();
  const { transport: t, nextFrames, closes } = open('transport-echo-server.ts', { shutdownTimeoutMs: 3000, clock });
  await t.start();
  await t.send(ping(1));
  await t.send(ping(2, { pad: 'x'.repeat(2000) }));
  await t.send(ping(3));
  const [first, tooBig, third] = (await nextFrames(3)).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(first.params, { frame: JSON.stringify(ping(1)) });
  // The over-long request is answered by the server transport itself, with id null.
  assert.equal(tooBig.id, null);
  assert.equal((tooBig.error as { code: number }).code, -32600);
  assert.deepEqual(third.params, { frame: JSON.stringify(ping(3)) });
  await within(t.close(), 'the server to exit on stdin EOF');
  assert.deepEqual(clock.armed, [3000], 'one wait, never run out');
  assert.deepEqual(closes, [undefined]);
});
