// Per-request logging, resource-not-found codes per era, and array structuredContent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { Server } from '../../../src/server/server.js';
import { createLinkedPair } from '../../../src/transports/memory/index.js';
import type { JsonRpcMessage, RequestId } from '../../../src/jsonrpc/messages.js';
import type { Transport } from '../../../src/engine/transport.js';
import { assertError, M, meta, Wire } from './helpers.js';
import { flush } from '../../support/index.js';

const INFO = { name: 'results', version: '1.0.0' };
const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

async function handshake(w: Wire): Promise<void> {
  const init = await w.request('initialize', INIT, 'init');
  assert.ok(init.result);
  w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await flush();
}

function logging(): McpServer {
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.tool('chatty', async (_a, ctx) => {
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical'] as const) await ctx.log(level, `at ${level}`, 'chatty');
    return 'done';
  });
  return s;
}

/** Connects with a recorder of what the server hands its transport, and with which related id. */
async function recorded(s: McpServer): Promise<{ w: Wire; sent: Array<{ m: JsonRpcMessage; related?: RequestId }> }> {
  const [clientSide, serverSide] = createLinkedPair();
  const sent: Array<{ m: JsonRpcMessage; related?: RequestId }> = [];
  const t: Transport = serverSide;
  const send = t.send.bind(t);
  t.send = (m, o) => {
    sent.push({ m: m as JsonRpcMessage, related: o?.relatedRequestId });
    return send(m, o);
  };
  const w = new Wire(clientSide);
  await clientSide.start();
  await s.connect(serverSide);
  return { w, sent };
}

test('ctx.log sends nothing without a logLevel in the request', async () => {
  const w = await Wire.connect(logging());
  const r = await w.result('tools/call', { name: 'chatty', arguments: {} });
  assert.deepEqual(r.content, [{ type: 'text', text: 'done' }]);
  assert.deepEqual(w.notifications(), []);
});

test('with logLevel warning only warning and above are sent, tied to the request, before its response', async () => {
  const { w, sent } = await recorded(logging());
  await w.request('tools/call', { name: 'chatty', arguments: {}, _meta: meta({}, { [M.logLevel]: 'warning' }) }, 'call-1');
  assert.deepEqual(
    w.frames.map((f) => f.method ?? `response ${f.id}`),
    ['notifications/message', 'notifications/message', 'notifications/message', 'response call-1'],
  );
  assert.deepEqual(
    w.notifications().map((f) => f.params),
    [
      { level: 'warning', data: 'at warning', logger: 'chatty' },
      { level: 'error', data: 'at error', logger: 'chatty' },
      { level: 'critical', data: 'at critical', logger: 'chatty' },
    ],
  );
  assert.equal(sent.length, 4);
  for (const { m, related } of sent) assert.equal(related, 'call-1', `${JSON.stringify(m)} belongs to call-1`);
  // The level is per request: the next request without one gets no logs.
  await w.request('tools/call', { name: 'chatty', arguments: {}, _meta: meta() }, 'call-2');
  assert.equal(w.notifications().length, 3);
  // logLevel debug: everything.
  await w.request('tools/call', { name: 'chatty', arguments: {}, _meta: meta({}, { [M.logLevel]: 'debug' }) }, 'call-3');
  assert.equal(w.notifications().length, 3 + 6);
});

test('a server without the logging capability sends no logs even when asked', async () => {
  const s = new Server({ ...INFO, capabilities: { tools: {} }, onerror: () => {} });
  s.setRequestHandler('tools/call', async (_p, ctx) => {
    await ctx.log('error', 'nope');
    return { content: [] };
  });
  const w = await Wire.connect(s);
  const f = await w.request('tools/call', { name: 'x', _meta: meta({}, { [M.logLevel]: 'debug' }) }, 1);
  assert.equal(f.result?.resultType, 'complete');
  assert.deepEqual(w.notifications(), []);
});

test('server-wide logs (McpServer.log) never reach a modern-only connection', async () => {
  const s = logging();
  const w = await Wire.connect(s);
  await w.result('tools/list', {}, {});
  s.log('error', 'broadcast');
  await flush();
  assert.deepEqual(w.notifications(), []);
});

test('resource not found: -32602 in the modern era, -32002 in the handshake era, same server and connection', async () => {
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.resource('r', 'test://r', () => 'r');
  const w = await Wire.connect(s);
  const uri = 'test://nonexistent-resource-for-conformance-testing';
  const modern = assertError(await w.modern('resources/read', { uri }, {}, 'm1'), 'm1', -32602);
  assert.deepEqual(modern.data, { uri });
  await handshake(w);
  const legacy = assertError(await w.request('resources/read', { uri }, 'h1'), 'h1', -32002);
  assert.deepEqual(legacy.data, { uri });
  // And the modern era is unchanged after the handshake.
  assertError(await w.modern('resources/read', { uri }, {}, 'm2'), 'm2', -32602);
});

test('structuredContent may be an array in the modern era, but stays object-only in the handshake era', async () => {
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.tool('list', { output: z.array(z.object({ n: z.number() })) }, () => [{ n: 1 }, { n: 2 }]);
  s.tool('empty', { output: z.array(z.number()) }, () => []);
  s.tool('obj', { output: z.object({ n: z.number() }) }, () => ({ n: 3 }));
  const w = await Wire.connect(s);
  const tools = (await w.result('tools/list')).tools as Array<{ name: string; outputSchema: { type: string } }>;
  assert.equal(tools.find((t) => t.name === 'list')!.outputSchema.type, 'array');
  assert.deepEqual(await w.result('tools/call', { name: 'list', arguments: {} }), {
    content: [{ type: 'text', text: '[{"n":1},{"n":2}]' }],
    structuredContent: [{ n: 1 }, { n: 2 }],
    resultType: 'complete',
    _meta: { [M.serverInfo]: INFO },
  });
  const empty = await w.result('tools/call', { name: 'empty', arguments: {} });
  assert.deepEqual(empty.structuredContent, []);
  assert.equal(empty.isError, undefined);
  await handshake(w);
  const legacy = await w.request('tools/call', { name: 'list', arguments: {} }, 'h');
  assert.deepEqual(legacy.result, { content: [{ type: 'text', text: '[{"n":1},{"n":2}]' }] });
  const legacyObj = await w.request('tools/call', { name: 'obj', arguments: {} }, 'h2');
  assert.deepEqual(legacyObj.result, { content: [{ type: 'text', text: '{"n":3}' }], structuredContent: { n: 3 } });
});
