// Resource subscriptions and completions through the gateway, over real HTTP, for clients of both
// eras and backends of both eras. A handshake-era client subscribes with resources/subscribe, a
// 2026-07-28 one on its listen stream; either way the backend is subscribed while someone is
// (resources/subscribe, or a listen stream of the gateway's own), updates reach only those who
// subscribed, under the URI they know, and a resource the policy hides cannot be subscribed to.
// Completions of prompts and templates are forwarded under the backend's own names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { ErrorCode, type McpError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { allowAllPolicy } from '../../src/gateway/allow-all.js';
import { waitFor } from '../support/index.js';

function docsServer(era: 'modern' | 'handshake') {
  const server = new McpServer({ name: 'docs', version: '1.0.0', ...(era === 'handshake' ? { modern: false as const } : {}) });
  const upstream: string[] = [];
  server.use(async (method, params, _ctx, next) => {
    if (method === 'resources/subscribe' || method === 'resources/unsubscribe') upstream.push(`${method} ${String(params?.uri)}`);
    return next();
  });
  server.resource('counter', 'file:///counter.txt', () => 'counter');
  server.resource('other', 'file:///other.txt', () => 'other');
  server.resource('secret', 'file:///secret.txt', () => 'secret');
  const names = ['Ada', 'Alan', 'Bob'];
  server.prompt(
    'greet',
    { args: [{ name: 'name', required: true }], complete: { name: (v) => names.filter((n) => n.startsWith(v)) } },
    ({ name }) => `Hi ${name}`,
  );
  server.resourceTemplate(
    'note',
    'file:///notes/{id}',
    { complete: { id: (v) => ['1', '12', '2'].filter((n) => n.startsWith(v)) } },
    (_u, { id }) => `note ${id}`,
  );
  return { server, upstream };
}

for (const backendEra of ['modern', 'handshake'] as const) {
  test(`resources/subscribe and completion/complete through the gateway, clients of both eras (backend: ${backendEra})`, async (t) => {
    const docs = docsServer(backendEra);
    const upstream = await serve(docs.server, { port: 0 });
    const base = allowAllPolicy();
    const gateway = createGateway({
      servers: { docs: { url: upstream.url, era: backendEra } },
      policy: { ...base, visible: (_who, item) => item.name !== 'mcpgw://docs/file:///secret.txt' },
    });
    const front = await gateway.listen({ port: 0 });
    t.after(async () => {
      await gateway.close();
      await upstream.close();
    });
    await gateway.ready;
    const handshake = await connect(front.url, { era: 'handshake' });
    const modern = await connect(front.url, { era: 'modern' });
    const bystander = await connect(front.url, { era: 'handshake' });
    t.after(() => Promise.all([handshake.close(), modern.close(), bystander.close()]));
    const listensBefore = docs.server.server.modern?.listenCount ?? 0;

    const seen = { handshake: [] as string[], modern: [] as string[], bystander: [] as string[] };
    handshake.on('notifications/resources/updated', (p: { uri: string }) => seen.handshake.push(p.uri));
    bystander.on('notifications/resources/updated', (p: { uri: string }) => seen.bystander.push(p.uri));

    // Another spelling of the same resource: held, and its updates named canonically.
    await handshake.subscribeResource('MCPGW://docs/file:///%63ounter.txt');
    // A hidden resource is not found, as for a read.
    await assert.rejects(handshake.subscribeResource('mcpgw://docs/file:///secret.txt'), (e: McpError) => e.code === ErrorCode.ResourceNotFound);
    const sub = modern.listen(
      {
        resourceSubscriptions: [
          'mcpgw://docs/file:///counter.txt',
          'mcpgw://docs/file:///a/../other.txt',
          'mcpgw://docs/file:///secret.txt',
          'mcpgw://nobody/x',
        ],
      },
      (n) => seen.modern.push(String(n.params?.uri)),
    );
    const ack = await sub.acknowledged;
    assert.deepEqual(ack.resourceSubscriptions, ['mcpgw://docs/file:///counter.txt', 'mcpgw://docs/file:///other.txt']);
    if (backendEra === 'handshake') assert.deepEqual(docs.upstream, ['resources/subscribe file:///counter.txt', 'resources/subscribe file:///other.txt']);
    else assert.equal(docs.server.server.modern?.listenCount, listensBefore + 2, 'one listen stream per URI held');

    docs.server.resourceUpdated('file:///counter.txt');
    docs.server.resourceUpdated('file:///secret.txt');
    await waitFor(() => seen.handshake.length === 1 && seen.modern.length === 1, 'the counter update to both subscribers');
    docs.server.resourceUpdated('file:///other.txt');
    await waitFor(() => seen.modern.length === 2, 'the other update to the listen stream');
    assert.deepEqual(seen.handshake, ['mcpgw://docs/file:///counter.txt']);
    assert.deepEqual(seen.modern, ['mcpgw://docs/file:///counter.txt', 'mcpgw://docs/file:///other.txt']);

    // Letting go: the last holder of a URI unsubscribes the backend.
    await handshake.unsubscribeResource('mcpgw://docs/file:///counter.txt');
    assert.equal(docs.upstream.includes('resources/unsubscribe file:///counter.txt'), false, 'the listen stream still holds it');
    await sub.close();
    if (backendEra === 'handshake') {
      await waitFor(() => docs.upstream.length === 4, 'both URIs let go');
      assert.deepEqual(docs.upstream.slice(2).sort(), ['resources/unsubscribe file:///counter.txt', 'resources/unsubscribe file:///other.txt']);
    } else await waitFor(() => docs.server.server.modern?.listenCount === listensBefore, 'the listen streams of the gateway closed');
    docs.server.resourceUpdated('file:///counter.txt');
    // A marker after it: when it has arrived, the update before it would have too.
    await handshake.subscribeResource('mcpgw://docs/file:///other.txt');
    docs.server.resourceUpdated('file:///other.txt');
    await waitFor(() => seen.handshake.length === 2, 'the marker update');
    assert.deepEqual(seen.handshake, ['mcpgw://docs/file:///counter.txt', 'mcpgw://docs/file:///other.txt']);
    assert.deepEqual(seen.bystander, [], 'who did not subscribe hears nothing');

    // Completions, in both eras: a prompt's argument and a template's variable.
    for (const client of [handshake, modern]) {
      const names = await client.complete({ ref: { type: 'ref/prompt', name: 'docs_greet' }, argument: { name: 'name', value: 'A' } });
      assert.deepEqual(names.completion.values, ['Ada', 'Alan']);
      const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'mcpgw://docs/file:///notes/{id}' }, argument: { name: 'id', value: '1' } });
      assert.deepEqual(ids.completion.values, ['1', '12']);
      await assert.rejects(
        client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } }),
        (e: McpError) => e.code === ErrorCode.InvalidParams && /Unknown prompt: greet/.test(e.message),
      );
    }
  });
}
