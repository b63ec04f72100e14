// The client's result cache (SEP-2549): fresh while now < received + ttlMs, per page and per
// uri, invalidated by list_changed / resources/updated, off with `cache: false`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResultCache } from '../../../src/client/cache.js';
import type { ReadResourceResult } from '../../../src/protocol/params.js';
import { McpServer, type McpServerOptions } from '../../../src/server/mcp-server.js';
import { memoryClient } from './helpers.js';
import { ManualClock, waitFor } from '../../support/index.js';

function server(options: Partial<McpServerOptions> = {}): McpServer {
  const s = new McpServer({ name: 'cache', version: '1.0.0', onerror: () => {}, modern: { cache: { ttlMs: 60_000, scope: 'public' } }, ...options });
  s.tool('a', () => 'a');
  s.tool('b', () => 'b');
  s.tool('c', () => 'c');
  s.prompt('p', () => 'p');
  let reads = 0;
  s.resource('counter', 'file:///counter', () => String(++reads));
  s.resource('other', 'file:///other', () => 'other');
  return s;
}

const body = (r: ReadResourceResult) => (r.contents[0] as { text?: string }).text;

test('cache: a fresh list or read is served locally; other methods and uris are separate entries', async () => {
  const { client, wire } = await memoryClient(server());
  const first = await client.listTools();
  const second = await client.listTools();
  assert.deepEqual(second, first);
  assert.equal(first.ttlMs, 60_000);
  assert.equal(first.cacheScope, 'public');
  assert.equal(wire.requests('tools/list').length, 1);
  // A copy each time: changing what you got does not change the cache.
  second.tools.length = 0;
  assert.equal((await client.listTools()).tools.length, 3);
  assert.equal(body(await client.readResource('file:///counter')), '1');
  assert.equal(body(await client.readResource('file:///counter')), '1');
  assert.equal(body(await client.readResource('file:///other')), 'other');
  assert.equal(wire.requests('resources/read').length, 2);
  await client.listPrompts();
  await client.listPrompts();
  assert.equal(wire.requests('prompts/list').length, 1);
  await client.close();
});

test('cache: list_changed and resources/updated arriving on a listen stream invalidate', async () => {
  const s = server();
  const { client, wire } = await memoryClient(s);
  const sub = client.listen({ toolsListChanged: true, resourceSubscriptions: ['file:///counter'] });
  await sub.acknowledged;
  assert.equal((await client.listTools()).tools.length, 3);
  assert.equal(body(await client.readResource('file:///counter')), '1');
  await client.readResource('file:///other');
  s.tool('d', () => 'd');
  await waitFor(() => wire.received.some((m) => m.method === 'notifications/tools/list_changed'));
  assert.equal((await client.listTools()).tools.length, 4);
  assert.equal(wire.requests('tools/list').length, 2);
  s.resourceUpdated('file:///counter');
  await waitFor(() => wire.received.some((m) => m.method === 'notifications/resources/updated'));
  assert.equal(body(await client.readResource('file:///counter')), '2');
  await client.readResource('file:///other');
  assert.equal(wire.requests('resources/read').length, 3, 'only the updated uri was dropped');
  await sub.close();
  await client.close();
});

test('cache: entries expire after ttlMs; ttlMs 0 is never cached; cache:false always asks', async () => {
  const clock = new ManualClock();
  const short = await memoryClient(server({ modern: { cache: { ttlMs: 40, scope: 'public' } } }), { clock });
  await short.client.listTools();
  clock.advance(39);
  await short.client.listTools();
  assert.equal(short.wire.requests('tools/list').length, 1, 'fresh for its whole ttlMs');
  clock.advance(1);
  await short.client.listTools();
  assert.equal(short.wire.requests('tools/list').length, 2);
  await short.client.close();

  const none = await memoryClient(server({ modern: {} }));
  await none.client.listTools();
  await none.client.listTools();
  assert.equal(none.wire.requests('tools/list').length, 2);
  await none.client.close();

  const off = await memoryClient(server(), { cache: false });
  await off.client.listTools();
  await off.client.listTools();
  assert.equal(off.wire.requests('tools/list').length, 2);
  await off.client.close();
});

test('cache: each page is its own entry', async () => {
  const { client, wire } = await memoryClient(server({ pageSize: 1 }));
  assert.deepEqual(
    (await client.listAllTools()).map((t) => t.name),
    ['a', 'b', 'c'],
  );
  assert.equal(wire.requests('tools/list').length, 3);
  assert.deepEqual(
    (await client.listAllTools()).map((t) => t.name),
    ['a', 'b', 'c'],
  );
  assert.equal(wire.requests('tools/list').length, 3, 'every page from the cache');
  await client.close();
});

test('cache: the handshake era caches nothing', async () => {
  const { client, wire } = await memoryClient(server(), { era: 'handshake' });
  await client.listTools();
  await client.listTools();
  assert.equal(wire.requests('tools/list').length, 2);
  await client.close();
});

test('ResultCache: private entries are per credential, public ones shared; retries never cached', () => {
  let now = 1000;
  const cache = new ResultCache(() => now);
  const priv = { tools: [{ name: 'mine' }], ttlMs: 100, cacheScope: 'private', resultType: 'complete' };
  cache.put('tools/list', undefined, priv, 'alice', now);
  assert.deepEqual(cache.get('tools/list', undefined, 'alice'), priv);
  assert.equal(cache.get('tools/list', undefined, 'bob'), undefined);
  assert.equal(cache.get('tools/list', undefined, undefined), undefined);
  const pub = { contents: [], ttlMs: 100, cacheScope: 'public' };
  cache.put('resources/read', { uri: 'file:///x' }, pub, 'alice', now);
  assert.deepEqual(cache.get('resources/read', { uri: 'file:///x' }, 'bob'), pub);
  // A missing scope is treated as private.
  cache.put('prompts/list', undefined, { prompts: [], ttlMs: 100 }, 'alice', now);
  assert.equal(cache.get('prompts/list', undefined, 'bob'), undefined);
  // Freshness: now < received + ttlMs.
  now = 1099;
  assert.ok(cache.get('tools/list', undefined, 'alice'));
  now = 1100;
  assert.equal(cache.get('tools/list', undefined, 'alice'), undefined);
  assert.equal(ResultCache.accepts('resources/read', { uri: 'u', requestState: 's' }), false);
  assert.equal(ResultCache.accepts('resources/read', { uri: 'u', inputResponses: {} }), false);
  assert.equal(ResultCache.accepts('tools/call', { name: 'x' }), false);
  assert.equal(ResultCache.accepts('resources/templates/list', { cursor: '' }), true);
});
