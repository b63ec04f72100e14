import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpError } from '../../src/jsonrpc/errors.js';
import { rawClient, testServer, clientPair, rejectsLocally, type RawClient } from './harness.js';
import { flush } from '../support/index.js';

async function ready(options: Parameters<typeof testServer>[0] = {}): Promise<RawClient & { errors: Error[] }> {
  const { server, errors } = testServer(options);
  const raw = await rawClient(server);
  await raw.initialize();
  return Object.assign(raw, { errors });
}

/** The peer must still answer after a bad frame. */
async function stillServing(raw: RawClient, id: number | string = 'alive'): Promise<void> {
  assert.deepEqual(await raw.call({ jsonrpc: '2.0', id, method: 'ping' }), { jsonrpc: '2.0', id, result: {} });
}

test('request → result; notification → nothing', async () => {
  const raw = await ready();
  const r = await raw.call({ jsonrpc: '2.0', id: 1, method: 'test/echo', params: { a: [1, 'two'] } });
  assert.deepEqual(r, { jsonrpc: '2.0', id: 1, result: { echo: { a: [1, 'two'] } } });
  raw.send({ jsonrpc: '2.0', method: 'test/echo', params: { a: 1 } });
  await raw.silence();
  await raw.transport.close();
});

test('string and integer ids are echoed exactly; 0 and "0" are distinct', async () => {
  const raw = await ready();
  for (const id of [0, '0', 7, '7', 'req-α', '', -3, 2 ** 53 - 1]) {
    const r = await raw.call({ jsonrpc: '2.0', id, method: 'ping' });
    assert.deepEqual(r, { jsonrpc: '2.0', id, result: {} }, `id ${JSON.stringify(id)}`);
    assert.equal(typeof r.id, typeof id);
  }
  // Both in flight at once: each gets its own answer.
  raw.send({ jsonrpc: '2.0', id: 0, method: 'test/wait', params: { ms: 20 } });
  raw.send({ jsonrpc: '2.0', id: '0', method: 'test/echo', params: { which: 'string' } });
  const first = await raw.next();
  const second = await raw.next();
  assert.deepEqual(first, { jsonrpc: '2.0', id: '0', result: { echo: { which: 'string' } } });
  assert.deepEqual(second, { jsonrpc: '2.0', id: 0, result: { waited: true } });
  await raw.transport.close();
});

test('a request with id null is rejected with -32600 (and is not treated as a notification)', async () => {
  const raw = await ready();
  const r = await raw.call({ jsonrpc: '2.0', id: null, method: 'test/echo', params: {} });
  assert.equal(r.id, null);
  assert.equal(r.error.code, -32600);
  assert.match(r.error.message, /never null/);
  await stillServing(raw);
});

test('parse error → -32700 with id null, then the peer keeps serving', async () => {
  const raw = await ready();
  const r = await raw.call('{"jsonrpc":"2.0","id":1,"method":');
  assert.deepEqual(Object.keys(r).sort(), ['error', 'id', 'jsonrpc']);
  assert.equal(r.id, null);
  assert.equal(r.error.code, -32700);
  await stillServing(raw);
});

test('invalid request shapes → -32600; the peer keeps serving after each', async () => {
  const raw = await ready();
  const bad: Array<[string, unknown]> = [
    ['"just a string"', null],
    ['{"id":5,"method":"ping"}', 5],
    ['{"jsonrpc":"2.0","id":6,"method":42}', 6],
    ['{"jsonrpc":"2.0","id":7,"method":"test/echo","params":[1]}', 7],
    ['{"jsonrpc":"2.0","id":8.5,"method":"ping"}', null],
    ['{"jsonrpc":"2.0","id":9}', 9],
  ];
  for (const [text, id] of bad) {
    const r = await raw.call(text);
    assert.equal(r.error.code, -32600, text);
    assert.equal(r.id, id, text);
    assert.equal(typeof r.error.message, 'string');
    await stillServing(raw);
  }
});

test('unknown method → -32601; invalid params → -32602; plain Error → -32603 with its message', async () => {
  const raw = await ready();
  const unknown = await raw.call({ jsonrpc: '2.0', id: 'u', method: 'no/such/method' });
  assert.equal(unknown.error.code, -32601);
  assert.match(unknown.error.message, /no\/such\/method/);

  // A fresh connection: initialize without protocolVersion is -32602.
  const { server } = testServer();
  const fresh = await rawClient(server);
  const init = await fresh.call({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  assert.equal(init.id, 1);
  assert.equal(init.error.code, -32602);
  assert.match(init.error.message, /protocolVersion/);
  const init2 = await fresh.call({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: 'nope' } });
  assert.equal(init2.error.code, -32602);
  // The failed attempt did not use up the handshake.
  const ok = await fresh.initialize('2025-06-18');
  assert.equal(ok.result.protocolVersion, '2025-06-18');

  const boom = await raw.call({ jsonrpc: '2.0', id: 'b', method: 'test/boom' });
  assert.deepEqual(boom, { jsonrpc: '2.0', id: 'b', error: { code: -32603, message: 'boom' } });
  assert.ok(
    raw.errors.some((e) => e.message === 'boom'),
    'an unexpected handler error is also reported to onerror',
  );
  // McpError thrown by a handler is passed through as is (code, message, data).
  raw.session.server.setRequestHandler('test/mcp-error', () => {
    throw new McpError(-32099 + 100, 'custom', { detail: 1 });
  });
  const custom = await raw.call({ jsonrpc: '2.0', id: 'c', method: 'test/mcp-error' });
  assert.deepEqual(custom.error, { code: -31999, message: 'custom', data: { detail: 1 } });
  await stillServing(raw);
});

test('unknown extra fields are tolerated in requests, notifications and responses', async () => {
  const raw = await ready();
  const r = await raw.call({ jsonrpc: '2.0', id: 1, method: 'test/echo', params: { x: 1, _meta: { 'com.example/k': 1 } }, extension: { a: 1 } });
  assert.deepEqual(r.result, { echo: { x: 1, _meta: { 'com.example/k': 1 } } });
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized', extra: 1 });
  await raw.silence(10);

  // A response with extra fields settles the server's pending request.
  const pending = raw.session.request('roots/list');
  const req = await raw.next();
  assert.equal(req.method, 'roots/list');
  raw.send({ jsonrpc: '2.0', id: req.id, result: { roots: [], more: true }, vendorField: 'x' });
  assert.deepEqual(await pending, { roots: [], more: true });
  await raw.transport.close();
});

test('a malformed response is not answered; it fails the pending request it names', async () => {
  const raw = await ready();
  const pending = raw.session.request('roots/list');
  const req = await raw.next();
  raw.send({ jsonrpc: '2.0', id: req.id, result: 'not an object' });
  await rejectsLocally(pending, 'protocol', /malformed response.*"result" must be an object/);
  raw.send({ jsonrpc: '2.0', id: 12345, error: 'nope' });
  await raw.silence();
  assert.ok(raw.errors.some((e) => /malformed response to request 12345/.test(e.message)));
  await stillServing(raw);
});

test('size limit: an oversized frame gets a clear -32600 and the peer keeps serving', async () => {
  const raw = await ready({ limits: { maxMessageSize: 2048 } });
  const r = await raw.call({ jsonrpc: '2.0', id: 1, method: 'test/echo', params: { s: 'x'.repeat(5000) } });
  assert.equal(r.error.code, -32600);
  assert.match(r.error.message, /too large.*limit of 2048/);
  assert.equal(r.id, null);
  const small = await raw.call({ jsonrpc: '2.0', id: 2, method: 'test/echo', params: { s: 'x'.repeat(100) } });
  assert.equal(small.result.echo.s.length, 100);
});

test('depth limit: deeply nested params get -32600 with the id; a 100k-deep array does not crash', async () => {
  const raw = await ready({ limits: { maxDepth: 16 } });
  let params: unknown = 'leaf';
  for (let i = 0; i < 40; i++) params = { p: params };
  const r = await raw.call({ jsonrpc: '2.0', id: 'deep', method: 'test/echo', params });
  assert.equal(r.id, 'deep');
  assert.equal(r.error.code, -32600);
  assert.match(r.error.message, /nested deeper than the limit of 16/);

  const n = 100_000;
  const huge = await raw.call('['.repeat(n) + ']'.repeat(n));
  assert.equal(huge.error.code, -32600);
  assert.equal(huge.id, null);
  const hugeParams = await raw.call(`{"jsonrpc":"2.0","id":3,"method":"test/echo","params":{"a":${'['.repeat(n)}${']'.repeat(n)}}}`);
  assert.equal(hugeParams.error.code, -32600);
  assert.equal(hugeParams.id, 3);
  await stillServing(raw);
});

test('the client also survives garbage from the server and keeps working', async () => {
  const { server } = testServer();
  const { client, session, serverSide, clientErrors } = await clientPair(server);
  const seen: unknown[] = [];
  session.peer.use({
    incoming: async (m, next) => {
      seen.push(m);
      return next(m);
    },
  });
  serverSide.sendRaw('not json');
  serverSide.sendRaw('{"jsonrpc":"2.0","id":99,"method":7}');
  serverSide.sendRaw('{"jsonrpc":"2.0","id":424242,"result":{}}'); // unknown id: dropped
  await flush();
  // The client answered the two bad frames with errors; nothing was thrown.
  const codes = seen.map((m) => (m as { error?: { code: number } }).error?.code);
  assert.deepEqual(codes, [-32700, -32600]);
  assert.deepEqual(clientErrors, []);
  assert.deepEqual(await client.ping(), {});
  await client.close();
});
