import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { rawClient, testServer } from './harness.js';

const BATCH_ONLY = /batches are only accepted with protocol version 2025-03-26/;

test('2025-03-26: a batch is answered with one array; its notifications get no reply', async () => {
  const { server } = testServer();
  const notes: string[] = [];
  server.setNotificationHandler('test/note', (p) => void notes.push(String(p?.n)));
  const raw = await rawClient(server);
  const init = await raw.initialize('2025-03-26');
  assert.equal(init.result.protocolVersion, '2025-03-26');
  const r = await raw.call([
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', method: 'test/note', params: { n: 1 } },
    { jsonrpc: '2.0', id: 'b', method: 'test/echo', params: { v: 2 } },
    { jsonrpc: '2.0', id: 0, method: 'test/wait', params: { ms: 10 } },
  ]);
  assert.ok(Array.isArray(r), 'one array frame');
  assert.equal(r.length, 3);
  const byId = new Map(r.map((x: { id: unknown }) => [x.id, x]));
  assert.deepEqual(byId.get(1), { jsonrpc: '2.0', id: 1, result: {} });
  assert.deepEqual(byId.get('b'), { jsonrpc: '2.0', id: 'b', result: { echo: { v: 2 } } });
  assert.deepEqual(byId.get(0), { jsonrpc: '2.0', id: 0, result: { waited: true } });
  assert.deepEqual(notes, ['1']);
  await raw.silence(20);
});

test('2025-03-26: invalid items and handler errors are answered inside the array', async () => {
  const { server } = testServer();
  const raw = await rawClient(server);
  await raw.initialize('2025-03-26');
  const r = await raw.call([
    { jsonrpc: '2.0', id: 1, method: 'test/boom' },
    { jsonrpc: '2.0', id: 2, method: 42 },
    'junk',
    { jsonrpc: '2.0', id: 3, method: 'nope' },
  ]);
  assert.ok(Array.isArray(r));
  const codes = r.map((x: { id: unknown; error: { code: number } }) => [x.id, x.error.code]);
  assert.deepEqual(
    codes.sort((a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]))),
    [
      [1, -32603],
      [2, -32600],
      [3, -32601],
      [null, -32600],
    ],
  );
});

test('2025-03-26: a batch of notifications only gets no reply at all', async () => {
  const { server } = testServer();
  const notes: unknown[] = [];
  server.setNotificationHandler('test/note', (p) => void notes.push(p?.n));
  const raw = await rawClient(server);
  await raw.initialize('2025-03-26');
  raw.send([
    { jsonrpc: '2.0', method: 'test/note', params: { n: 1 } },
    { jsonrpc: '2.0', method: 'test/note', params: { n: 2 } },
  ]);
  await raw.silence(30);
  assert.deepEqual(notes, [1, 2]);
});

test("2025-03-26: batched responses settle the server's own requests", async () => {
  const { server } = testServer();
  const raw = await rawClient(server);
  await raw.initialize('2025-03-26', { roots: {} });
  const a = raw.session.request('roots/list');
  const b = raw.session.ping();
  const [ra, rb] = [await raw.next(), await raw.next()];
  raw.send([
    { jsonrpc: '2.0', id: rb.id, result: {} },
    { jsonrpc: '2.0', id: ra.id, result: { roots: [{ uri: 'file:///x' }] } },
  ]);
  assert.deepEqual(await a, { roots: [{ uri: 'file:///x' }] });
  assert.deepEqual(await b, {});
  await raw.silence(20);
});

test('batch messages and replies pass through message middleware, in one array', async () => {
  const { server } = testServer();
  const seen: string[] = [];
  server.use({
    incoming: async (m, next) => {
      seen.push(`in ${'method' in m ? m.method : 'response'}`);
      // Dropping a message of the batch: it gets no reply.
      if ('method' in m && m.method === 'test/drop') return;
      return next(m);
    },
    outgoing: async (m, next) => {
      seen.push(`out ${'id' in m ? String(m.id) : '-'}`);
      return next('result' in m ? ({ ...m, result: { ...m.result, tagged: true } } as JsonRpcMessage) : m);
    },
  });
  const raw = await rawClient(server);
  await raw.initialize('2025-03-26');
  seen.length = 0;
  const r = await raw.call([
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'test/drop' },
  ]);
  assert.deepEqual(r, [{ jsonrpc: '2.0', id: 1, result: { tagged: true } }]);
  // How the batch's messages and replies interleave is not specified (a synchronous handler's
  // reply may pass before the next message comes in); that each passes exactly once is.
  assert.deepEqual([...seen].sort(), ['in ping', 'in test/drop', 'out 1']);
});

for (const version of ['2025-06-18', '2025-11-25', '2024-11-05']) {
  test(`${version}: a batch is rejected with one clear -32600 and nothing in it runs`, async () => {
    const { server } = testServer();
    let ran = 0;
    server.setRequestHandler('test/count', () => ({ n: ++ran }));
    const raw = await rawClient(server);
    const init = await raw.initialize(version);
    assert.equal(init.result.protocolVersion, version);
    const r = await raw.call([
      { jsonrpc: '2.0', id: 1, method: 'test/count' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    assert.ok(!Array.isArray(r));
    assert.equal(r.id, null);
    assert.equal(r.error.code, -32600);
    assert.match(r.error.message, BATCH_ONLY);
    assert.equal(ran, 0);
    assert.deepEqual((await raw.call({ jsonrpc: '2.0', id: 3, method: 'test/count' })).result, { n: 1 });
  });
}

test('before initialize a batch is rejected (initialize is never batched)', async () => {
  const { server } = testServer();
  const raw = await rawClient(server);
  const r = await raw.call([
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
  ]);
  assert.equal(r.error.code, -32600);
  assert.match(r.error.message, BATCH_ONLY);
  assert.equal(raw.session.initialized, false);
  // A plain initialize still works afterwards.
  assert.equal((await raw.initialize('2025-03-26')).result.protocolVersion, '2025-03-26');
});

test('an empty batch is -32600 in every version', async () => {
  for (const version of ['2025-03-26', '2025-11-25']) {
    const { server } = testServer();
    const raw = await rawClient(server);
    await raw.initialize(version);
    const r = await raw.call('[]');
    assert.deepEqual(r, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: empty batch' } });
    assert.deepEqual((await raw.call({ jsonrpc: '2.0', id: 1, method: 'ping' })).result, {});
  }
});
