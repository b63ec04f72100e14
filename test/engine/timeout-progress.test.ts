import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import type { ProgressInfo } from '../../src/engine/peer.js';
import { clientPair, rawClient, rejectsLocally, testServer } from '../jsonrpc/harness.js';
import { systemClock } from '../../src/engine/clock.js';
import { aborted, deferred, flush, ManualClock, sleep, waitFor, WatchedClock } from '../support/index.js';

/**
 * `test/progress` reports `values` (with `gap` ms between them, `total`, and a message each);
 * with `forever` it keeps counting until cancelled; `late` reports once more after returning.
 */
function progressServer() {
  const t = testServer();
  /** Settles once a `late` progress has been attempted (sent or dropped). */
  const lateAttempt = deferred();
  t.server.setRequestHandler('test/progress', async (params, ctx) => {
    const p = params as { values?: number[]; gap?: number; total?: number; forever?: boolean; late?: number; start?: number };
    if (p.start) await sleep(p.start);
    for (const v of p.values ?? []) {
      await ctx.progress(v, p.total, `at ${v}`);
      if (p.gap) await sleep(p.gap);
    }
    for (let i = 1; p.forever && !ctx.signal.aborted; i++) {
      await ctx.progress(i);
      await sleep(p.gap ?? 10);
    }
    if (p.late !== undefined)
      setTimeout(
        () =>
          void ctx
            .progress(p.late!)
            .catch(() => {})
            .finally(() => lateAttempt.resolve()),
        5,
      );
    return { done: true };
  });
  return { ...t, lateAttempt: lateAttempt.promise };
}

const requestsOf = (msgs: JsonRpcMessage[], method: string) =>
  msgs.filter((m): m is JsonRpcMessage & { id: number; params: JsonObject } => 'method' in m && m.method === method && 'id' in m);

/**
 * `test/driven` reports progress only when the test says so (`step(n)`), and returns at
 * `step('done')` or when cancelled: with a ManualClock the test decides what happens when.
 */
function drivenServer() {
  const t = testServer();
  let next = deferred<number | 'done'>();
  t.server.setRequestHandler('test/driven', async (_p, ctx) => {
    ctx.signal.addEventListener('abort', () => t.aborts.push(ctx.requestId), { once: true });
    for (;;) {
      const s = await Promise.race([next.promise, aborted(ctx.signal).then(() => 'done' as const)]);
      if (s === 'done') return { done: true };
      next = deferred();
      await ctx.progress(s);
    }
  });
  return { ...t, step: (s: number | 'done') => next.resolve(s) };
}

/** Tracks whether `p` has settled (after the deliveries queued so far have run). */
function watch<T>(p: Promise<T>): { settled(): Promise<boolean> } {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  return {
    settled: async () => {
      await flush();
      return done;
    },
  };
}

test('timeout: rejects with LocalError "timeout" at timeoutMs, not before, and sends notifications/cancelled for that id', async () => {
  const { server, aborts } = testServer();
  const clock = new ManualClock();
  const { client, wire } = await clientPair(server, { clock });
  const pending = client.request('test/wait', {}, { timeoutMs: 40 });
  const state = watch(pending);
  clock.advance(39);
  assert.equal(await state.settled(), false, 'still waiting at 39 ms');
  clock.advance(1);
  const e = await rejectsLocally(pending, 'timeout', /timed out after 40 ms/);
  assert.equal(e.name, 'LocalError');
  const [req] = requestsOf(wire.messages(), 'test/wait');
  const cancels = wire.messages('notifications/cancelled');
  assert.equal(cancels.length, 1);
  assert.equal((cancels[0] as { params: JsonObject }).params.requestId, req.id);
  assert.match(String((cancels[0] as { params: JsonObject }).params.reason), /timed out/);
  // The server handler saw the cancellation, and answered nothing: a ping sent after it is
  // answered on the same ordered connection, so an answer to the cancelled id would come first.
  await waitFor(() => aborts.length === 1, 'handler abort');
  assert.deepEqual(aborts, [req.id]);
  await client.request('ping', {});
  assert.equal(wire.entries.filter((x) => x.direction === 'server→client' && !('method' in x.message) && x.message.id === req.id).length, 0);
  await client.close();
});

test('timeouts share one timer: each request times out at its own deadline (a later, shorter one first); an answered one never; nothing armed while nothing waits', async () => {
  const { server } = testServer();
  const clock = new WatchedClock();
  const { client } = await clientPair(server, { clock, requestTimeoutMs: 0 });
  const start = clock.now();
  const a = watch(client.request('test/wait', {}, { timeoutMs: 100 }).catch((e: Error) => e.message));
  const slow = client.request('test/wait', {}, { timeoutMs: 100 });
  const b = client.request('test/wait', {}, { timeoutMs: 30 });
  const c = client.request('test/wait', {}, { timeoutMs: 60 });
  // One timer, for the earliest deadline, though the first request asked for a later one.
  assert.equal(clock.nextDue()! - start, 30);
  clock.advance(29);
  assert.equal(await a.settled(), false);
  clock.advance(1);
  await rejectsLocally(b, 'timeout', /after 30 ms/);
  assert.equal(await a.settled(), false);
  // Answered before its deadline: its deadline passes without a word.
  assert.deepEqual(await client.request('ping', {}, { timeoutMs: 5 }), {});
  clock.advance(30);
  await rejectsLocally(c, 'timeout', /after 60 ms/);
  clock.advance(39);
  assert.equal(await a.settled(), false, 'still waiting at 99 ms');
  clock.advance(1);
  await rejectsLocally(slow, 'timeout', /after 100 ms/);
  assert.equal(await a.settled(), true);
  assert.equal(clock.nextDue(), undefined, 'no timer armed with nothing to wait for');
  // The timer armed for an answered request goes with it when nothing else waits.
  assert.deepEqual(await client.request('ping', {}, { timeoutMs: 5 }), {});
  assert.equal(clock.nextDue(), undefined, 'no timer left behind by an answered request');
  await client.close();
});

test('with the system clock, a step of the wall clock neither times requests out early nor late', async () => {
  const { server } = testServer();
  const { client } = await clientPair(server, { requestTimeoutMs: 0 });
  // The wall clock as the library reads it (systemClock.now is Date.now, taken when it loaded).
  const wall = systemClock as { now: () => number };
  const realNow = wall.now;
  try {
    const short = client.request('test/wait', {}, { timeoutMs: 50 });
    const long = watch(client.request('test/wait', {}, { timeoutMs: 600_000 }));
    // The wall clock jumps an hour ahead while both wait (an NTP step, a resumed VM).
    wall.now = () => realNow() + 3_600_000;
    // The short one times out when its time has passed...
    await rejectsLocally(short, 'timeout', /after 50 ms/);
    // ...and the long one, whose deadline the wall clock now reads as passed, is still waiting.
    assert.equal(await long.settled(), false);
  } finally {
    wall.now = realNow;
    await client.close();
  }
});

test('timeout: the client-wide default (requestTimeoutMs) applies; 0 disables it', async () => {
  const { server } = testServer();
  const clock = new ManualClock();
  const { client } = await clientPair(server, { requestTimeoutMs: 30, clock });
  const first = client.request('test/wait', {});
  clock.advance(30);
  await rejectsLocally(first, 'timeout', /after 30 ms/);
  const off = client.request('test/wait', { ms: 50 }, { timeoutMs: 0 });
  clock.advance(24 * 3_600_000);
  assert.deepEqual(await off, { waited: true });
  await client.close();
});

test('resetTimeoutOnProgress keeps a slow but progressing request alive', async () => {
  const { server, step } = drivenServer();
  const clock = new ManualClock();
  const { client } = await clientPair(server, { clock });
  const seen: number[] = [];
  const r = client.request('test/driven', {}, { timeoutMs: 60, resetTimeoutOnProgress: true, onprogress: (p) => seen.push(p.progress) });
  // Six progress reports 50 ms apart: 300 ms in all, each gap within the 60 ms timeout.
  for (let i = 1; i <= 6; i++) {
    clock.advance(50);
    step(i);
    await waitFor(() => seen.length === i, `progress ${i}`);
  }
  step('done');
  assert.deepEqual(await r, { done: true });
  assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
  // Without the reset the same request times out 60 ms after it was sent, progress or not.
  const again = drivenServer();
  const plain = await clientPair(again.server, { clock });
  const noReset = plain.client.request('test/driven', {}, { timeoutMs: 60, onprogress: () => {} });
  clock.advance(50);
  again.step(1);
  clock.advance(10);
  await rejectsLocally(noReset, 'timeout');
  await client.close();
  await plain.client.close();
});

test('maxTotalTimeoutMs caps a request that keeps progressing', async () => {
  const { server, aborts, step } = drivenServer();
  const clock = new ManualClock();
  const { client, wire } = await clientPair(server, { clock });
  let count = 0;
  const pending = client.request('test/driven', {}, { timeoutMs: 50, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 120, onprogress: () => count++ });
  const state = watch(pending);
  // Progress every 40 ms keeps re-arming the 50 ms timeout; the 120 ms cap still holds.
  for (let i = 1; i <= 2; i++) {
    clock.advance(40);
    step(i);
    await waitFor(() => count === i, `progress ${i}`);
  }
  clock.advance(39);
  assert.equal(await state.settled(), false, 'not capped before 120 ms');
  clock.advance(1);
  await rejectsLocally(pending, 'timeout', /maximum total time of 120 ms/);
  assert.equal(count, 2, 'progress did arrive');
  assert.equal(wire.messages('notifications/cancelled').length, 1);
  await waitFor(() => aborts.length === 1, 'server-side abort');
  await client.close();
});

test('maxTotalTimeoutMs holds even when progress stops just before the cap, or the timeout is off', async () => {
  const { server, step } = drivenServer();
  const clock = new ManualClock();
  const { client } = await clientPair(server, { clock });
  // One progress at 40 ms re-arms a 150 ms timeout; the 60 ms cap must still win.
  let seen = 0;
  const capped = client.request('test/driven', {}, { timeoutMs: 150, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 60, onprogress: () => seen++ });
  const state = watch(capped);
  clock.advance(40);
  step(1);
  await waitFor(() => seen === 1, 'the progress at 40 ms');
  clock.advance(19);
  assert.equal(await state.settled(), false, 'not before the cap');
  clock.advance(1);
  await rejectsLocally(capped, 'timeout', /maximum total time of 60 ms/);
  // The cap holds with the per-request timeout off.
  const off = client.request('test/wait', {}, { timeoutMs: 0, maxTotalTimeoutMs: 40 });
  const offState = watch(off);
  clock.advance(39);
  assert.equal(await offState.settled(), false);
  clock.advance(1);
  await rejectsLocally(off, 'timeout', /maximum total time of 40 ms/);
  await client.close();
});

test('progress: a token is added only when onprogress is given, keeping other _meta keys', async () => {
  const { server } = progressServer();
  const { client, wire } = await clientPair(server);
  await client.request('test/progress', { values: [1] });
  await client.request('test/progress', { values: [1], _meta: { 'com.example/trace': 'abc' } }, { onprogress: () => {} });
  const [plain, withToken] = requestsOf(wire.messages(), 'test/progress');
  assert.equal(plain.params._meta, undefined);
  assert.deepEqual(plain.params.values, [1]);
  const meta = withToken.params._meta as JsonObject;
  assert.equal(meta['com.example/trace'], 'abc');
  assert.ok(typeof meta.progressToken === 'number' || typeof meta.progressToken === 'string');
  // No token asked: the server sent no progress at all.
  const progress = wire.messages('notifications/progress') as Array<{ params: JsonObject }>;
  assert.equal(progress.length, 1);
  assert.equal(progress[0].params.progressToken, meta.progressToken);
  await client.close();
});

test('progress: delivered in order with total and message; the sender drops non-increasing values', async () => {
  const { server } = progressServer();
  const { client, wire } = await clientPair(server);
  const seen: ProgressInfo[] = [];
  await client.request('test/progress', { values: [1, 2, 2, 1.5, 2.5, 10, 9, 10, 11], total: 11 }, { onprogress: (p) => seen.push(p) });
  assert.deepEqual(
    seen.map((p) => p.progress),
    [1, 2, 2.5, 10, 11],
  );
  assert.deepEqual(seen[0], { progress: 1, total: 11, message: 'at 1' });
  // The drop happened at the sender: the wire never carried the bad values.
  const onWire = (wire.messages('notifications/progress') as Array<{ params: JsonObject }>).map((m) => m.params.progress);
  assert.deepEqual(onWire, [1, 2, 2.5, 10, 11]);
  await client.close();
});

test('progress: no notification after the response; late ones for a finished token are ignored', async () => {
  const { server, lateAttempt } = progressServer();
  const { client, wire, serverSide, clientErrors } = await clientPair(server);
  const seen: number[] = [];
  await client.request('test/progress', { values: [1, 2], late: 99 }, { onprogress: (p) => seen.push(p.progress) });
  // The late report has been tried; a ping after it is answered on the same ordered connection,
  // so anything the late report put on the wire is recorded by then.
  await lateAttempt;
  await client.request('ping', {});
  const fromServer = wire.entries.filter((e) => e.direction === 'server→client').map((e) => e.message);
  assert.ok(!('method' in fromServer.at(-1)!), 'the ping answer comes last');
  const kinds = fromServer
    .slice(0, -1)
    .filter((m) => !('method' in m) || m.method === 'notifications/progress')
    .map((m) => ('method' in m ? `progress ${(m.params as JsonObject).progress}` : 'response'));
  assert.deepEqual(kinds.slice(-3), ['progress 1', 'progress 2', 'response']);
  assert.deepEqual(seen, [1, 2]);
  // A misbehaving server sending progress for a finished request: ignored, not an error.
  const token = (requestsOf(wire.messages(), 'test/progress')[0].params._meta as JsonObject).progressToken;
  serverSide.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 50 } }));
  serverSide.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'unknown', progress: 1 } }));
  await flush();
  assert.deepEqual(seen, [1, 2]);
  assert.deepEqual(clientErrors, []);
  await client.close();
});

test('progress: the message is stripped for 2024-11-05, kept from 2025-03-26 on', async () => {
  for (const [version, expected] of [
    ['2024-11-05', undefined],
    ['2025-03-26', 'at 1'],
  ] as const) {
    const { server } = progressServer();
    const { client } = await clientPair(server, { protocolVersion: version });
    const seen: ProgressInfo[] = [];
    await client.request('test/progress', { values: [1] }, { onprogress: (p) => seen.push(p) });
    assert.equal(seen[0].message, expected, version);
    await client.close();
  }
});

test('progress: an onprogress callback that throws goes to onerror and the request still completes', async () => {
  const { server } = progressServer();
  const { client, clientErrors } = await clientPair(server);
  const r = await client.request(
    'test/progress',
    { values: [1, 2] },
    {
      onprogress: () => {
        throw new Error('listener bug');
      },
    },
  );
  assert.deepEqual(r, { done: true });
  assert.equal(clientErrors.filter((e) => e.message === 'listener bug').length, 2);
  await client.close();
});

test('progress: tokens are echoed exactly (0 and "0" included); invalid tokens get no progress', async () => {
  const { server } = progressServer();
  const raw = await rawClient(server);
  await raw.initialize();
  for (const token of [0, '0', 'tok', 1.5]) {
    raw.send({ jsonrpc: '2.0', id: 1, method: 'test/progress', params: { values: [1], _meta: { progressToken: token } } });
    assert.deepEqual(await raw.next(), { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, message: 'at 1' } });
    assert.deepEqual((await raw.next()).result, { done: true });
  }
  for (const token of [null, { a: 1 }, [1], true]) {
    const r = await raw.call({ jsonrpc: '2.0', id: 2, method: 'test/progress', params: { values: [1, 2], _meta: { progressToken: token } } });
    assert.deepEqual(r, { jsonrpc: '2.0', id: 2, result: { done: true } }, `token ${JSON.stringify(token)}: no progress, just the result`);
  }
});
