import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpClient } from '../../src/client/client.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { Server } from '../../src/server/server.js';
import { createTestPair } from '../../src/testing/index.js';
import { createLinkedPair } from '../../src/transports/memory/index.js';
import { rejectsLocally, rejectsWithCode, textOf } from '../server/helpers.js';
import { flush } from '../support/index.js';

function fullServer(): McpServer {
  const server = new McpServer({ name: 'full', version: '2.0.0', title: 'Full server', instructions: 'be nice' });
  server.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  server.resource('a', 'file:///a', () => 'A');
  server.resourceTemplate('t', 'file:///t/{x}', { complete: { x: (v) => [`${v}1`, `${v}2`] } }, (_u, v) => String(v.x));
  server.prompt('p', { args: { who: z.string() } }, ({ who }) => `hi ${who}`);
  return server;
}

test('client: handshake outcome is exposed', async () => {
  const { client, initialize, wire, close } = await createTestPair(fullServer(), { era: 'handshake', name: 'c', version: '1.2.3' });
  assert.equal(client.connected, true);
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.deepEqual(client.serverInfo, { name: 'full', version: '2.0.0', title: 'Full server' });
  assert.equal(client.instructions, 'be nice');
  assert.deepEqual(client.serverCapabilities, initialize.serverCapabilities);
  const init = wire.messages('initialize')[0];
  assert.deepEqual(init.params, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1.2.3' } });
  assert.deepEqual(wire.methods().slice(0, 3), ['→ initialize', '← response 0', '→ notifications/initialized']);
  let closed = 0;
  client.onClose(() => closed++);
  await close();
  assert.equal(closed, 1);
  assert.equal(client.connected, false);
  await rejectsLocally(client.listTools(), 'closed');
});

test('client: every typed call sends the right method and params', async () => {
  const { client, wire, close } = await createTestPair(fullServer(), { era: 'handshake' });
  wire.clear();
  assert.deepEqual(await client.ping(), {});
  assert.equal((await client.listTools()).tools[0].name, 'echo');
  assert.equal(textOf(await client.callTool('echo', { text: 'yo' })), 'yo');
  assert.equal((await client.listResources()).resources[0].uri, 'file:///a');
  assert.equal((await client.listResourceTemplates()).resourceTemplates[0].uriTemplate, 'file:///t/{x}');
  assert.equal(((await client.readResource('file:///t/7')).contents[0] as { text: string }).text, '7');
  assert.deepEqual(await client.subscribeResource('file:///a'), {});
  assert.deepEqual(await client.unsubscribeResource('file:///a'), {});
  assert.equal((await client.listPrompts()).prompts[0].name, 'p');
  assert.equal(((await client.getPrompt('p', { who: 'x' })).messages[0].content as { text: string }).text, 'hi x');
  const c = await client.complete({ ref: { type: 'ref/resource', uri: 'file:///t/{x}' }, argument: { name: 'x', value: 'v' } });
  assert.deepEqual(c.completion.values, ['v1', 'v2']);
  assert.deepEqual(await client.setLoggingLevel('error'), {});
  const sent = wire.entries.filter((e) => e.direction === 'client→server').map((e) => e.message as { method: string; params?: unknown });
  assert.deepEqual(
    sent.map((m) => [m.method, m.params]),
    [
      ['ping', undefined],
      ['tools/list', undefined],
      ['tools/call', { name: 'echo', arguments: { text: 'yo' } }],
      ['resources/list', undefined],
      ['resources/templates/list', undefined],
      ['resources/read', { uri: 'file:///t/7' }],
      ['resources/subscribe', { uri: 'file:///a' }],
      ['resources/unsubscribe', { uri: 'file:///a' }],
      ['prompts/list', undefined],
      ['prompts/get', { name: 'p', arguments: { who: 'x' } }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'file:///t/{x}' }, argument: { name: 'x', value: 'v' } }],
      ['logging/setLevel', { level: 'error' }],
    ],
  );
  // callTool / getPrompt without arguments leave the field out
  wire.clear();
  await client.callTool('echo').catch(() => {});
  await client.getPrompt('p').catch(() => {});
  assert.deepEqual(
    wire.messages('tools/call').map((m) => (m as { params: unknown }).params),
    [{ name: 'echo' }],
  );
  assert.deepEqual(
    wire.messages('prompts/get').map((m) => (m as { params: unknown }).params),
    [{ name: 'p' }],
  );
  await close();
});

test('client: strict capability checks refuse locally without sending anything', async () => {
  const server = new McpServer({ name: 'bare', version: '1' });
  const { client, wire, initialize, close } = await createTestPair(server, { era: 'handshake' });
  assert.deepEqual(initialize.serverCapabilities, { logging: {} });
  wire.clear();
  const calls: Array<Promise<unknown>> = [
    client.listTools(),
    client.callTool('x'),
    client.listResources(),
    client.listResourceTemplates(),
    client.readResource('file:///x'),
    client.subscribeResource('file:///x'),
    client.unsubscribeResource('file:///x'),
    client.listPrompts(),
    client.getPrompt('x'),
    client.complete({ ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } }),
    client.listAllPrompts(),
  ];
  for (const p of calls) {
    const e = await rejectsLocally(p, 'capability');
    assert.match(e.message, /did not declare/);
  }
  assert.deepEqual(wire.entries, [], 'nothing crossed the wire');
  // logging is declared, so setLevel goes through
  await client.setLoggingLevel('info');
  assert.equal(wire.entries.length, 2);
  await close();
});

test("client: strictCapabilities:false sends anyway and gets the server's -32601", async () => {
  const server = new McpServer({ name: 'bare', version: '1' });
  const { client, wire, close } = await createTestPair(server, { strictCapabilities: false });
  wire.clear();
  await rejectsWithCode(client.listPrompts(), -32601);
  assert.equal(wire.messages('prompts/list').length, 1);
  await close();
});

test('client: resources/subscribe needs resources.subscribe; 2024-11-05 completion needs no flag', async () => {
  const low = new Server({ name: 'low', version: '1', capabilities: { resources: {} } });
  low.setRequestHandler('resources/list', () => ({ resources: [] }));
  low.setRequestHandler('completion/complete', () => ({ completion: { values: ['x'] } }));
  const { client, wire, close } = await createTestPair(low, { era: 'handshake' });
  assert.deepEqual(await client.listResources(), { resources: [] });
  wire.clear();
  await rejectsLocally(client.subscribeResource('file:///a'), 'capability');
  await rejectsLocally(client.complete({ ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } }), 'capability');
  assert.equal(wire.entries.length, 0);
  await close();

  const old = await createTestPair(low, { era: 'handshake', protocolVersion: '2024-11-05' });
  assert.equal(old.client.protocolVersion, '2024-11-05');
  const r = await old.client.complete({ ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } });
  assert.deepEqual(r.completion.values, ['x']);
  await old.close();
});

test('client: paginate yields items across pages; listAll* collects them', async () => {
  const server = new McpServer({ name: 'pages', version: '1', pageSize: 3 });
  for (let i = 0; i < 7; i++) {
    server.tool(`tool${i}`, () => '');
    server.resource(`r${i}`, `file:///r${i}`, () => '');
    server.resourceTemplate(`t${i}`, `file:///t${i}/{x}`, {}, () => '');
    server.prompt(`p${i}`, () => '');
  }
  const { client, wire, close } = await createTestPair(server, { era: 'handshake' });
  wire.clear();
  const names: string[] = [];
  for await (const tool of client.paginate('tools/list')) names.push(tool.name);
  assert.deepEqual(names, ['tool0', 'tool1', 'tool2', 'tool3', 'tool4', 'tool5', 'tool6']);
  const calls = wire.messages('tools/list') as Array<{ params?: { cursor?: string } }>;
  assert.equal(calls.length, 3);
  assert.equal(calls[0].params, undefined);
  assert.equal(typeof calls[1].params?.cursor, 'string');
  assert.equal((await client.listAllResources()).length, 7);
  assert.deepEqual(
    (await client.listAllResourceTemplates()).map((t) => t.name),
    ['t0', 't1', 't2', 't3', 't4', 't5', 't6'],
  );
  assert.deepEqual(
    (await client.listAllPrompts()).map((p) => p.name),
    ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6'],
  );
  // stopping early sends no further request
  wire.clear();
  for await (const p of client.paginate('prompts/list')) if (p.name === 'p1') break;
  assert.equal(wire.messages('prompts/list').length, 1);
  await close();
});

test('client: on() listeners, unsubscribe, and a throwing listener goes to onerror', async () => {
  const server = new McpServer({ name: 'n', version: '1' });
  const errors: Error[] = [];
  const { client, close } = await createTestPair(server, { era: 'handshake', onerror: (e) => errors.push(e) });
  const a: unknown[] = [];
  const b: unknown[] = [];
  const offA = client.on('notifications/message', (p) => a.push(p.data));
  client.on('notifications/message', (p) => b.push(p.data));
  client.on('notifications/message', () => {
    throw new Error('listener broke');
  });
  server.log('info', 1);
  await flush();
  offA();
  offA(); // idempotent
  server.log('info', 2);
  await flush();
  assert.deepEqual(a, [1]);
  assert.deepEqual(b, [1, 2]);
  assert.equal(errors.length, 2);
  assert.match(errors[0].message, /listener broke/);
  await close();
});

test('client: unknown server requests get -32601; so do undeclared roots/sampling', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const { session, wire, close } = await createTestPair(server, { era: 'handshake' });
  await rejectsWithCode(session.request('bogus/method'), -32601, /bogus\/method/);
  await rejectsWithCode(session.request('roots/list'), -32601);
  await rejectsWithCode(session.request('sampling/createMessage', { messages: [], maxTokens: 1 }), -32601);
  await rejectsWithCode(session.request('elicitation/create', { message: 'x', requestedSchema: { type: 'object', properties: {} } }), -32601);
  assert.deepEqual(await session.ping(), {});
  const replies = wire.entries.filter((e) => e.direction === 'client→server' && 'error' in e.message);
  assert.deepEqual(
    replies.map((e) => (e.message as { error: { code: number } }).error.code),
    [-32601, -32601, -32601, -32601],
  );
  await close();
});

test('client: elicitation in a mode the client did not declare is -32602 and the handler is not called', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  let calls = 0;
  const formOnly = await createTestPair(server, { era: 'handshake', elicitation: () => (calls++, { action: 'accept' }) });
  assert.deepEqual(formOnly.client.capabilities.elicitation, { form: {} });
  await rejectsWithCode(formOnly.session.request('elicitation/create', { mode: 'url', message: 'm', url: 'https://x.example', elicitationId: '1' }), -32602);
  await rejectsWithCode(formOnly.session.request('elicitation/create', { mode: 'telepathy', message: 'm' }), -32602);
  assert.equal(calls, 0);
  // form mode with no explicit mode works
  assert.deepEqual(await formOnly.session.request('elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: {} } }), {
    action: 'accept',
    content: {},
  });
  assert.equal(calls, 1);

  // a form the client cannot render is refused with -32602 as well
  await rejectsWithCode(
    formOnly.session.request('elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } }),
    -32602,
    /Property "a"/,
  );
  assert.equal(calls, 1);

  const urlOnly = await createTestPair(server, {
    era: 'handshake',
    capabilities: { elicitation: { url: {} } },
    elicitation: () => (calls++, { action: 'cancel' }),
  });
  await rejectsWithCode(urlOnly.session.request('elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: {} } }), -32602);
  assert.deepEqual(await urlOnly.session.request('elicitation/create', { mode: 'url', message: 'm', url: 'https://x.example', elicitationId: '2' }), {
    action: 'cancel',
  });
  assert.equal(calls, 2);
  await formOnly.close();
  await urlOnly.close();
});

test('client: a sampling handler error becomes a JSON-RPC error for the server', async () => {
  const server = new McpServer({ name: 's', version: '1', onerror: () => {} });
  server.tool('ask', async (_a, ctx) => (await ctx.sample({ messages: [], maxTokens: 5 })).model);
  const { client, close } = await createTestPair(server, {
    era: 'handshake',
    sampling: () => {
      throw new Error('user rejected');
    },
    onerror: () => {},
  });
  const r = await client.callTool('ask');
  assert.equal(r.isError, true);
  assert.match(textOf(r), /user rejected/);
  await close();
});

test('client: setRoots without a declared roots capability sends nothing', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const { client, wire, close } = await createTestPair(server);
  wire.clear();
  await client.setRoots([{ uri: 'file:///x' }]);
  assert.deepEqual(wire.entries, []);
  await close();
});

test('client: connect twice is refused; not connected is a local error', async () => {
  const client = new McpClient({ name: 'c', version: '1' });
  await rejectsLocally(client.ping(), 'closed');
  assert.throws(() => client.onClose(() => {}), /Not connected/);
  const server = new McpServer({ name: 's', version: '1' });
  const [c, s] = createLinkedPair();
  await server.connect(s);
  await client.connect(c);
  const [c2] = createLinkedPair();
  await assert.rejects(client.connect(c2), /already connected/);
  await client.close();
});

test('client: requests time out locally and tell the server to cancel', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  let cancelled = false;
  server.tool(
    'hang',
    (_a, ctx) =>
      new Promise<string>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          cancelled = true;
          resolve('x');
        }),
      ),
  );
  const { client, wire, close } = await createTestPair(server);
  await rejectsLocally(client.callTool('hang', {}, { timeoutMs: 20 }), 'timeout');
  await flush();
  assert.equal(cancelled, true);
  assert.equal(wire.messages('notifications/cancelled').length, 1);
  await close();
});
