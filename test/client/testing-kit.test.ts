import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { Server } from '../../src/server/server.js';
import { createTestPair, WireRecorder } from '../../src/testing/index.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { textOf } from '../server/helpers.js';
import { flush } from '../support/index.js';

test('WireRecorder: records exact messages, in order, with directions', async () => {
  const server = new McpServer({ name: 'kit', version: '1' });
  server.tool('roots', async (_a, ctx) => {
    await ctx.log('info', 'asking');
    return String((await ctx.roots()).length);
  });
  const { client, wire, close } = await createTestPair(server, { era: 'handshake', roots: [{ uri: 'file:///w' }] });
  wire.clear();
  assert.deepEqual(wire.entries, []);
  await client.callTool('roots', { a: 1 });
  assert.deepEqual(wire.entries, [
    {
      direction: 'client→server',
      message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'roots', arguments: { a: 1 } } },
    },
    {
      direction: 'server→client',
      message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'asking' } },
    },
    { direction: 'server→client', message: { jsonrpc: '2.0', id: 0, method: 'roots/list' } },
    { direction: 'client→server', message: { jsonrpc: '2.0', id: 0, result: { roots: [{ uri: 'file:///w' }] } } },
    { direction: 'server→client', message: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '1' }] } } },
  ]);
  assert.deepEqual(wire.methods(), ['→ tools/call', '← notifications/message', '← roots/list', '→ response 0', '← response 1']);
  assert.deepEqual(wire.messages('roots/list'), [{ jsonrpc: '2.0', id: 0, method: 'roots/list' }]);
  assert.equal(wire.messages().length, 5);
  assert.deepEqual(wire.messages('nothing/here'), []);
  await close();
});

test('WireRecorder: entries are copies, unaffected by later mutation', async () => {
  const rec = new WireRecorder();
  const msg: JsonRpcMessage = { jsonrpc: '2.0', method: 'x', params: { n: 1 } };
  const forwarded: JsonRpcMessage[] = [];
  await rec.outgoing(msg, async (m) => void forwarded.push(m));
  (msg.params as { n: number }).n = 2;
  assert.deepEqual(rec.entries, [{ direction: 'client→server', message: { jsonrpc: '2.0', method: 'x', params: { n: 1 } } }]);
  assert.equal(forwarded[0], msg, 'the original message is passed on');
  await rec.incoming({ jsonrpc: '2.0', id: 'a', error: { code: -1, message: 'no' } }, async () => {});
  assert.deepEqual(rec.methods(), ['→ x', '← response a']);
  rec.clear();
  assert.equal(rec.entries.length, 0);
});

test('createTestPair: works with a low-level Server, passes frameInfo, close ends the session', async () => {
  const low = new Server({ name: 'low', version: '1', capabilities: { tools: {} } });
  low.setRequestHandler('tools/list', (_p, ctx) => ({ tools: [], _meta: { who: ctx.authInfo?.principal ?? null } }));
  const { client, session, close } = await createTestPair(low, { era: 'handshake', frameInfo: { authInfo: { principal: 'bob' } }, name: 'custom' });
  assert.equal(session.clientInfo?.name, 'custom');
  assert.equal(low.sessions.has(session), true);
  assert.deepEqual((await client.listTools())._meta, { who: 'bob' });
  let sessionClosed = false;
  session.onClose(() => (sessionClosed = true));
  await close();
  await flush();
  assert.equal(sessionClosed, true);
  assert.equal(low.sessions.size, 0);
});

test('createTestPair: extra client middleware runs after the recorder', async () => {
  const server = new McpServer({ name: 'kit', version: '1' });
  const seen: string[] = [];
  const { client, wire, close } = await createTestPair(server, {
    era: 'handshake',
    middleware: [{ outgoing: (m, next) => (seen.push('method' in m ? m.method : 'response'), next(m)) }],
  });
  await client.ping();
  assert.deepEqual(seen, ['initialize', 'notifications/initialized', 'ping']);
  assert.equal(wire.messages('ping').length, 1);
  await close();
});

test('McpServer.close() ends every connected session; clients see the close', async () => {
  const server = new McpServer({ name: 'kit', version: '1' });
  const one = await createTestPair(server);
  const two = await createTestPair(server);
  const closed: string[] = [];
  one.client.onClose(() => closed.push('one'));
  two.client.onClose(() => closed.push('two'));
  assert.equal(server.sessions.size, 2);
  await server.close();
  await flush();
  assert.deepEqual(closed.sort(), ['one', 'two']);
  assert.equal(server.sessions.size, 0);
  assert.equal(one.client.connected, false);
});

test('createTestPair: the era connect() would pick (2026-07-28 against mcpkit) unless era says otherwise', async () => {
  const server = new McpServer({ name: 'kit', version: '1' });
  server.tool('ask', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `${r.action} ${String(r.content?.ok)}`;
  });
  const elicitation = () => ({ action: 'accept' as const, content: { ok: true } });

  const pinned = await createTestPair(server, { era: 'handshake', elicitation });
  assert.equal(pinned.client.era, 'handshake');
  assert.equal(pinned.initialize.era, 'handshake');
  assert.equal(pinned.initialize.protocolVersion, '2025-11-25');
  assert.deepEqual(pinned.wire.methods().slice(0, 3), ['→ initialize', '← response 0', '→ notifications/initialized']);
  pinned.wire.clear();
  assert.equal(textOf(await pinned.client.callTool('ask')), 'accept true');
  assert.deepEqual(pinned.wire.methods(), ['→ tools/call', '← elicitation/create', '→ response 0', '← response 1']);
  await pinned.close();

  for (const era of ['modern', 'auto', undefined] as const) {
    const pair = await createTestPair(server, { era, elicitation });
    assert.equal(pair.client.era, 'modern', String(era));
    assert.equal(pair.initialize.protocolVersion, '2026-07-28');
    assert.deepEqual(pair.initialize.supportedVersions, ['2026-07-28']);
    assert.deepEqual(pair.wire.methods(), ['→ server/discover', '← response 0'], `${era}: one discover, no initialize`);
    pair.wire.clear();
    assert.equal(textOf(await pair.client.callTool('ask')), 'accept true');
    // No server-to-client request: an input_required result, then the retry with the answer.
    assert.deepEqual(pair.wire.methods(), ['→ tools/call', '← response 1', '→ tools/call', '← response 2']);
    const [, first, retry] = pair.wire.messages();
    assert.equal((first as { result?: { resultType?: string } }).result?.resultType, 'input_required');
    assert.deepEqual((retry as { params?: { inputResponses?: unknown } }).params?.inputResponses, { 'elicit-1': { action: 'accept', content: { ok: true } } });
    await pair.close();
  }
});
