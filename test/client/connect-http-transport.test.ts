// connectHttp: Streamable HTTP first, the deprecated HTTP+SSE transport as the spec's fallback,
// against servers built with the OFFICIAL SDK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectHttp } from '../../src/client/connect-http.js';
import { HttpStatusError } from '../../src/transports/http/client/http-common.js';
import { startLegacySseServer, startStreamableServer } from '../fixtures/http/official-servers.js';

const firstText = (r: { content: Array<{ type: string; text?: string }> }) => r.content[0]?.text;

test('connectHttp: Streamable HTTP when the server offers it', async () => {
  const fx = await startStreamableServer();
  try {
    const { client, transport } = await connectHttp(fx.url, { name: 'auto', version: '1' }, { reconnect: { initialDelayMs: 10 } });
    assert.equal(transport, 'streamable-http');
    assert.equal(client.clientInfo.name, 'auto');
    assert.equal(firstText(await client.callTool('echo', { message: 'modern' })), 'modern');
    await client.close();
    assert.equal(fx.seen.filter((r) => r.method === 'GET' && r.url === '/mcp' && !r.sessionId).length, 0);
  } finally {
    await fx.close();
  }
});

for (const status of [405, 404, 400]) {
  test(`connectHttp: initialize POST answered ${status} → falls back to HTTP+SSE on the same URL`, async () => {
    const fx = await startLegacySseServer({ postStatus: status });
    try {
      const { client, transport } = await connectHttp(fx.url, {}, { headers: { 'x-test': 'yes' } });
      assert.equal(transport, 'sse');
      assert.equal(client.era, 'handshake');
      assert.equal(firstText(await client.callTool('echo', { message: `fallback ${status}` })), `fallback ${status}`);
      // The default era is 'auto': a server/discover probe (with the 2026-07-28 version header)
      // is refused first, then the initialize POST, then the legacy event stream.
      const [probe, post, get] = fx.seen;
      assert.equal(probe.method, 'POST');
      assert.equal(probe.url, '/sse');
      assert.equal(probe.protocolVersion, '2026-07-28');
      assert.equal(post.method, 'POST');
      assert.equal(post.url, '/sse');
      assert.equal(post.protocolVersion, undefined);
      assert.equal(get.method, 'GET');
      assert.equal(get.url, '/sse');
      await client.close();
    } finally {
      await fx.close();
    }
  });
}

test('connectHttp, era handshake: no probe, the initialize POST is refused, then HTTP+SSE', async () => {
  const fx = await startLegacySseServer({ postStatus: 405 });
  try {
    const { client, transport } = await connectHttp(fx.url, { era: 'handshake' });
    assert.equal(transport, 'sse');
    assert.equal(firstText(await client.callTool('echo', { message: 'pinned' })), 'pinned');
    assert.deepEqual(
      fx.seen.slice(0, 2).map((r) => `${r.method} ${r.url}`),
      ['POST /sse', 'GET /sse'],
    );
    assert.equal(fx.seen[0].protocolVersion, undefined);
    await client.close();
  } finally {
    await fx.close();
  }
});

test('connectHttp: other failures propagate without fallback', async () => {
  const fx = await startLegacySseServer({ postStatus: 500 });
  try {
    const err = await connectHttp(fx.url).catch((e: unknown) => e);
    assert.ok(err instanceof HttpStatusError, String(err));
    assert.equal(err.status, 500);
    assert.ok(!fx.seen.some((r) => r.method === 'GET'), 'no SSE attempt');
  } finally {
    await fx.close();
  }
  // Connection refused: a network error, no fallback either.
  const http = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  await new Promise((r) => http.close(r));
  await assert.rejects(connectHttp(`http://127.0.0.1:${port}/mcp`), /POST http:\/\/127\.0\.0\.1:\d+\/mcp failed/);
});

test('connectHttp: when the fallback fails too, both errors are reported', async () => {
  const http = createServer((_req, res) => void res.writeHead(404).end('nothing here'));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  try {
    const err = await connectHttp(url).catch((e: unknown) => e);
    assert.ok(err instanceof AggregateError, String(err));
    assert.equal(err.errors.length, 2);
    assert.ok(err.errors.every((e) => e instanceof HttpStatusError && e.status === 404));
    assert.match(err.message, /Streamable HTTP was refused.*HTTP\+SSE fallback failed/);
  } finally {
    await new Promise((r) => http.close(r));
  }
});
