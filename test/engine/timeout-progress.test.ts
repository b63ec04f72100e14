import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import type { ProgressInfo } from '../../src/engine/peer.js';
import { clientPair, rawClient, rejectsLocally, testServer } from '../jsonrpc/harness.js';
import { flush, sleep, waitFor } from '../support/index.js';

/**
 * `test/progress` reports `values` (with `gap` ms between them, `total`, and a message each);
 * with `forever` it keeps counting until cancelled; `late` reports once more after returning.
 */
function progressServer() {
  const t = testServer();
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
    if (p.late !== undefined) setTimeout(() => void ctx.progress(p.late!).catch(() => {}), 5);
    return { done: true };
  });
  return t;
}

const requestsOf = (msgs: JsonRpcMessage[], method: string) =>
  msgs.filter((m): m is JsonRpcMessage & { id: number; params: JsonObject } => 'method' in m && m.method === method && 'id' in m);

test('timeout: rejects with LocalError "timeout" and sends notifications/cancelled for that id', async () => {
  const { server, aborts } = testServer();
  const { client, wire } = await clientPair(server);
  const started = Date.now();
  const e = await rejectsLocally(client.request('test/wait', {}, { timeoutMs: 40 }), 'timeout', /timed out after 40 ms/);
  assert.ok(Date.now() - started < 150);
  assert.equal(e.name, 'LocalError');
  const [req] = requestsOf(wire.messages(), 'test/wait');
  const cancels = wire.messages('notifications/cancelled');
  assert.equal(cancels.length, 1);
  assert.equal((cancels[0] as { params: JsonObject }).params.requestId, req.id);
  assert.match(String((cancels[0] as { params: JsonObject }).params.reason), /timed out/);
  // The server handler saw the cancellation, and answered nothing.
  await waitFor(() => aborts.length === 1, 'handler abort');
  assert.deepEqual(aborts, [req.id]);
  await sleep(10);
  assert.equal(wire.entries.filter((x) => x.direction === 'server→client' && !('method' in x.message) && x.message.id === req.id).length, 0);
  await client.close();
});

test('timeout: the client-wide default (requestTimeoutMs) applies; 0 disables it', async () => {
  const { server } = testServer();
  const { client } = await clientPair(server, { requestTimeoutMs: 30 });
  await rejectsLocally(client.request('test/wait', {}), 'timeout', /after 30 ms/);
  assert.deepEqual(await client.request('test/wait', { ms: 50 }, { timeoutMs: 0 }), { waited: true });
  await client.close();
});

test('resetTimeoutOnProgress keeps a slow but progressing request alive', async () => {
  const { server } = progressServer();
  const { client } = await clientPair(server);
  const seen: number[] = [];
  const params = { values: [1, 2, 3, 4, 5, 6], gap: 25 };
  const r = await client.request('test/progress', params, {
    timeoutMs: 60, resetTimeoutOnProgress: true, onprogress: (p) => seen.push(p.progress),
  });
  assert.deepEqual(r, { done: true });
  assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
  // Without the reset the same request runs past its 60 ms timeout.
  await rejectsLocally(client.request('test/progress', params, { timeoutMs: 60, onprogress: () => {} }), 'timeout');
  await client.close();
});

test('maxTotalTimeoutMs caps a request that keeps progressing', async () => {
  const { server, aborts } = progressServer();
  server.setRequestHandler('test/progress-forever', async (_p, ctx) => {
    ctx.signal.addEventListener('abort', () => aborts.push(ctx.requestId));
    for (let i = 1; !ctx.signal.aborted; i++) {
      await ctx.progress(i);
      await sleep(10);
    }
    return {};
  });
  const { client, wire } = await clientPair(server);
  const started = Date.now();
  let count = 0;
  await rejectsLocally(client.request('test/progress-forever', {}, {
    timeoutMs: 50, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 120, onprogress: () => count++,
  }), 'timeout', /maximum total time of 120 ms/);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 110 && elapsed < 300, `capped at ~120 ms, took ${elapsed}`);
  assert.ok(count >= 5, 'progress did arrive');
  assert.equal(wire.messages('notifications/cancelled').length, 1);
  await waitFor(() => aborts.length === 1, 'server-side abort');
  await client.close();
});

test('maxTotalTimeoutMs holds even when progress stops just before the cap, or the timeout is off', async () => {
  const { server } = progressServer();
  const { client } = await clientPair(server);
  // One progress at ~40 ms re-arms a 150 ms timeout; the 60 ms cap must still win.
  let started = Date.now();
  await rejectsLocally(client.request('test/progress', { start: 40, values: [1], gap: 200 }, {
    timeoutMs: 150, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 60, onprogress: () => {},
  }), 'timeout', /maximum total time of 60 ms/);
  let elapsed = Date.now() - started;
  assert.ok(elapsed < 170, `the cap fires at ~60 ms, not after the re-armed timeout (took ${elapsed})`);
  started = Date.now();
  await rejectsLocally(client.request('test/wait', {}, { timeoutMs: 0, maxTotalTimeoutMs: 40 }), 'timeout', /maximum total time of 40 ms/);
  elapsed = Date.now() - started;
  assert.ok(elapsed < 200, `took ${elapsed}`);
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
  assert.deepEqual(seen.map((p) => p.progress), [1, 2, 2.5, 10, 11]);
  assert.deepEqual(seen[0], { progress: 1, total: 11, message: 'at 1' });
  // The drop happened at the sender: the wire never carried the bad values.
  const onWire = (wire.messages('notifications/progress') as Array<{ params: JsonObject }>).map((m) => m.params.progress);
  assert.deepEqual(onWire, [1, 2, 2.5, 10, 11]);
  await client.close();
});

test('progress: no notification after the response; late ones for a finished token are ignored', async () => {
  const { server } = progressServer();
  const { client, wire, serverSide, clientErrors } = await clientPair(server);
  const seen: number[] = [];
  await client.request('test/progress', { values: [1, 2], late: 99 }, { onprogress: (p) => seen.push(p.progress) });
  await sleep(30);
  const kinds = wire.entries.filter((e) => e.direction === 'server→client').map((e) => e.message)
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
  for (const [version, expected] of [['2024-11-05', undefined], ['2025-03-26', 'at 1']] as const) {
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
  const r = await client.request('test/progress', { values: [1, 2] }, { onprogress: () => { throw new Error('listener bug'); } });
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
