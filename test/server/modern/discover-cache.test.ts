// server/discover, resultType on every result, and cache hints (SEP-2575, SEP-2549).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { M, V, Wire } from './helpers.js';

const INFO = { name: 'disc', version: '2.0.0' };

function full(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  const s = new McpServer({ ...INFO, instructions: 'Use the tools.', onerror: () => {}, ...options });
  s.tool('b-tool', { description: 'second', input: { x: z.number() } }, ({ x }) => String(x));
  s.tool('a-tool', { description: 'first' }, () => 'a');
  s.resource('readme', 'test://readme', { mimeType: 'text/plain' }, () => 'read me');
  s.resource('doc', 'test://docs/{name}', { mimeType: 'text/plain' }, (uri) => `doc ${uri}`);
  s.prompt('greet', { args: { name: z.string() } }, ({ name }) => `Hello ${name}`);
  return s;
}

test('server/discover: versions, capabilities, instructions, resultType, cache hints, serverInfo in _meta', async () => {
  const w = await Wire.connect(full());
  const f = await w.request('server/discover', { _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: {} } }, 'd');
  assert.equal(f.id, 'd');
  assert.deepEqual(f.result, {
    supportedVersions: [V],
    capabilities: {
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    },
    instructions: 'Use the tools.',
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [M.serverInfo]: INFO },
  });
  // serverInfo travels in _meta, never in the result body.
  assert.equal('serverInfo' in f.result!, false);
});

test('server/discover declares only what has handlers; undeclared features are -32601', async () => {
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.tool('t', () => 't');
  const w = await Wire.connect(s);
  const d = await w.result('server/discover');
  assert.deepEqual(d.capabilities, { logging: {}, tools: { listChanged: true } });
  assert.equal('instructions' in d, false);
  assert.ok(Array.isArray((await w.result('tools/list')).tools));
  for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
    const f = await w.modern(method);
    assert.equal(f.error?.code, -32601, `${method} must be -32601 when not declared`);
  }
  // A feature registered later shows up in the next discover (capabilities are read per request).
  s.prompt('p', () => 'p');
  assert.deepEqual((await w.result('server/discover')).capabilities.prompts, { listChanged: true });
});

test('every modern result has resultType; cacheable ones carry ttlMs 0 and cacheScope private by default', async () => {
  const w = await Wire.connect(full());
  const cases: Array<[string, Record<string, unknown>, boolean]> = [
    ['tools/list', {}, true],
    ['prompts/list', {}, true],
    ['resources/list', {}, true],
    ['resources/templates/list', {}, true],
    ['resources/read', { uri: 'test://readme' }, true],
    ['tools/call', { name: 'a-tool', arguments: {} }, false],
    ['prompts/get', { name: 'greet', arguments: { name: 'Ann' } }, false],
  ];
  for (const [method, params, cacheable] of cases) {
    const r = await w.result(method, params);
    assert.equal(r.resultType, 'complete', method);
    assert.deepEqual(r._meta, { [M.serverInfo]: INFO }, method);
    if (cacheable) {
      assert.equal(r.ttlMs, 0, method);
      assert.equal(r.cacheScope, 'private', method);
    } else {
      assert.equal('ttlMs' in r, false, `${method} is not cacheable`);
      assert.equal('cacheScope' in r, false, `${method} is not cacheable`);
    }
  }
  assert.deepEqual(await w.result('resources/read', { uri: 'test://readme' }), {
    contents: [{ uri: 'test://readme', mimeType: 'text/plain', text: 'read me' }],
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [M.serverInfo]: INFO },
  });
});

test('cache hints are configurable: a default and per method', async () => {
  const s = full({ modern: { cache: { ttlMs: 5000, scope: 'public', methods: { 'tools/list': { ttlMs: 60_000 }, 'resources/read': { scope: 'private' } } } } });
  const w = await Wire.connect(s);
  const tools = await w.result('tools/list');
  assert.equal(tools.ttlMs, 60_000);
  assert.equal(tools.cacheScope, 'public');
  const read = await w.result('resources/read', { uri: 'test://readme' });
  assert.equal(read.ttlMs, 5000);
  assert.equal(read.cacheScope, 'private');
  const disc = await w.result('server/discover');
  assert.equal(disc.ttlMs, 5000);
  assert.equal(disc.cacheScope, 'public');
  const prompts = await w.result('prompts/list');
  assert.equal(prompts.ttlMs, 5000);
  assert.equal(prompts.cacheScope, 'public');
});

test('a resource handler may set its own ttlMs/cacheScope on a read result', async () => {
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.resource('live', 'test://live', () => ({ contents: [{ uri: 'test://live', text: 'now' }], ttlMs: 10, cacheScope: 'public' }) as never);
  const w = await Wire.connect(s);
  const r = await w.result('resources/read', { uri: 'test://live' });
  assert.equal(r.ttlMs, 10);
  assert.equal(r.cacheScope, 'public');
});

test('list results are deterministic and identical across two connections', async () => {
  const s = full();
  const a = await Wire.connect(s);
  const b = await Wire.connect(s);
  for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'server/discover']) {
    const ra = await a.result(method);
    const ra2 = await a.result(method);
    const rb = await b.result(method);
    assert.deepEqual(ra, ra2, `${method} is deterministic`);
    assert.deepEqual(ra, rb, `${method} does not vary per connection`);
  }
  assert.deepEqual(
    (await a.result('tools/list')).tools.map((t: { name: string }) => t.name),
    ['b-tool', 'a-tool'],
  );
  // A handshake on one connection does not change what the other connection's modern lists show.
  const init = await a.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
  assert.ok(init.result);
  assert.deepEqual(await a.result('tools/list'), await b.result('tools/list'));
});

test('input_required results carry no cache hints', async () => {
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.resource('ask', 'test://ask/{x}', async (uri, ctx) => {
    const r = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
    return `${uri} ${r.action}`;
  });
  const w = await Wire.connect(s);
  const r = await w.result('resources/read', { uri: 'test://ask/1' }, { elicitation: {} });
  assert.equal(r.resultType, 'input_required');
  assert.equal('ttlMs' in r, false);
  assert.equal('cacheScope' in r, false);
  assert.deepEqual(r._meta, { [M.serverInfo]: INFO });
});

test('a bad configured ttlMs is sent as 0 (an integer >= 0 on the wire)', async () => {
  for (const ttlMs of [-5, Number.NaN, 1.7]) {
    const w = await Wire.connect(full({ modern: { cache: { ttlMs } } }));
    assert.equal((await w.result('tools/list')).ttlMs, ttlMs === 1.7 ? 1 : 0);
  }
  assert.throws(() => new McpServer({ ...INFO, modern: { stateSecret: '' } }), /stateSecret/);
});
