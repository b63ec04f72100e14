// mount() forwards resource subscriptions and completions: an app served over real HTTP mounts a
// docs server (over HTTP too, of either era); clients of both eras subscribe to a mounted
// resource (resources/subscribe, or a 2026-07-28 listen stream), the mounted server is subscribed
// while someone is, its updates reach them under the mounted URI, and completions of mounted
// prompts and templates are the mounted server's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { mount } from '../../src/gateway/mount.js';
import { waitFor } from '../support/index.js';

function docsServer(era: 'modern' | 'handshake') {
  const server = new McpServer({ name: 'docs', version: '1.0.0', ...(era === 'handshake' ? { modern: false as const } : {}) });
  const upstream: string[] = [];
  server.use(async (method, params, _ctx, next) => {
    if (method === 'resources/subscribe' || method === 'resources/unsubscribe') upstream.push(`${method} ${String(params?.uri)}`);
    return next();
  });
  server.resource('counter', 'file:///counter.txt', () => 'counter');
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

for (const sourceEra of ['modern', 'handshake'] as const) {
  test(`a mounted resource is subscribed through the app, and mounted completions answer (source: ${sourceEra})`, async (t) => {
    const docs = docsServer(sourceEra);
    const source = await serve(docs.server, { port: 0 });
    const app = new McpServer({ name: 'app', version: '1.0.0' });
    app.tool('hello', {}, () => 'hello');
    const mounted = mount(app, source.url, { namespace: 'docs' });
    await mounted.ready;
    const running = await serve(app, { port: 0 });
    t.after(async () => {
      await running.close();
      await mounted.close();
      await source.close();
    });
    const listensBefore = docs.server.server.modern?.listenCount ?? 0;
    const handshake = await connect(running.url, { era: 'handshake' });
    const modern = await connect(running.url, { era: 'modern' });
    t.after(() => Promise.all([handshake.close(), modern.close()]));

    const seen = { handshake: [] as string[], modern: [] as string[] };
    handshake.on('notifications/resources/updated', (p: { uri: string }) => seen.handshake.push(p.uri));
    await handshake.subscribeResource('mcpgw://docs/file:///counter.txt');
    const sub = modern.listen({ resourceSubscriptions: ['mcpgw://docs/file:///counter.txt'] }, (n) => seen.modern.push(String(n.params?.uri)));
    assert.deepEqual((await sub.acknowledged).resourceSubscriptions, ['mcpgw://docs/file:///counter.txt']);
    if (sourceEra === 'handshake') assert.deepEqual(docs.upstream, ['resources/subscribe file:///counter.txt']);
    else assert.equal(docs.server.server.modern?.listenCount, listensBefore + 1, 'the source holds one listen stream for it');

    docs.server.resourceUpdated('file:///counter.txt');
    await waitFor(() => seen.handshake.length === 1 && seen.modern.length === 1, 'the update to both subscribers');
    assert.deepEqual(seen, { handshake: ['mcpgw://docs/file:///counter.txt'], modern: ['mcpgw://docs/file:///counter.txt'] });

    await handshake.unsubscribeResource('mcpgw://docs/file:///counter.txt');
    await sub.close();
    if (sourceEra === 'handshake') await waitFor(() => docs.upstream.length === 2, 'the source unsubscribed');
    else await waitFor(() => docs.server.server.modern?.listenCount === listensBefore, 'the listen stream for it closed');
    if (sourceEra === 'handshake') assert.equal(docs.upstream[1], 'resources/unsubscribe file:///counter.txt');

    for (const client of [handshake, modern]) {
      const names = await client.complete({ ref: { type: 'ref/prompt', name: 'docs_greet' }, argument: { name: 'name', value: 'A' } });
      assert.deepEqual(names.completion.values, ['Ada', 'Alan']);
      const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'mcpgw://docs/file:///notes/{id}' }, argument: { name: 'id', value: '1' } });
      assert.deepEqual(ids.completion.values, ['1', '12']);
    }
  });
}
