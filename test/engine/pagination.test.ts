import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import { clientPair, rawClient, rejectsWithCode } from '../jsonrpc/harness.js';

const NAMES = ['t1', 't2', 't3', 't4', 't5'];

function fiveTools(pageSize = 2): McpServer {
  const server = new McpServer({ name: 'paged', version: '1.0.0', pageSize, onerror: () => {} });
  for (const n of NAMES) server.tool(n, () => n);
  for (const n of ['p1', 'p2', 'p3']) server.prompt(n, () => n);
  return server;
}

test('pageSize 2 with 5 tools: pages of 2/2/1 with opaque cursors; the last page has no nextCursor', async () => {
  const server = fiveTools();
  const { client, wire } = await clientPair(server.server);
  const p1 = await client.listTools();
  assert.deepEqual(
    p1.tools.map((t) => t.name),
    ['t1', 't2'],
  );
  assert.equal(typeof p1.nextCursor, 'string');
  const p2 = await client.listTools({ cursor: p1.nextCursor });
  assert.deepEqual(
    p2.tools.map((t) => t.name),
    ['t3', 't4'],
  );
  assert.equal(typeof p2.nextCursor, 'string');
  assert.notEqual(p2.nextCursor, p1.nextCursor);
  const p3 = await client.listTools({ cursor: p2.nextCursor });
  assert.deepEqual(
    p3.tools.map((t) => t.name),
    ['t5'],
  );
  assert.equal('nextCursor' in p3, false);
  // Opaque: not a bare offset or a name.
  for (const c of [p1.nextCursor!, p2.nextCursor!]) {
    assert.doesNotMatch(c, /^\d+$/);
    assert.ok(!NAMES.includes(c));
  }
  // The first request carries no cursor; later ones carry exactly what the server gave.
  const sent = (wire.messages('tools/list') as Array<{ params?: JsonObject }>).map((m) => m.params?.cursor);
  assert.deepEqual(sent, [undefined, p1.nextCursor, p2.nextCursor]);
  // The same cursor gives the same page again (it is a position, not a one-shot token).
  assert.deepEqual(
    (await client.listTools({ cursor: p1.nextCursor })).tools.map((t) => t.name),
    ['t3', 't4'],
  );
  await client.close();
});

test('listAllTools collects all 5 across pages (and listAllPrompts likewise)', async () => {
  const server = fiveTools();
  const { client, wire } = await clientPair(server.server);
  assert.deepEqual(
    (await client.listAllTools()).map((t) => t.name),
    NAMES,
  );
  assert.equal(wire.messages('tools/list').length, 3);
  assert.deepEqual(
    (await client.listAllPrompts()).map((p) => p.name),
    ['p1', 'p2', 'p3'],
  );
  const seen: string[] = [];
  for await (const t of client.paginate('tools/list')) seen.push(t.name);
  assert.deepEqual(seen, NAMES);
  await client.close();
});

test('a page size at least the list length gives one page without nextCursor', async () => {
  const server = fiveTools(5);
  const { client } = await clientPair(server.server);
  const r = await client.listTools();
  assert.equal(r.tools.length, 5);
  assert.equal('nextCursor' in r, false);
  await client.close();
});

test('an invalid cursor is -32602', async () => {
  const server = fiveTools();
  const { client } = await clientPair(server.server);
  const { nextCursor } = await client.listTools();
  // Garbage, a doubled cursor, one pointing past the end, and a bare offset.
  for (const cursor of ['garbage', '', nextCursor! + nextCursor!, Buffer.from('o999').toString('base64url'), '2']) {
    await rejectsWithCode(client.listTools({ cursor }), -32602, /cursor/);
  }
  await client.close();
  // Non-string cursors, sent raw.
  const raw = await rawClient(server.server);
  await raw.initialize();
  for (const cursor of [5, { o: 2 }, true]) {
    const r = await raw.call({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor } });
    assert.equal(r.error.code, -32602);
  }
  // A null cursor means "from the start".
  const ok = await raw.call({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: null } });
  assert.deepEqual(
    ok.result.tools.map((t: { name: string }) => t.name),
    ['t1', 't2'],
  );
});
