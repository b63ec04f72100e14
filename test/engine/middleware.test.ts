import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compose, type MessageMiddleware } from '../../src/engine/middleware.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { clientPair, rejectsLocally, rejectsWithCode, testServer } from '../jsonrpc/harness.js';

const label = (m: JsonRpcMessage) => ('method' in m ? m.method : `response ${String(m.id)}`);

/** Middleware that logs `<name> in|out <label>` into `log`. */
function tracer(name: string, log: string[]): MessageMiddleware {
  return {
    incoming: async (m, next) => {
      log.push(`${name} in ${label(m)}`);
      await next(m);
    },
    outgoing: async (m, next) => {
      log.push(`${name} out ${label(m)}`);
      await next(m);
    },
  };
}

test('compose: onion order, the first middleware is nearest the wire in both directions', async () => {
  const log: string[] = [];
  const mws = [tracer('A', log), tracer('B', log), { incoming: tracer('C', log).incoming }];
  const inn = compose(mws, 'incoming', async (m) => void log.push(`deliver ${label(m)}`));
  const out = compose(mws, 'outgoing', async (m) => void log.push(`wire ${label(m)}`));
  await inn({ jsonrpc: '2.0', method: 'x' });
  await out({ jsonrpc: '2.0', method: 'y' });
  assert.deepEqual(log, ['A in x', 'B in x', 'C in x', 'deliver x', 'B out y', 'A out y', 'wire y']);
  const last = async () => {};
  assert.equal(compose([], 'incoming', last), last, 'no middleware costs nothing');
});

test('server message middleware observes every message, both directions, in wire order', async () => {
  const { server } = testServer();
  const log: string[] = [];
  server.use(tracer('S', log));
  const { client } = await clientPair(server);
  await client.request('test/echo', {});
  await client.notify('test/note');
  await client.ping(); // answered after the notification was handled (one ordered connection)
  assert.deepEqual(log, [
    'S in initialize',
    'S out response 0',
    'S in notifications/initialized',
    'S in test/echo',
    'S out response 1',
    'S in test/note',
    'S in ping',
    'S out response 2',
  ]);
  await client.close();
});

test('server message middleware can modify messages in both directions', async () => {
  const { server } = testServer();
  server.use({
    incoming: async (m, next) => {
      if ('method' in m && m.method === 'test/alias') return next({ ...m, method: 'test/echo', params: { ...m.params, via: 'alias' } });
      return next(m);
    },
    outgoing: async (m, next) => next('result' in m ? { ...m, result: { ...m.result, stamped: true } } : m),
  });
  const { client } = await clientPair(server);
  assert.deepEqual(await client.request('test/alias', { a: 1 }), { echo: { a: 1, via: 'alias' }, stamped: true });
  await client.close();
});

test('server message middleware can drop messages: a dropped request is never answered', async () => {
  const { server } = testServer();
  let notes = 0;
  server.setNotificationHandler('test/note', () => void notes++);
  server.use({
    incoming: async (m, next) => {
      if ('method' in m && (m.method === 'test/secret' || m.method === 'test/note')) return; // dropped
      return next(m);
    },
    outgoing: async (m, next) => {
      if ('method' in m && m.method === 'notifications/message') return; // dropped
      return next(m);
    },
  });
  server.setRequestHandler('test/log', async (_p, ctx) => {
    await ctx.notify('notifications/message', { level: 'info', data: 'x' });
    return {};
  });
  const { client, wire } = await clientPair(server);
  await rejectsLocally(client.request('test/secret', {}, { timeoutMs: 30 }), 'timeout');
  await client.notify('test/note');
  assert.deepEqual(await client.request('test/log'), {});
  await client.ping(); // anything sent before this answer has arrived (one ordered connection)
  assert.equal(notes, 0);
  assert.deepEqual(wire.messages('notifications/message'), []);
  await client.close();
});

test('server message middleware runs in onion order; inner changes are visible to outer layers outgoing', async () => {
  const { server } = testServer();
  const log: string[] = [];
  server.use(tracer('A', log));
  server.use({
    incoming: async (m, next) => {
      log.push('B in');
      await next(m);
    },
    outgoing: async (m, next) => {
      log.push('B out');
      await next('result' in m ? { ...m, result: { ...m.result, byB: true } } : m);
    },
  });
  server.use({
    outgoing: async (m, next) => {
      log.push(`C out sees byB=${'result' in m && 'byB' in m.result}`);
      await next(m);
    },
  });
  const { client } = await clientPair(server);
  log.length = 0;
  assert.deepEqual(await client.request('test/echo'), { echo: null, byB: true });
  assert.deepEqual(log, ['A in test/echo', 'B in', 'C out sees byB=false', 'B out', 'A out response 1']);
  await client.close();
});

test('client middleware observes, modifies and drops; the wire recorder (outermost) sees the wire', async () => {
  const { server } = testServer();
  let serverSawParams: JsonObject | undefined;
  server.setRequestHandler('test/capture', (p) => ((serverSawParams = p), {}));
  const log: string[] = [];
  const { client, wire } = await clientPair(server, {
    middleware: [
      tracer('A', log),
      {
        outgoing: async (m, next) => {
          if ('method' in m && m.method === 'test/capture') return next({ ...m, params: { ...m.params, addedByClient: 1 } });
          if ('method' in m && m.method === 'test/unsent') return; // dropped
          return next(m);
        },
        incoming: async (m, next) => {
          if ('result' in m && 'echo' in m.result) return next({ ...m, result: { rewritten: true } });
          if ('method' in m && m.method === 'test/hidden') return; // dropped
          return next(m);
        },
      },
    ],
  });
  // The handshake already ran through the client middleware.
  assert.deepEqual(log.slice(0, 3), ['A out initialize', 'A in response 0', 'A out notifications/initialized']);
  await client.request('test/capture', { x: 1 });
  assert.deepEqual(serverSawParams, { x: 1, addedByClient: 1 });
  const onWire = wire.messages('test/capture')[0] as { params: JsonObject };
  assert.deepEqual(onWire.params, { x: 1, addedByClient: 1 }, 'recorded as it crossed the wire');
  // Incoming rewrite: the caller sees the change, the recorder the original.
  assert.deepEqual(await client.request('test/echo', { v: 1 }), { rewritten: true });
  const echoReply = wire.entries.filter((e) => e.direction === 'server→client').at(-1)!.message as { result: JsonObject };
  assert.deepEqual(echoReply.result, { echo: { v: 1 } });
  // Dropped outgoing notification never reaches the server; dropped incoming never reaches listeners.
  let serverGot = 0;
  server.setNotificationHandler('test/unsent', () => void serverGot++);
  await client.notify('test/unsent');
  let hidden = 0;
  client.on('test/hidden', () => void hidden++);
  await [...server.sessions][0].notify('test/hidden');
  // Round trips both ways after them (one ordered connection): had either arrived, it would have by now.
  await client.ping();
  await [...server.sessions][0].ping();
  assert.equal(serverGot, 0);
  assert.equal(hidden, 0);
  await client.close();
});

test('request middleware wraps handlers in onion order and sees method, params and ctx', async () => {
  const { server } = testServer();
  const log: string[] = [];
  server.use(async (method, _params, ctx, next) => {
    log.push(`outer before ${method} id=${String(ctx.requestId)} v=${ctx.protocolVersion}`);
    const r = await next();
    log.push('outer after');
    return { ...r, outer: true };
  });
  server.use(async (_method, params, _ctx, next) => {
    log.push(`inner before ${JSON.stringify(params)}`);
    const r = await next();
    log.push('inner after');
    return { ...r, inner: true };
  });
  const { client } = await clientPair(server);
  assert.deepEqual(await client.request('test/echo', { q: 1 }), { echo: { q: 1 }, inner: true, outer: true });
  assert.deepEqual(log, ['outer before test/echo id=1 v=2025-11-25', 'inner before {"q":1}', 'inner after', 'outer after']);
  // Built-in methods (ping, initialize) are not dispatched through request middleware.
  log.length = 0;
  await client.ping();
  assert.deepEqual(log, []);
  await client.close();
});

test('request middleware can short-circuit, replace errors, and its throws become error responses', async () => {
  const { server } = testServer();
  let handlerRan = 0;
  server.setRequestHandler('test/guarded', () => (handlerRan++, { ran: true }));
  server.setRequestHandler('test/cached', () => assert.fail('short-circuited handler ran'));
  server.use(async (method, params, _ctx, next) => {
    if (method === 'test/guarded' && params?.token !== 'ok') throw new McpError(-32001, 'Forbidden');
    if (method === 'test/cached') return { cached: true };
    if (method === 'test/wait' && params?.cached) return { fromCache: true };
    try {
      return await next();
    } catch (e) {
      if (e instanceof Error && e.message === 'boom') throw new McpError(-32050, 'wrapped boom');
      throw e;
    }
  });
  const { client } = await clientPair(server);
  await rejectsWithCode(client.request('test/guarded', {}), -32001, /Forbidden/);
  assert.equal(handlerRan, 0);
  assert.deepEqual(await client.request('test/guarded', { token: 'ok' }), { ran: true });
  assert.equal(handlerRan, 1);
  // Short-circuit: the handlers never run (test/cached fails the test, test/wait never returns).
  assert.deepEqual(await client.request('test/cached'), { cached: true });
  assert.deepEqual(await client.request('test/wait', { cached: true }), { fromCache: true });
  await rejectsWithCode(client.request('test/boom'), -32050, /wrapped boom/);
  await rejectsWithCode(client.request('test/unknown'), -32601);
  await client.close();
});
