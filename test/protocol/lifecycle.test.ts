import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient } from '../../src/client/client.js';
import type { JsonObject, JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, negotiateVersion } from '../../src/protocol/versions.js';
import { createLinkedPair } from '../../src/transports/memory/index.js';
import { clientPair, rawClient, rejectsLocally, rejectsWithCode, testServer } from '../jsonrpc/harness.js';
import { aborted, flush, waitFor } from '../support/index.js';

/** A hand-written server that answers initialize with `result` (or never, when undefined). */
async function fakeServer(result: JsonObject | undefined) {
  const [clientSide, serverSide] = createLinkedPair();
  const received: JsonRpcMessage[] = [];
  let closed = false;
  serverSide.onmessage = (frame) => {
    const m = JSON.parse(frame as string) as JsonRpcMessage;
    received.push(m);
    if (result && 'method' in m && m.method === 'initialize' && 'id' in m) void serverSide.send({ jsonrpc: '2.0', id: m.id, result });
  };
  serverSide.onclose = () => (closed = true);
  await serverSide.start();
  return { clientSide, received, isClosed: () => closed };
}

// The initialize lifecycle is the handshake era's: these clients pin it (the default, 'auto',
// would probe with server/discover first; test/client/modern covers that).
const newClient = (extra: Partial<ConstructorParameters<typeof McpClient>[0]> = {}) =>
  new McpClient({ name: 'c', version: '1', onerror: () => {}, era: 'handshake', ...extra });

test('negotiation: every supported version is echoed; an unknown one gets the latest (2025-11-25)', async () => {
  assert.equal(LATEST_HANDSHAKE_VERSION, '2025-11-25');
  for (const v of HANDSHAKE_VERSIONS) {
    const raw = await rawClient(testServer().server);
    assert.equal((await raw.initialize(v)).result.protocolVersion, v);
    assert.equal(raw.session.protocolVersion, v);
    const { client } = await clientPair(testServer().server, { protocolVersion: v });
    assert.equal(client.protocolVersion, v);
    await client.close();
  }
  for (const v of ['1999-01-01', '2099-12-31', 'latest', '2026-07-28']) {
    const raw = await rawClient(testServer().server);
    assert.equal((await raw.initialize(v)).result.protocolVersion, '2025-11-25', v);
  }
  assert.equal(negotiateVersion(42, ['a', 'b']), 'a');
});

test('negotiation: a server limited to older versions offers its latest and the client accepts it', async () => {
  const { server } = testServer({ protocolVersions: ['2025-06-18', '2025-03-26'] });
  const { client, session } = await clientPair(server);
  assert.equal(client.protocolVersion, '2025-06-18');
  assert.equal(session.protocolVersion, '2025-06-18');
  await client.close();
});

test('the client refuses a server answering with an unsupported version: LocalError, transport closed', async () => {
  const fake = await fakeServer({ protocolVersion: '1999-01-01', capabilities: {}, serverInfo: { name: 'old', version: '0' } });
  const client = newClient();
  await rejectsLocally(client.connect(fake.clientSide), 'protocol', /protocol version "1999-01-01".*does not speak.*2025-11-25/);
  assert.equal(fake.isClosed(), true, 'transport closed');
  assert.equal(client.connected, false);
  assert.deepEqual(
    fake.received.map((m) => ('method' in m ? m.method : 'response')),
    ['initialize'],
    'no notifications/initialized',
  );
  await rejectsLocally(client.request('test/echo'), 'closed');
});

test('the client refuses an initialize result without serverInfo/capabilities', async () => {
  const fake = await fakeServer({ protocolVersion: '2025-11-25' });
  await rejectsLocally(newClient().connect(fake.clientSide), 'protocol', /serverInfo.*capabilities/);
  assert.equal(fake.isClosed(), true);
});

test('an initialize error from the server rejects connect and closes the transport', async () => {
  const [clientSide, serverSide] = createLinkedPair();
  let closed = false;
  serverSide.onmessage = (f) => {
    const m = JSON.parse(f as string);
    void serverSide.send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['x'] } } });
  };
  serverSide.onclose = () => (closed = true);
  await serverSide.start();
  const e = await rejectsWithCode(newClient().connect(clientSide), -32602, /Unsupported/);
  assert.deepEqual(e.data, { supported: ['x'] });
  assert.equal(closed, true);
});

test('initialize timeout: connect rejects with "timeout" and never cancels initialize', async () => {
  const fake = await fakeServer(undefined);
  await rejectsLocally(newClient({ requestTimeoutMs: 30 }).connect(fake.clientSide), 'timeout');
  await flush();
  assert.deepEqual(
    fake.received.map((m) => ('method' in m ? m.method : 'response')),
    ['initialize'],
  );
  assert.equal(fake.isClosed(), true);
});

test('capabilities and identities are exchanged both ways; instructions are delivered', async () => {
  const { server } = testServer({
    title: 'Test Server',
    instructions: 'Use test/echo.',
    capabilities: { tools: { listChanged: true }, logging: {}, experimental: { srv: { on: true } } },
  });
  const { client, session, initialize } = await clientPair(server, {
    capabilities: { experimental: { cli: { x: 1 } } },
    roots: [{ uri: 'file:///r' }],
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
  });
  assert.deepEqual(client.serverCapabilities, { tools: { listChanged: true }, logging: {}, experimental: { srv: { on: true } } });
  assert.deepEqual(client.serverInfo, { name: 'test-server', version: '1.0.0', title: 'Test Server' });
  assert.equal(client.instructions, 'Use test/echo.');
  assert.equal(initialize.instructions, 'Use test/echo.');
  assert.deepEqual(session.clientCapabilities, { experimental: { cli: { x: 1 } }, roots: { listChanged: true }, sampling: {} });
  assert.deepEqual(session.clientInfo, { name: 'test-client', version: '0.0.0' });
  await client.close();
  // Without instructions the field is absent from the result.
  const raw = await rawClient(testServer().server);
  const r = await raw.initialize();
  assert.equal('instructions' in r.result, false);
  assert.deepEqual(r.result.serverInfo, { name: 'test-server', version: '1.0.0' });
});

test('the client sends notifications/initialized right after the initialize result', async () => {
  const { server } = testServer();
  const { client, wire, session } = await clientPair(server);
  assert.deepEqual(wire.methods(), ['→ initialize', '← response 0', '→ notifications/initialized']);
  const init = wire.messages('initialize')[0] as { params: JsonObject };
  assert.equal(init.params.protocolVersion, '2025-11-25');
  await waitFor(() => session.era.state === 'ready', 'server ready');
  await client.close();
});

test('before initialize: requests get -32600 with a clear message, ping works, notifications are ignored', async () => {
  const { server } = testServer();
  let notes = 0;
  server.setNotificationHandler('test/note', () => void notes++);
  const raw = await rawClient(server);
  for (const method of ['test/echo', 'tools/list', 'logging/setLevel', 'no/such']) {
    const r = await raw.call({ jsonrpc: '2.0', id: method, method });
    assert.equal(r.id, method);
    assert.equal(r.error.code, -32600, method);
    assert.match(r.error.message, new RegExp(`"${method}" arrived before "initialize"`));
  }
  assert.deepEqual(await raw.call({ jsonrpc: '2.0', id: 'p', method: 'ping' }), { jsonrpc: '2.0', id: 'p', result: {} });
  raw.send({ jsonrpc: '2.0', method: 'test/note' });
  await raw.silence(20);
  assert.equal(notes, 0);
  assert.equal(raw.session.initialized, false);
  await raw.initialize();
  assert.deepEqual((await raw.call({ jsonrpc: '2.0', id: 1, method: 'test/echo' })).result, { echo: null });
});

test('a second initialize is rejected with -32600 and changes nothing', async () => {
  const { server } = testServer();
  const raw = await rawClient(server);
  await raw.initialize('2025-06-18');
  const again = await raw.call({
    jsonrpc: '2.0',
    id: 'again',
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: { sampling: {} }, clientInfo: { name: 'other', version: '2' } },
  });
  assert.equal(again.error.code, -32600);
  assert.match(again.error.message, /already initialized/);
  assert.equal(raw.session.protocolVersion, '2025-06-18');
  assert.deepEqual(raw.session.clientInfo, { name: 'raw', version: '0' });
  // Through the client as well.
  const { client } = await clientPair(testServer().server);
  await rejectsWithCode(client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }), -32600);
  await client.close();
});

test('a stray notifications/closed is ignored: nothing is sent back and the server keeps serving', async () => {
  const { server, errors } = testServer();
  const raw = await rawClient(server);
  raw.send({ jsonrpc: '2.0', method: 'notifications/closed' });
  await raw.silence(15);
  await raw.initialize();
  raw.send({ jsonrpc: '2.0', method: 'notifications/closed', params: { reason: 'bye' } });
  await raw.silence(15);
  assert.equal(raw.session.peer.isClosed, false);
  assert.deepEqual((await raw.call({ jsonrpc: '2.0', id: 1, method: 'test/echo' })).result, { echo: null });
  assert.deepEqual(errors, []);
});

test('ping both ways: session.ping() and client.ping()', async () => {
  const { server } = testServer();
  const { client, session, wire } = await clientPair(server);
  wire.clear();
  assert.deepEqual(await session.ping(), {});
  assert.deepEqual(await client.ping(), {});
  const msgs = wire.entries.map((e) => [e.direction, e.message]);
  assert.deepEqual(msgs, [
    ['server→client', { jsonrpc: '2.0', id: 0, method: 'ping' }],
    ['client→server', { jsonrpc: '2.0', id: 0, result: {} }],
    ['client→server', { jsonrpc: '2.0', id: 1, method: 'ping' }],
    ['server→client', { jsonrpc: '2.0', id: 1, result: {} }],
  ]);
  await client.close();
});

test('clean shutdown: client.close() closes both ends; pending requests on either side reject "closed"', async () => {
  const { server } = testServer();
  let handlerSignal: AbortSignal | undefined;
  server.setRequestHandler('test/hang', async (_p, ctx) => {
    handlerSignal = ctx.signal;
    await aborted(ctx.signal);
    return {};
  });
  const { client, session } = await clientPair(server, { sampling: () => new Promise(() => {}) });
  const closes: string[] = [];
  client.onClose(() => closes.push('client'));
  session.onClose(() => closes.push('server'));
  const clientPending = client.request('test/hang');
  const serverPending = session.request('sampling/createMessage', { messages: [], maxTokens: 1 });
  await waitFor(() => handlerSignal !== undefined, 'handler start');
  await client.close();
  await rejectsLocally(clientPending, 'closed', /Connection closed before "test\/hang"/);
  await rejectsLocally(serverPending, 'closed', /Connection closed before "sampling\/createMessage"/);
  assert.deepEqual(closes.sort(), ['client', 'server']);
  assert.equal(handlerSignal!.aborted, true, 'the running handler is told');
  assert.equal(session.peer.isClosed, true);
  assert.equal(client.connected, false);
  assert.equal(server.sessions.has(session), false);
  await rejectsLocally(client.request('test/echo'), 'closed');
  await rejectsLocally(session.ping(), 'closed');
  await client.close(); // idempotent
});

test('server-side close: the client learns of it and its pending requests reject "closed"', async () => {
  const { server } = testServer();
  const { client, session } = await clientPair(server);
  let clientClosed = false;
  client.onClose(() => (clientClosed = true));
  const pending = client.request('test/wait');
  await flush(); // the request is delivered (in-memory)
  await server.close();
  await rejectsLocally(pending, 'closed');
  assert.equal(clientClosed, true);
  assert.equal(client.connected, false);
  assert.equal(server.sessions.size, 0);
  assert.ok(session.peer.isClosed);
  // A fresh connect on a new transport works with the same client object.
  const [c2, s2] = createLinkedPair();
  await server.connect(s2);
  await client.connect(c2);
  assert.deepEqual(await client.ping(), {});
  await client.close();
});

test('one Server serves many sessions, each with its own negotiated version', async () => {
  const { server } = testServer();
  const a = await clientPair(server, { protocolVersion: '2025-03-26' });
  const b = await clientPair(server, { protocolVersion: '2025-11-25' });
  assert.equal(server.sessions.size, 2);
  assert.equal(a.session.protocolVersion, '2025-03-26');
  assert.equal(b.session.protocolVersion, '2025-11-25');
  await a.client.close();
  assert.equal(server.sessions.size, 1);
  assert.deepEqual(await b.client.request('test/echo', { ok: 1 }), { echo: { ok: 1 } });
  await b.client.close();
});
