// The client says what each message is: in the 2026-07-28 era every send carries
// `era: 'modern'` (the HTTP transport routes on it; none looks inside the body), in the
// handshake era none does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient } from '../../src/client/client.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { createLinkedPair } from '../../src/transports/memory/index.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import type { SendOptions, Transport } from '../../src/engine/transport.js';

function recording(inner: Transport, sent: Array<[string, SendOptions | undefined]>): Transport {
  const t: Transport = {
    start: () => {
      inner.onmessage = (f, i) => t.onmessage?.(f, i);
      inner.onclose = (r) => t.onclose?.(r);
      return inner.start();
    },
    send: (m: JsonRpcMessage | JsonRpcMessage[], o?: SendOptions) => {
      if (!Array.isArray(m)) sent.push(['method' in m ? m.method : 'response', o]);
      return inner.send(m, o);
    },
    close: () => inner.close(),
  };
  return t;
}

for (const era of ['modern', 'handshake'] as const) {
  test(`client send options: ${era} era`, async () => {
    const mcp = new McpServer({ name: 's', version: '1' });
    mcp.tool('hi', () => 'hi');
    const [a, b] = createLinkedPair();
    await mcp.connect(b);
    const sent: Array<[string, SendOptions | undefined]> = [];
    const client = new McpClient({ name: 'c', version: '1', era });
    await client.connect(recording(a, sent));
    await client.callTool('hi', {});
    await client.close();
    const calls = sent.filter(([m]) => m === 'tools/call');
    assert.equal(calls.length, 1);
    for (const [method, o] of sent) {
      if (era === 'modern') assert.equal(o?.era, 'modern', method);
      else assert.equal(o?.era, undefined, method);
    }
  });
}
