// subscriptions/listen, client side: acknowledgement, demultiplexing by subscriptionId,
// several streams at once, closing from either side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { discoverResult, M, memoryClient, scriptedClient } from './helpers.js';
import { flush, waitFor } from '../../support/index.js';

function server(): McpServer {
  const s = new McpServer({ name: 'listen', version: '1.0.0', onerror: () => {} });
  s.tool('a', () => 'a');
  s.prompt('p', () => 'p');
  s.resource('r', 'file:///r', () => 'r');
  return s;
}

type Seen = { method: string; params: Record<string, any> | undefined };

test('listen: acknowledgement, a tool list change, then close() cancels the stream', async () => {
  const s = server();
  const { client, wire } = await memoryClient(s);
  const seen: Seen[] = [];
  const onAll: unknown[] = [];
  client.on('notifications/tools/list_changed', (p) => onAll.push(p));
  const sub = client.listen({ toolsListChanged: true, promptsListChanged: true }, (n) => seen.push(n));
  assert.deepEqual(await sub.acknowledged, { toolsListChanged: true, promptsListChanged: true });
  const [listen] = wire.requests('subscriptions/listen');
  assert.deepEqual(listen.params!.notifications, { toolsListChanged: true, promptsListChanged: true });
  assert.equal(listen.params!._meta[M.protocolVersion], '2026-07-28', 'the listen request carries the envelope');
  s.tool('b', () => 'b');
  await waitFor(() => seen.length === 1, 'the list_changed notification');
  assert.equal(seen[0].method, 'notifications/tools/list_changed');
  assert.equal(seen[0].params?._meta?.[M.subscriptionId], listen.id);
  assert.equal(onAll.length, 1, 'client.on() listeners get listen notifications too');
  assert.equal(s.server.modern!.listenCount, 1);
  await sub.close();
  await sub.ended;
  // stdio-like transports cancel with notifications/cancelled for the listen id.
  assert.deepEqual(
    wire.requests('notifications/cancelled').map((m) => m.params!.requestId),
    [listen.id],
  );
  await waitFor(() => s.server.modern!.listenCount === 0, 'the server to drop the stream');
  s.tool('c', () => 'c');
  await flush(); // in-memory deliveries (no timers) have run
  assert.equal(seen.length, 1, 'nothing after close');
  await client.close();
});

test('listen: several streams at once, each gets only its own notifications', async () => {
  const s = server();
  const { client } = await memoryClient(s);
  const tools: Seen[] = [];
  const prompts: Seen[] = [];
  const resources: Seen[] = [];
  const t = client.listen({ toolsListChanged: true }, (n) => tools.push(n));
  const p = client.listen({ promptsListChanged: true }, (n) => prompts.push(n));
  const r = client.listen({ resourceSubscriptions: ['file:///r'] }, (n) => resources.push(n));
  await Promise.all([t.acknowledged, p.acknowledged, r.acknowledged]);
  assert.deepEqual(await r.acknowledged, { resourceSubscriptions: ['file:///r'] });
  s.tool('b', () => 'b');
  await waitFor(() => tools.length === 1);
  s.prompt('q', () => 'q');
  await waitFor(() => prompts.length === 1);
  s.resourceUpdated('file:///r');
  s.resourceUpdated('file:///other');
  await waitFor(() => resources.length === 1);
  await flush(); // in-memory deliveries (no timers) have run
  assert.deepEqual([tools.length, prompts.length, resources.length], [1, 1, 1]);
  assert.equal(tools[0].method, 'notifications/tools/list_changed');
  assert.equal(prompts[0].method, 'notifications/prompts/list_changed');
  assert.deepEqual(resources[0], { method: 'notifications/resources/updated', params: { uri: 'file:///r', _meta: resources[0].params!._meta } });
  await Promise.all([t.close(), p.close(), r.close()]);
  await client.close();
});

test('listen: the server ending the stream (final result) ends the subscription', async () => {
  const s = server();
  const { client } = await memoryClient(s);
  const sub = client.listen({ toolsListChanged: true });
  await sub.acknowledged;
  let ended = false;
  void sub.ended.then(() => (ended = true));
  await s.server.modern!.endAll();
  await waitFor(() => ended, 'the subscription to end');
  await client.close();
});

test('listen: the connection closing ends every stream; an unacknowledged one rejects its acknowledgement', async () => {
  const s = server();
  const { client } = await memoryClient(s);
  const sub = client.listen({ toolsListChanged: true });
  await sub.acknowledged;
  const early = client.listen({ promptsListChanged: true });
  await client.close();
  await sub.ended;
  await early.ended;
  await assert.rejects(early.acknowledged);
  assert.throws(
    () => client.listen({}),
    (e: unknown) => e instanceof LocalError && e.kind === 'closed',
  );
});

test('listen: notifications/cancelled from the server for the listen id ends the stream too', async () => {
  const { client, connecting } = await scriptedClient((m, push) => {
    if (m.method === 'server/discover') return { result: discoverResult({ tools: { listChanged: true } }) };
    if (m.method === 'subscriptions/listen') {
      const tag = { [M.subscriptionId]: m.id };
      push({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: tag } });
      push({ method: 'notifications/tools/list_changed', params: { _meta: tag } });
      // An untagged or foreign-tagged notification is not this stream's.
      push({ method: 'notifications/tools/list_changed', params: { _meta: { [M.subscriptionId]: 'someone-else' } } });
      setTimeout(() => push({ method: 'notifications/cancelled', params: { requestId: m.id, reason: 'server shutting down' } }), 10);
    }
    return undefined;
  });
  await connecting;
  const seen: string[] = [];
  const sub = client.listen({ toolsListChanged: true }, (n) => seen.push(n.method));
  assert.deepEqual(await sub.acknowledged, { toolsListChanged: true });
  await sub.ended;
  assert.deepEqual(seen, ['notifications/tools/list_changed']);
  await client.close();
});

test('listen needs the 2026-07-28 era', async () => {
  const { client } = await memoryClient(server(), { era: 'handshake' });
  assert.throws(
    () => client.listen({ toolsListChanged: true }),
    (e: unknown) => e instanceof LocalError && e.kind === 'capability' && /2026-07-28/.test(e.message),
  );
  await client.close();
});
