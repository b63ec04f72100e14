// The HTTP era probe (issue 13, item 3): a legacy HTTP server answers server/discover with a
// status, never with silence, so a slow first answer (a cold start, a busy machine) is waited for
// under the request timeout instead of being taken for a handshake-era server after
// probeTimeoutMs; no answer at all is a timeout error, not a verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient } from '../../../src/client/client.js';
import { LocalError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve } from '../../../src/serving/node.js';
import { StreamableHttpClientTransport } from '../../../src/transports/http/client/streamable.js';
import { deferred, sleep } from '../../support/index.js';

function server(): McpServer {
  const s = new McpServer({ name: 'cold', version: '1.0.0', onerror: () => {} });
  s.tool('echo', () => 'ok');
  return s;
}

test('a 2026-07-28 server slower to answer the probe than probeTimeoutMs is still spoken to in 2026-07-28', async () => {
  const running = await serve(server(), { port: 0, host: '127.0.0.1' });
  const gate = deferred<void>();
  let held = 0;
  // The first POST (the probe) is held back until the test lets it go: a cold-starting server.
  const slowFetch: typeof fetch = async (input, init) => {
    if (held++ === 0) await gate.promise;
    return fetch(input, init);
  };
  try {
    const client = new McpClient({ name: 'c', version: '1', probeTimeoutMs: 1 });
    const connecting = client.connect(new StreamableHttpClientTransport({ url: running.url, fetch: slowFetch }));
    // Longer than probeTimeoutMs on any machine: the old probe had concluded "legacy" by now.
    await sleep(50);
    gate.resolve();
    const outcome = await connecting;
    assert.equal(outcome.era, 'modern');
    assert.equal(client.era, 'modern');
    assert.deepEqual((await client.callTool('echo', {})).content, [{ type: 'text', text: 'ok' }]);
    await client.close();
  } finally {
    await running.close();
  }
});

test('an HTTP server that never answers the probe is a timeout error under requestTimeoutMs, not a legacy server', async () => {
  const never = new Promise<Response>(() => {});
  const silent: typeof fetch = (_input, init) =>
    Promise.race([never, new Promise<Response>((_r, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }))]);
  const client = new McpClient({ name: 'c', version: '1', requestTimeoutMs: 30 });
  await assert.rejects(client.connect(new StreamableHttpClientTransport({ url: 'http://127.0.0.1:9/mcp', fetch: silent })), (e: unknown) => {
    assert.ok(e instanceof LocalError, String(e));
    assert.equal(e.kind, 'timeout');
    assert.match(e.message, /did not answer server\/discover \(the era probe\) within 30 ms/);
    return true;
  });
});
