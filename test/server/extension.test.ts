// The extension seam: a feature the core does not know adds methods (per era), capabilities in
// both eras, tool options and tool behaviour, relays over the message bus, and a shutdown step.
// Tasks are built on the same seam; this test uses a made-up extension so that nothing here
// leans on what tasks do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import type { ServerExtension } from '../../src/server/extension.js';
import { MemoryBus } from '../../src/state/bus.js';
import { McpClient } from '../../src/client/client.js';
import { createLinkedPair } from '../../src/transports/memory/index.js';
import { assertError, meta, Wire } from './modern/helpers.js';

const NAME = 'example.com/stamps';

declare module '../../src/server/tools.js' {
  interface ToolConfig {
    stamp?: string;
  }
}

function stamps(log: string[]): ServerExtension {
  return {
    name: NAME,
    setup(api) {
      let count = 0;
      api.setRequestHandler('stamps/count', () => ({ count, era: 'modern' }), { era: 'modern' });
      api.setRequestHandler('stamps/count', (_p, ctx) => ({ count, era: ctx.era }), { era: 'handshake' });
      return {
        discover: () => ({ level: 1 }),
        initialize: (version) => (version === '2025-06-18' ? { experimental: { stamps: {} } } : undefined),
        toolOptions: ['stamp'],
        tool(name, config) {
          const stamp = config.stamp as string | undefined;
          if (stamp === undefined) return undefined;
          return {
            list: (wire) => ({ ...wire, _meta: { [NAME]: stamp } }),
            call: async (_params, ctx, next) => {
              count++;
              api.relay({ stamped: name });
              const r = (await next(ctx)) as { content: Array<{ type: string; text: string }> };
              return { ...r, content: [...r.content, { type: 'text', text: `${stamp} (${ctx.era})` }] };
            },
          };
        },
        relayed: (data) => log.push(`relayed ${JSON.stringify(data)}`),
        close: () => {
          log.push('closed');
        },
      };
    },
  };
}

function server(log: string[], bus?: MemoryBus): McpServer {
  const s = new McpServer({ name: 'stamped', version: '1.0.0', extensions: [stamps(log)], bus, onerror: (e) => log.push(`error ${e.message}`) });
  s.tool('plain', () => 'plain');
  s.tool('approved', { stamp: 'APPROVED' }, () => 'done');
  return s;
}

test('extension seam, 2026-07-28: discover advertises it; its tool hook changes tools/list and wraps tools/call; era-scoped methods', async () => {
  const log: string[] = [];
  const s = server(log);
  const w = await Wire.connect(s);
  const discover = await w.result('server/discover', { _meta: meta() });
  assert.deepEqual(discover.capabilities.extensions, { [NAME]: { level: 1 } });
  const listed = await w.result('tools/list', { _meta: meta() });
  assert.deepEqual(
    listed.tools.map((t: { name: string; _meta?: object }) => [t.name, t._meta]),
    [
      ['plain', undefined],
      ['approved', { [NAME]: 'APPROVED' }],
    ],
  );
  const called = await w.result('tools/call', { name: 'approved', arguments: {}, _meta: meta() });
  assert.deepEqual(called.content, [
    { type: 'text', text: 'done' },
    { type: 'text', text: 'APPROVED (modern)' },
  ]);
  const plain = await w.result('tools/call', { name: 'plain', arguments: {}, _meta: meta() });
  assert.deepEqual(plain.content, [{ type: 'text', text: 'plain' }]);
  assert.deepEqual((await w.result('stamps/count', { _meta: meta() })).count, 1);
  await s.close();
  assert.deepEqual(log, ['closed'], 'close hook ran; no bus, so nothing relayed and no error');
});

test('extension seam, handshake era: initialize gets the extension capability at its revision; the handshake handler answers', async () => {
  const log: string[] = [];
  const s = server(log);
  for (const [version, expected] of [
    ['2025-06-18', { stamps: {} }],
    ['2025-11-25', undefined],
  ] as const) {
    const [a, b] = createLinkedPair();
    const client = new McpClient({ name: 'c', version: '1', era: 'handshake', protocolVersion: version });
    await s.connect(b);
    await client.connect(a);
    assert.deepEqual(client.serverCapabilities?.experimental, expected);
    const r = await client.callTool('approved', {});
    assert.deepEqual(r.content, [
      { type: 'text', text: 'done' },
      { type: 'text', text: 'APPROVED (handshake)' },
    ]);
    assert.deepEqual(await client.request('stamps/count', {}), { count: version === '2025-06-18' ? 1 : 2, era: 'handshake' });
    await client.close();
  }
  await s.close();
});

test('extension seam: a method served in one era only is -32601 in the other; an option nobody reads is refused', async () => {
  const s = new McpServer({
    name: 'one-era',
    version: '1.0.0',
    extensions: [{ name: 'x', setup: (api) => api.setRequestHandler('x/only', () => ({ ok: true }), { era: 'modern' }) }],
  });
  const w = await Wire.connect(s);
  assert.deepEqual(await w.result('x/only', { _meta: meta() }), {
    ok: true,
    resultType: 'complete',
    _meta: (await w.result('x/only', { _meta: meta() }))._meta,
  });
  await w.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  assertError(await w.request('x/only', {}, 'h'), 'h', -32601);
  assert.throws(() => s.tool('t', { stamp: 'X' }, () => 'x'), /Tool "t": unknown option "stamp": no installed extension reads it/);
  assert.throws(() => new McpServer({ name: 'n', version: '1', extensions: [{} as ServerExtension] }), /each entry must be a ServerExtension/);
  s.tool('ok', () => 'ok');
  assert.throws(() => s.install({ name: 'late', setup: () => undefined }), /Install extensions before registering tools/);
  await s.close();
});

test('extension seam: relay reaches the same extension on every other instance over the bus, never its own', async () => {
  const bus = new MemoryBus();
  const logA: string[] = [];
  const logB: string[] = [];
  const a = server(logA, bus);
  const b = server(logB, bus);
  const w = await Wire.connect(a);
  await w.result('tools/call', { name: 'approved', arguments: {}, _meta: meta() });
  // Wait on the event itself: the bus delivers asynchronously, as a network would.
  for (let i = 0; i < 100 && logB.length === 0; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(logB, ['relayed {"stamped":"approved"}']);
  assert.deepEqual(logA, [], 'an instance does not apply its own relay');
  await a.close();
  await b.close();
});
