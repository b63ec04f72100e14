// serve()'s request timeouts: the defaults node:http gets, and settings that cannot work refused
// with a message (the slow clients themselves are in test/cli/slow-clients.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS, serve } from '../../../src/serving/node.js';

test('serve(): headers and body timeouts by default, settable, 0 for none', async () => {
  const server = new McpServer({ name: 't', version: '1' });
  const byDefault = await serve(server, { port: 0 });
  try {
    assert.equal(byDefault.httpServer.headersTimeout, DEFAULT_HEADERS_TIMEOUT_MS);
    assert.equal(byDefault.httpServer.requestTimeout, DEFAULT_BODY_TIMEOUT_MS);
    assert.equal(byDefault.httpServer.keepAliveTimeout, 65_000);
  } finally {
    await byDefault.close();
  }
  const set = await serve(new McpServer({ name: 't', version: '1' }), { port: 0, headersTimeoutMs: 0, bodyTimeoutMs: 0 });
  try {
    assert.equal(set.httpServer.headersTimeout, 0);
    assert.equal(set.httpServer.requestTimeout, 0);
  } finally {
    await set.close();
  }
});

test('serve(): a headers timeout past the body timeout, or a negative one, is refused', async () => {
  const server = new McpServer({ name: 't', version: '1' });
  await assert.rejects(
    serve(server, { port: 0, headersTimeoutMs: 5000, bodyTimeoutMs: 1000 }),
    /headersTimeoutMs \(5000\) must not exceed bodyTimeoutMs \(1000\)/,
  );
  await assert.rejects(serve(server, { port: 0, bodyTimeoutMs: -1 }), /bodyTimeoutMs must be 0 \(no limit\) or more/);
});
