// Serving needs no more of a server than its read-only port (ServerPort): an object that has
// exactly the port's members, delegating to a real server and nothing else, is served over real
// HTTP in both eras, HTTP+SSE included. If the HTTP core reached past the port (a writable field,
// a registry, the session set), this object would not have it and the calls below would fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { connect } from '../../../src/client/connect.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import type { ServerPort } from '../../../src/server/server.js';
import { serve } from '../../../src/serving/node.js';
import { SseClientTransport } from '../../../src/transports/http/client/sse-legacy.js';

function portOnly(server: McpServer): ServerPort {
  const s = server.server;
  // Every member of ServerPort, each bound to the server; nothing else.
  const port: ServerPort = {
    identity: () => s.identity(),
    info: s.info,
    versions: s.versions,
    limits: s.limits,
    modern: s.modern,
    dispatch: (method, params, ctx) => s.dispatch(method, params, ctx),
    toolInputSchema: (name, authInfo) => s.toolInputSchema(name, authInfo),
    connect: (transport) => s.connect(transport),
    attach: (transport) => s.attach(transport),
    messageMiddleware: s.messageMiddleware,
    bus: s.bus,
    onHostRelay: (name, listener) => s.onHostRelay(name, listener),
    relayHost: (name, data) => s.relayHost(name, data),
    relayHostSent: (name, data) => s.relayHostSent(name, data),
    onerror: (e) => s.onerror(e),
  };
  return Object.freeze(port);
}

test('a bare ServerPort is served over HTTP: 2026-07-28, 2025-11-25 and HTTP+SSE clients call its tools', async () => {
  const mcp = new McpServer({ name: 'port-only', version: '1.0.0' });
  mcp.tool('add', { input: { a: z.number(), b: z.number() } }, ({ a, b }) => String(a + b));
  const running = await serve(portOnly(mcp), { port: 0, host: '127.0.0.1' });
  try {
    for (const [label, options] of [
      ['modern', { era: 'modern' }],
      ['handshake', { era: 'handshake' }],
    ] as const) {
      const client = await connect({ url: running.url }, options);
      try {
        const result = await client.callTool('add', { a: 2, b: 3 });
        assert.deepEqual(result.content, [{ type: 'text', text: '5' }], label);
        assert.equal(client.serverInfo?.name, 'port-only', label);
        assert.equal(client.era, label);
      } finally {
        await client.close();
      }
    }
    const legacy = await connect(new SseClientTransport({ url: new URL('/sse', running.url).href }));
    try {
      const result = await legacy.callTool('add', { a: 4, b: 5 });
      assert.deepEqual(result.content, [{ type: 'text', text: '9' }]);
    } finally {
      await legacy.close();
    }
  } finally {
    await running.close();
  }
});
