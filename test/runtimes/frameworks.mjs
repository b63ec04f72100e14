// The framework checks of the runtime matrix: examples/express-server.ts and fastify-server.ts
// (Node frameworks, run here by Node, Bun or Deno through their Node compatibility) started with
// MCP_API_KEYS, so that mcpkit's API-key guard answers behind the framework's own middleware
// (which stamps a request id on every answer). Driven from Node by mcpkit's client and raw fetch.
import assert from 'node:assert/strict';
import { connect } from '../../dist/entries/client.js';

export const FRAMEWORKS = ['express', 'fastify'];
export const API_KEYS = 'key-a,key-b';

/** name → check(url, framework), where url is the example's MCP endpoint. */
export const FRAMEWORK_CHECKS = {
  "the app's own route beside MCP": async (url) => {
    const health = await fetch(new URL('/health', url));
    assert.deepEqual(await health.json(), { ok: true });
  },
  "the API-key guard refuses without a key, behind the app's middleware": async (url) => {
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
    assert.match(refused.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    await refused.body?.cancel();
  },
  'both eras with a key: the tool sees the caller': async (url) => {
    for (const era of ['modern', 'handshake']) {
      const client = await connect({ url, headers: { 'x-api-key': 'key-b' } }, { era });
      try {
        assert.equal(client.era, era);
        const hello = await client.callTool('greet', { name: 'Ada' });
        assert.deepEqual(hello.content, [{ type: 'text', text: 'Hello, Ada! (asked by api-key-1)' }]);
      } finally {
        await client.close();
      }
    }
  },
};
