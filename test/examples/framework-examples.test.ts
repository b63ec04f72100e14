// examples/express-server.ts, hono-server.ts and fastify-server.ts as users run them: MCP beside
// the app's own route, and with MCP_TOKEN the framework's middleware admitting only the token
// and handing the caller to the tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { runExample } from './run-example.js';

for (const framework of ['express', 'hono', 'fastify']) {
  test(`examples/${framework}-server.ts: a tool call, the app's own route, a bearer token checked by ${framework} middleware`, async () => {
    const example = await runExample(`examples/${framework}-server.ts`, ['0'], { ...process.env, MCP_TOKEN: 'secret-1' });
    try {
      const health = await fetch(new URL('/health', example.url));
      assert.deepEqual(await health.json(), { ok: true });
      const refused = await fetch(example.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(refused.status, 401);
      for (const era of ['modern', 'handshake'] as const) {
        const client = await connect({ url: example.url, headers: { authorization: 'Bearer secret-1' } }, { era });
        try {
          const hello = await client.callTool('greet', { name: 'Ada' });
          assert.deepEqual(hello.content, [{ type: 'text', text: 'Hello, Ada! (asked by token-holder)' }]);
        } finally {
          await client.close();
        }
      }
    } finally {
      await example.stop();
    }
  });
}
