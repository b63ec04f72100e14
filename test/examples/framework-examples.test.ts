// examples/express-server.ts, hono-server.ts and fastify-server.ts as users run them: MCP beside
// the app's own route; with MCP_TOKEN the framework's middleware admitting only the token and
// handing the caller to the tool; with MCP_API_KEYS mcpkit's API-key guard doing it, behind the
// framework's own middleware (whose request id is on every answer, refusals included).
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

for (const framework of ['express', 'hono', 'fastify']) {
  test(`examples/${framework}-server.ts: mcpkit's API-key guard behind ${framework}'s own middleware`, async () => {
    const example = await runExample(`examples/${framework}-server.ts`, ['0'], { ...process.env, MCP_API_KEYS: 'key-a,key-b' });
    try {
      const refused = await fetch(example.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
      assert.match(refused.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, "the framework's middleware ran before the guard refused");
      await refused.body?.cancel();
      const ids = new Set<string>();
      const tracking = async (input: string | URL | Request, init?: RequestInit) => {
        const r = await fetch(input, init);
        const id = r.headers.get('x-request-id');
        if (id) ids.add(id);
        return r;
      };
      for (const [era, key] of [
        ['modern', 'key-b'],
        ['handshake', 'key-a'],
      ] as const) {
        const client = await connect({ url: example.url, fetch: tracking, headers: { 'x-api-key': key } }, { era });
        try {
          const hello = await client.callTool('greet', { name: 'Ada' });
          assert.deepEqual(hello.content, [{ type: 'text', text: `Hello, Ada! (asked by api-key-${key === 'key-a' ? 0 : 1})` }]);
        } finally {
          await client.close();
        }
      }
      assert.ok(ids.size >= 2, 'admitted answers carry the request id too');
    } finally {
      await example.stop();
    }
  });
}
