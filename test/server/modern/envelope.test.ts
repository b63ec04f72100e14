// The 2026-07-28 request envelope (SEP-2575): required `_meta` keys, version checks, removed
// methods, and the id echoed on every error. Raw frames over the in-memory pair.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { assertError, M, meta, V, Wire } from './helpers.js';

function server(): McpServer {
  const s = new McpServer({ name: 'env', version: '1.0.0', onerror: () => {} });
  s.tool('echo', () => 'hi');
  s.resource('r', 'test://r', () => 'r');
  return s;
}

test('server/discover without _meta, without protocolVersion, without clientCapabilities: -32602 with the id echoed', async () => {
  const w = await Wire.connect(server());
  assertError(await w.request('server/discover', undefined, 101), 101, -32602, /_meta/);
  assertError(await w.request('server/discover', {}, 'a'), 'a', -32602, /_meta/);
  assertError(await w.request('server/discover', { _meta: { [M.clientCapabilities]: {} } }, 102), 102, -32602, /protocolVersion/);
  assertError(await w.request('server/discover', { _meta: { [M.protocolVersion]: V } }, 104), 104, -32602, /clientCapabilities/);
  // clientCapabilities must be an object.
  assertError(await w.request('server/discover', { _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: [] } }, 105), 105, -32602);
  assertError(await w.request('server/discover', { _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: null } }, 106), 106, -32602);
  // A non-string version is missing, not unsupported.
  assertError(await w.request('server/discover', { _meta: { [M.protocolVersion]: 20260728, [M.clientCapabilities]: {} } }, 107), 107, -32602);
});

test('a modern tools/list with a broken envelope is -32602 too', async () => {
  const w = await Wire.connect(server());
  assertError(await w.request('tools/list', { _meta: { [M.protocolVersion]: V } }, 7), 7, -32602);
});

test('an unknown version is -32022 with data {supported, requested}', async () => {
  const w = await Wire.connect(server());
  const f = await w.request('server/discover', { _meta: { [M.protocolVersion]: 'v999.0.0', [M.clientCapabilities]: {} } }, 'x1');
  const e = assertError(f, 'x1', -32022);
  assert.deepEqual(e.data, { supported: [V], requested: 'v999.0.0' });
  // A handshake-era version in the modern envelope is not a modern version either.
  const g = await w.request('tools/list', { _meta: { [M.protocolVersion]: '2025-11-25', [M.clientCapabilities]: {} } }, 'x2');
  assert.deepEqual(assertError(g, 'x2', -32022).data, { supported: [V], requested: '2025-11-25' });
});

test('clientInfo is optional; a malformed one is ignored', async () => {
  const w = await Wire.connect(server());
  const f = await w.request('server/discover', { _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: {} } }, 1);
  assert.equal(f.result?.resultType, 'complete');
  assert.deepEqual(f.result?.supportedVersions, [V]);
  const g = await w.request('tools/list', { _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: {}, [M.clientInfo]: 'not an object' } }, 2);
  assert.equal(g.result?.resultType, 'complete');
});

test('a bad logLevel is -32602; a good one is accepted', async () => {
  const w = await Wire.connect(server());
  assertError(await w.request('tools/list', { _meta: meta({}, { [M.logLevel]: 'loud' }) }, 3), 3, -32602, /logLevel/);
  assertError(await w.request('tools/list', { _meta: meta({}, { [M.logLevel]: 3 }) }, 4), 4, -32602, /logLevel/);
  const ok = await w.request('tools/list', { _meta: meta({}, { [M.logLevel]: 'debug' }) }, 5);
  assert.equal(ok.result?.resultType, 'complete');
});

test('methods removed in 2026-07-28 are -32601 with the modern envelope', async () => {
  const w = await Wire.connect(server());
  let id = 200;
  for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']) {
    const params: Record<string, unknown> = { _meta: meta() };
    if (method === 'initialize') Object.assign(params, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    if (method === 'logging/setLevel') params.level = 'debug';
    if (method.startsWith('resources/')) params.uri = 'test://r';
    const f = await w.request(method, params, ++id);
    assertError(f, id, -32601, new RegExp(method.replace('/', '\\/')));
  }
  // The connection did not start a handshake: a handshake-era request is still refused.
  const hs = await w.request('tools/list', undefined, 'hs');
  assert.ok(hs.error, 'no handshake happened');
});

test('an initialize without the modern envelope still starts a handshake', async () => {
  const w = await Wire.connect(server());
  const f = await w.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, 0);
  assert.equal(f.result?.protocolVersion, '2025-11-25');
  assert.equal(f.result?.resultType, undefined, 'handshake results carry no resultType');
});

test('an unknown method with the envelope is -32601; the id is echoed for string and number ids', async () => {
  const w = await Wire.connect(server());
  assertError(await w.modern('unknown/method', {}, {}, 'u1'), 'u1', -32601, /unknown\/method/);
  assertError(await w.modern('unknown/method', {}, {}, 0), 0, -32601);
  // A client-side method is not a server method either.
  assertError(await w.modern('sampling/createMessage', {}, {}, 9), 9, -32601);
});

test('server/discover and subscriptions/listen always claim the modern era, so a broken envelope is -32602', async () => {
  const w = await Wire.connect(server());
  // server/discover always claims the modern era, so its broken envelope is -32602 …
  assertError(await w.request('server/discover', { _meta: {} }, 1), 1, -32602);
  // … and subscriptions/listen as well.
  assertError(await w.request('subscriptions/listen', { notifications: {} }, 2), 2, -32602);
});

test('request middleware sees modern requests, unknown methods included, and may implement them', async () => {
  const s = server();
  const seen: string[] = [];
  s.use(async (method, _params, ctx, next) => {
    seen.push(`${method}@${ctx.protocolVersion}`);
    if (method === 'x/custom') return { custom: true };
    return next();
  });
  const w = await Wire.connect(s);
  const custom = await w.modern('x/custom', {}, {}, 1);
  assert.deepEqual(custom.result, { custom: true, resultType: 'complete', _meta: { [M.serverInfo]: { name: 'env', version: '1.0.0' } } });
  assertError(await w.modern('unknown/method', {}, {}, 2), 2, -32601);
  assert.deepEqual(seen, [`x/custom@${V}`, `unknown/method@${V}`]);
});
