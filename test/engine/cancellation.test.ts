import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import type { CreateMessageParams } from '../../src/protocol/params.js';
import type { WireRecorder } from '../../src/testing/index.js';
import { clientPair, rawClient, rejectsLocally, testServer } from '../jsonrpc/harness.js';
import { aborted, flush, waitFor } from '../support/index.js';

const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } as unknown as JsonObject;

/** Responses to request `id` travelling in `direction` (ids of the two directions overlap). */
const responsesTo = (wire: WireRecorder, direction: 'client→server' | 'server→client', id: unknown) =>
  wire.entries.filter((e) => e.direction === direction && !('method' in e.message) && e.message.id === id);

test('client → server: aborting the signal aborts ctx.signal, sends notifications/cancelled, and no response comes back', async () => {
  const { server } = testServer();
  let handlerSignal: AbortSignal | undefined;
  let finished = false;
  server.setRequestHandler('test/slow', async (_p, ctx) => {
    handlerSignal = ctx.signal;
    await aborted(ctx.signal);
    finished = true;
    return { ignored: true }; // the engine must not send this
  });
  const { client, wire } = await clientPair(server);
  const ac = new AbortController();
  const p = client.request('test/slow', {}, { signal: ac.signal });
  await waitFor(() => handlerSignal !== undefined, 'handler start');
  ac.abort('user pressed stop');
  await rejectsLocally(p, 'aborted', /user pressed stop/);
  await waitFor(() => finished, 'handler finish');
  assert.equal(handlerSignal!.aborted, true);
  const req = wire.messages('test/slow')[0] as { id: number };
  const cancel = wire.messages('notifications/cancelled') as Array<{ params: JsonObject }>;
  assert.equal(cancel.length, 1);
  assert.deepEqual(cancel[0].params, { requestId: req.id, reason: 'user pressed stop' });
  // A round trip after it on the same ordered connection: anything the peer sent before its answer has arrived.
  assert.deepEqual(await client.ping(), {});
  assert.deepEqual(responsesTo(wire, 'server→client', req.id), []);
  await client.close();
});

test('client → server: a late response for a cancelled id is dropped silently', async () => {
  const { server } = testServer();
  const { client, wire, serverSide, clientErrors } = await clientPair(server);
  const ac = new AbortController();
  const p = client.request('test/wait', {}, { signal: ac.signal });
  await flush();
  ac.abort();
  await rejectsLocally(p, 'aborted');
  const id = (wire.messages('test/wait')[0] as { id: number }).id;
  const cancel = wire.messages('notifications/cancelled')[0] as { params: JsonObject };
  assert.deepEqual(cancel.params, { requestId: id, reason: 'This operation was aborted' });
  serverSide.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, result: { late: true } }));
  serverSide.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'late error' } }));
  await flush();
  assert.deepEqual(clientErrors, []);
  assert.deepEqual(await client.request('test/echo', { still: 'ok' }), { echo: { still: 'ok' } });
  await client.close();
});

test('an already-aborted signal rejects at once and sends nothing', async () => {
  const { server } = testServer();
  const { client, wire } = await clientPair(server);
  wire.clear();
  await rejectsLocally(client.request('test/echo', {}, { signal: AbortSignal.abort('early') }), 'aborted', /early/);
  await flush();
  assert.deepEqual(wire.entries, []);
  await client.close();
});

test('server → client: cancelling a server request aborts the client handler, which sends no response', async () => {
  const { server } = testServer();
  let clientSignal: AbortSignal | undefined;
  let returned = false;
  const { client, session, wire } = await clientPair(server, {
    sampling: async (_params, ctx) => {
      clientSignal = ctx.signal;
      await aborted(ctx.signal);
      returned = true;
      return { role: 'assistant', content: { type: 'text', text: 'too late' }, model: 'm' };
    },
  });
  const ac = new AbortController();
  const p = session.request('sampling/createMessage', SAMPLE, { signal: ac.signal });
  await waitFor(() => clientSignal !== undefined, 'client handler start');
  ac.abort('server changed its mind');
  await rejectsLocally(p, 'aborted');
  await waitFor(() => returned, 'client handler return');
  assert.equal(clientSignal!.aborted, true);
  const req = wire.messages('sampling/createMessage')[0] as { id: number };
  const cancel = wire.messages('notifications/cancelled') as Array<{ params: JsonObject }>;
  assert.deepEqual(
    cancel.map((c) => c.params.requestId),
    [req.id],
  );
  // A round trip after it on the same ordered connection: anything the peer sent before its answer has arrived.
  assert.deepEqual(await session.ping(), {});
  assert.deepEqual(responsesTo(wire, 'client→server', req.id), [], 'the client sent no response for the cancelled id');
  await client.close();
});

test('server → client: cancelling a tool call also cancels the sampling request it made', async () => {
  const { server } = testServer();
  let toolError: unknown;
  server.setRequestHandler('test/sample', async (_p, ctx) => {
    try {
      return (await ctx.sample(SAMPLE as unknown as CreateMessageParams)) as unknown as JsonObject;
    } catch (e) {
      toolError = e;
      throw e;
    }
  });
  let clientSignal: AbortSignal | undefined;
  const { client, wire } = await clientPair(server, {
    sampling: async (_params, ctx) => {
      clientSignal = ctx.signal;
      await aborted(ctx.signal);
      return { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' };
    },
  });
  const ac = new AbortController();
  const p = client.request('test/sample', {}, { signal: ac.signal });
  await waitFor(() => clientSignal !== undefined, 'sampling start');
  ac.abort();
  await rejectsLocally(p, 'aborted');
  await waitFor(() => clientSignal!.aborted && toolError !== undefined, 'nested cancel');
  const outer = wire.messages('test/sample')[0] as { id: number };
  const inner = wire.messages('sampling/createMessage')[0] as { id: number };
  const cancels = wire.entries
    .filter((e) => 'method' in e.message && e.message.method === 'notifications/cancelled')
    .map((e) => [e.direction, (e.message as { params: JsonObject }).params.requestId]);
  assert.deepEqual(cancels, [
    ['client→server', outer.id],
    ['server→client', inner.id],
  ]);
  // A round trip after it on the same ordered connection: anything the peer sent before its answer has arrived.
  assert.deepEqual(await client.ping(), {});
  assert.deepEqual(await [...server.sessions][0]!.ping(), {});
  assert.deepEqual(responsesTo(wire, 'server→client', outer.id), []);
  assert.deepEqual(responsesTo(wire, 'client→server', inner.id), []);
  await client.close();
});

test('server → client: a timed-out server request cancels the client handler', async () => {
  const { server } = testServer();
  let clientSignal: AbortSignal | undefined;
  const { client, session, wire } = await clientPair(server, {
    elicitation: async (_params, ctx) => {
      clientSignal = ctx.signal;
      await aborted(ctx.signal);
      return { action: 'cancel' };
    },
  });
  await rejectsLocally(
    session.request('elicitation/create', { message: 'q', requestedSchema: { type: 'object', properties: {} } }, { timeoutMs: 30 }),
    'timeout',
  );
  await waitFor(() => clientSignal?.aborted === true, 'client abort');
  const req = wire.messages('elicitation/create')[0] as { id: number };
  assert.deepEqual(
    (wire.messages('notifications/cancelled') as Array<{ params: JsonObject }>).map((c) => c.params.requestId),
    [req.id],
  );
  await client.close();
});

test('cancellations for unknown ids, finished requests or with bad params are ignored', async () => {
  const { server, errors } = testServer();
  const raw = await rawClient(server);
  await raw.initialize();
  assert.ok((await raw.call({ jsonrpc: '2.0', id: 5, method: 'test/echo' })).result);
  for (const params of [{ requestId: 5 }, { requestId: 999 }, {}, { requestId: null }, { requestId: { x: 1 } }, undefined]) {
    raw.send(params === undefined ? { jsonrpc: '2.0', method: 'notifications/cancelled' } : { jsonrpc: '2.0', method: 'notifications/cancelled', params });
  }
  await raw.silence(20);
  assert.deepEqual(errors, []);
  // Cancelling "1" does not cancel 1: ids of different types are different ids.
  raw.send({ jsonrpc: '2.0', id: 1, method: 'test/wait', params: { ms: 30 } });
  raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '1' } });
  assert.deepEqual(await raw.next(), { jsonrpc: '2.0', id: 1, result: { waited: true } });
});

test("a cancelled handler's later progress and notifications are not sent", async () => {
  const { server } = testServer();
  let ctxRef: { progress(n: number): Promise<void>; notify(m: string): Promise<void> } | undefined;
  server.setRequestHandler('test/hold', async (_p, ctx) => {
    ctxRef = ctx;
    await aborted(ctx.signal);
    return {};
  });
  const raw = await rawClient(server);
  await raw.initialize();
  raw.send({ jsonrpc: '2.0', id: 'h', method: 'test/hold', params: { _meta: { progressToken: 't' } } });
  await waitFor(() => ctxRef !== undefined, 'handler');
  await ctxRef!.progress(1);
  assert.deepEqual((await raw.next()).params, { progressToken: 't', progress: 1 });
  raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'h', reason: 'stop' } });
  await flush();
  await ctxRef!.progress(2);
  await ctxRef!.notify('test/after');
  await raw.silence(20);
});

test('a duplicate in-flight request id gets -32600 and the first request still completes', async () => {
  const { server } = testServer();
  const raw = await rawClient(server);
  await raw.initialize();
  raw.send({ jsonrpc: '2.0', id: 7, method: 'test/wait', params: { ms: 40 } });
  raw.send({ jsonrpc: '2.0', id: 7, method: 'test/echo', params: { second: true } });
  const dup = await raw.next();
  assert.equal(dup.id, 7);
  assert.equal(dup.error.code, -32600);
  assert.match(dup.error.message, /already in use/);
  assert.deepEqual(await raw.next(), { jsonrpc: '2.0', id: 7, result: { waited: true } });
  // Once finished, the id may be used again.
  assert.deepEqual((await raw.call({ jsonrpc: '2.0', id: 7, method: 'test/echo', params: { third: true } })).result, { echo: { third: true } });
  // "7" is a different id from 7, so both may be in flight together.
  raw.send({ jsonrpc: '2.0', id: 7, method: 'test/wait', params: { ms: 20 } });
  raw.send({ jsonrpc: '2.0', id: '7', method: 'ping' });
  assert.deepEqual(await raw.next(), { jsonrpc: '2.0', id: '7', result: {} });
  assert.deepEqual(await raw.next(), { jsonrpc: '2.0', id: 7, result: { waited: true } });
});
