import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { createTestPair } from '../../src/testing/index.js';
import { rejectsWithCode } from './helpers.js';
import { flush } from '../support/index.js';

const newServer = () => new McpServer({ name: 'res-test', version: '1.0.0' });

test('resources: static text resource, with and without a mimeType', async () => {
  const server = newServer();
  server.resource('readme', 'file:///readme.md', { mimeType: 'text/markdown', description: 'The readme' }, () => '# Hi');
  server.resource('plain', 'file:///plain', () => 'no mime');
  server.resource('explicit', 'file:///explicit', () => ({ text: '{}', mimeType: 'application/json' }));
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  assert.deepEqual(await client.readResource('file:///readme.md'), {
    contents: [{ uri: 'file:///readme.md', text: '# Hi', mimeType: 'text/markdown' }],
  });
  assert.deepEqual(await client.readResource('file:///plain'), { contents: [{ uri: 'file:///plain', text: 'no mime' }] });
  assert.deepEqual(await client.readResource('file:///explicit'), {
    contents: [{ uri: 'file:///explicit', text: '{}', mimeType: 'application/json' }],
  });
  await close();
});

test('resources: binary content (Uint8Array) becomes a base64 blob with its mimeType', async () => {
  const server = newServer();
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  // A view into a larger buffer: only its own bytes may be encoded.
  const big = new Uint8Array([9, 9, 0x89, 0x50, 0x4e, 0x47, 9]);
  server.resource('logo', 'file:///logo.png', { mimeType: 'image/png' }, () => bytes);
  server.resource('slice', 'file:///slice.png', { mimeType: 'image/png' }, () => big.subarray(2, 6));
  server.resource('blob-obj', 'file:///b', () => ({ blob: new Uint8Array([1]), mimeType: 'application/octet-stream' }));
  const { client, close } = await createTestPair(server);
  const r = await client.readResource('file:///logo.png');
  assert.deepEqual(r.contents, [{ uri: 'file:///logo.png', blob: Buffer.from(bytes).toString('base64'), mimeType: 'image/png' }]);
  assert.deepEqual([...Buffer.from((r.contents[0] as { blob: string }).blob, 'base64')], [0, 1, 2, 250, 255]);
  const s = await client.readResource('file:///slice.png');
  assert.equal((s.contents[0] as { blob: string }).blob, Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'));
  assert.deepEqual((await client.readResource('file:///b')).contents, [{ uri: 'file:///b', blob: 'AQ==', mimeType: 'application/octet-stream' }]);
  await close();
});

test('resources: a handler may return several contents (e.g. a directory)', async () => {
  const server = newServer();
  server.resource('dir', 'file:///dir/', { mimeType: 'inode/directory' }, () => [
    { uri: 'file:///dir/a.txt', text: 'a', mimeType: 'text/plain' },
    { uri: 'file:///dir/b.bin', blob: 'AA==' },
  ]);
  const { client, close } = await createTestPair(server);
  const r = await client.readResource('file:///dir/');
  assert.equal(r.contents.length, 2);
  assert.equal(r.contents[0].uri, 'file:///dir/a.txt');
  await close();
});

test('resources: templates match URIs and hand the variables to the handler', async () => {
  const server = newServer();
  const calls: Array<{ uri: string; vars: unknown }> = [];
  server.resourceTemplate('docs', 'file:///docs/{name}', { mimeType: 'text/plain' }, (uri, vars) => {
    calls.push({ uri, vars });
    return `doc ${String(vars.name)}`;
  });
  server.resourceTemplate('user-repo', 'repo://{owner}/{repo}/issues', {}, (_uri, vars) => `${String(vars.owner)}:${String(vars.repo)}`);
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  const r = await client.readResource('file:///docs/intro');
  assert.deepEqual(r.contents, [{ uri: 'file:///docs/intro', text: 'doc intro', mimeType: 'text/plain' }]);
  assert.deepEqual(calls, [{ uri: 'file:///docs/intro', vars: { name: 'intro' } }]);
  // percent-encoded values are decoded
  const enc = await client.readResource('file:///docs/hello%20world');
  assert.equal((enc.contents[0] as { text: string }).text, 'doc hello world');
  const rr = await client.readResource('repo://acme/widgets/issues');
  assert.equal((rr.contents[0] as { text: string }).text, 'acme:widgets');
  // not matching any template
  await rejectsWithCode(client.readResource('file:///other/intro'), -32002);
  await close();
});

test('resources: a static resource wins over a template that also matches', async () => {
  const server = newServer();
  server.resourceTemplate('docs', 'file:///docs/{name}', {}, () => 'from template');
  server.resource('special', 'file:///docs/special', () => 'static');
  const { client, close } = await createTestPair(server);
  assert.equal((await client.readResource('file:///docs/special')).contents[0].uri, 'file:///docs/special');
  assert.equal(((await client.readResource('file:///docs/special')).contents[0] as { text: string }).text, 'static');
  assert.equal(((await client.readResource('file:///docs/x')).contents[0] as { text: string }).text, 'from template');
  await close();
});

test("resources/list includes statics (with their metadata) then a template's list() results", async () => {
  const server = newServer();
  server.resource('a', 'file:///a', { title: 'A', description: 'first', mimeType: 'text/plain', size: 12 }, () => 'a');
  server.resourceTemplate(
    'docs',
    'file:///docs/{name}',
    {
      description: 'Docs',
      list: (ctx) => {
        assert.equal(typeof ctx.requestId, 'number');
        return [
          { uri: 'file:///docs/one', name: 'one' },
          { uri: 'file:///docs/two', name: 'two', mimeType: 'text/plain' },
        ];
      },
    },
    () => 'x',
  );
  server.resource('b', 'file:///b', () => 'b');
  server.resourceTemplate('nolist', 'file:///n/{id}', {}, () => 'n');
  const { client, close } = await createTestPair(server);
  const { resources } = await client.listResources();
  assert.deepEqual(
    resources.map((r) => r.uri),
    ['file:///a', 'file:///b', 'file:///docs/one', 'file:///docs/two'],
  );
  assert.deepEqual(resources[0], { uri: 'file:///a', name: 'a', title: 'A', description: 'first', mimeType: 'text/plain', size: 12 });
  assert.deepEqual(await client.listAllResources(), resources);
  await close();
});

test('resources/templates/list shows templates without list/complete callbacks', async () => {
  const server = newServer();
  server.resourceTemplate(
    'docs',
    'file:///docs/{name}',
    { title: 'Docs', description: 'd', mimeType: 'text/plain', list: () => [], complete: { name: () => ['a'] } },
    () => 'x',
  );
  // resource() with a templated URI registers a template too
  server.resource('logs', 'log://{day}', () => 'l');
  const { client, close } = await createTestPair(server);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates, [
    { uriTemplate: 'file:///docs/{name}', name: 'docs', title: 'Docs', description: 'd', mimeType: 'text/plain' },
    { uriTemplate: 'log://{day}', name: 'logs' },
  ]);
  assert.deepEqual(await client.listAllResourceTemplates(), resourceTemplates);
  assert.equal(((await client.readResource('log://monday')).contents[0] as { text: string }).text, 'l');
  await close();
});

test('resources: unknown URI is -32002 with data.uri in the handshake era', async () => {
  const server = newServer();
  server.resource('a', 'file:///a', () => 'a');
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  const err = await rejectsWithCode(client.readResource('file:///missing'), -32002, /file:\/\/\/missing/);
  assert.deepEqual(err.data, { uri: 'file:///missing' });
  await rejectsWithCode(client.request('resources/read', {} as never), -32602);
  await close();
});

test('resources: a throwing handler is an internal error (-32603)', async () => {
  const reported: Error[] = [];
  const server = new McpServer({ name: 'res-test', version: '1.0.0', onerror: (e) => reported.push(e) });
  server.resource('bad', 'file:///bad', () => {
    throw new Error('backend down');
  });
  const { client, close } = await createTestPair(server);
  await rejectsWithCode(client.readResource('file:///bad'), -32603, /backend down/);
  // an unexpected exception is also reported to the server's onerror
  assert.equal(reported.length, 1);
  assert.match(reported[0].message, /backend down/);
  await close();
});

test('resources: subscribe/unsubscribe deliver updates only to subscribed sessions', async () => {
  const server = newServer();
  server.resource('a', 'file:///a', () => 'a');
  server.resource('b', 'file:///b', () => 'b');
  const one = await createTestPair(server, { era: 'handshake' });
  const two = await createTestPair(server, { era: 'handshake' });
  assert.equal(one.initialize.serverCapabilities.resources?.subscribe, true);
  const got1: unknown[] = [];
  const got2: unknown[] = [];
  one.client.on('notifications/resources/updated', (p) => got1.push(p));
  two.client.on('notifications/resources/updated', (p) => got2.push(p));

  assert.deepEqual(await one.client.subscribeResource('file:///a'), {});
  await two.client.subscribeResource('file:///b');
  server.resourceUpdated('file:///a');
  server.resourceUpdated('file:///b');
  server.resourceUpdated('file:///nobody');
  await flush();
  assert.deepEqual(got1, [{ uri: 'file:///a' }]);
  assert.deepEqual(got2, [{ uri: 'file:///b' }]);

  assert.deepEqual(await one.client.unsubscribeResource('file:///a'), {});
  server.resourceUpdated('file:///a');
  await flush();
  assert.deepEqual(got1, [{ uri: 'file:///a' }], 'no update after unsubscribe');

  // the notification really crossed the wire as a notification
  const notes = two.wire.messages('notifications/resources/updated');
  assert.deepEqual(notes, [{ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///b' } }]);
  await rejectsWithCode(one.client.request('resources/subscribe', {} as never), -32602);
  await one.close();
  await two.close();
  // after the pairs are gone nothing is attempted
  assert.equal(server.sessions.size, 0);
  server.resourceUpdated('file:///b');
});

test('resources: registering a non-absolute URI or a duplicate fails', () => {
  const server = newServer();
  assert.throws(() => server.resource('rel', 'relative/path', () => ''), /absolute URI/);
  server.resource('a', 'file:///a', () => '');
  assert.throws(() => server.resource('a2', 'file:///a', () => ''), /already registered/);
});
