// Request middleware runs the rest of the chain through `next()`, once. A middleware that calls it
// a second time (a retry written the wrong way, a bug) must not run the handler again: a tool's
// side effect (a payment, a message sent) would happen twice. The second call is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { createTestPair } from '../../src/testing/index.js';

test('next() called twice by request middleware: the handler runs once, the second next() rejects saying why', async () => {
  const server = new McpServer({ name: 'once', version: '1.0.0' });
  let charged = 0;
  server.tool('charge', {}, () => `charged ${++charged}`);
  let second: unknown;
  server.use(async (method, _params, _ctx, next) => {
    const first = await next();
    if (method === 'tools/call') second = await next().catch((e: unknown) => e);
    return first;
  });
  // The middleware after it still sees each request once.
  let seen = 0;
  server.use(async (method, _params, _ctx, next) => {
    if (method === 'tools/call') seen++;
    return next();
  });
  for (const era of ['handshake', 'modern'] as const) {
    const { client, close } = await createTestPair(server, { era });
    try {
      const before = charged;
      const r = await client.callTool('charge', {});
      assert.deepEqual(r.content, [{ type: 'text', text: `charged ${before + 1}` }], era);
      assert.equal(charged, before + 1, `${era}: the tool ran once`);
      assert.ok(second instanceof LocalError, `${era}: ${String(second)}`);
      assert.match((second as Error).message, /Request middleware #1 called next\(\) twice for tools\/call/);
    } finally {
      await close();
    }
  }
  assert.equal(seen, 2, 'once per call, in each era');
});
