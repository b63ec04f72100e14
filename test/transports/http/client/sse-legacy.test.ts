// Our SseClientTransport against the OFFICIAL SDK's deprecated SSEServerTransport.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient } from '../../../../src/client/client.js';
import { HttpStatusError } from '../../../../src/transports/http/client/http-common.js';
import { SseClientTransport } from '../../../../src/transports/http/client/sse-legacy.js';
import { startLegacySseServer, type LegacySseFixture } from '../../../fixtures/http/official-servers.js';
import { waitFor } from '../../../support/index.js';

const firstText = (r: { content: Array<{ type: string; text?: string }> }) => r.content[0]?.text;

let legacy: LegacySseFixture;
before(async () => {
  legacy = await startLegacySseServer();
});
after(async () => {
  await legacy.close();
});

test('SseClientTransport: endpoint event, POSTed messages, progress, close ends the stream', async () => {
  const transport = new SseClientTransport({ url: legacy.url, headers: { authorization: 'Bearer legacy' } });
  const client = new McpClient({ name: 'legacy-test', version: '1.0.0', protocolVersion: '2024-11-05' });
  await client.connect(transport);
  assert.equal(client.protocolVersion, '2024-11-05');
  assert.equal(client.serverInfo?.name, 'official-http-fixture');
  const endpoint = transport.endpoint!;
  assert.equal(endpoint.origin, new URL(legacy.url).origin);
  assert.equal(endpoint.pathname, '/messages');
  const sessionId = endpoint.searchParams.get('sessionId')!;
  assert.ok(legacy.transports.has(sessionId));

  assert.equal(firstText(await client.callTool('echo', { message: 'über' })), 'über');
  const progress: number[] = [];
  assert.equal(firstText(await client.callTool('count', { n: 3 }, { onprogress: (p) => progress.push(p.progress) })), 'counted to 3');
  assert.deepEqual(progress, [1, 2, 3]);

  const get = legacy.seen.find((r) => r.method === 'GET')!;
  assert.equal(get.accept, 'text/event-stream');
  assert.equal(get.authorization, 'Bearer legacy');
  const post = legacy.seen.find((r) => r.method === 'POST' && r.url.startsWith('/messages'))!;
  assert.equal(post.contentType, 'application/json');
  assert.equal(post.authorization, 'Bearer legacy');

  let closes = 0;
  client.onClose(() => closes++);
  await client.close();
  await waitFor(() => legacy.closedSessions.includes(sessionId));
  assert.equal(closes, 1);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'ping', id: 1 }), /not connected/);
});

test('SseClientTransport: the server ending the stream closes the transport with a reason', async () => {
  const transport = new SseClientTransport({ url: legacy.url });
  const client = new McpClient({ name: 'legacy-test', version: '1.0.0' });
  await client.connect(transport);
  const reason = new Promise<Error | undefined>((resolve) => client.onClose(resolve));
  const sessionId = transport.endpoint!.searchParams.get('sessionId')!;
  await legacy.transports.get(sessionId)!.close();
  const why = await reason;
  assert.match(String(why?.message), /ended/);
  assert.equal(client.connected, false);
});

test('SseClientTransport: an endpoint on another origin is refused', async () => {
  const fx = await startLegacySseServer({ endpointOverride: 'http://evil.example:8080/messages' });
  try {
    const transport = new SseClientTransport({ url: fx.url });
    await assert.rejects(transport.start(), /another origin/);
  } finally {
    await fx.close();
  }
});

test('SseClientTransport: HTTP errors and a missing endpoint event are explained', async () => {
  const http = createServer((req, res) => {
    if (req.url === '/teapot') return void res.writeHead(418).end('short and stout');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('event: message\ndata: {}\n\n');
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  try {
    const err = await new SseClientTransport({ url: `${base}/teapot` }).start().catch((e: unknown) => e);
    assert.ok(err instanceof HttpStatusError);
    assert.equal(err.status, 418);
    assert.equal(err.body, 'short and stout');
    await assert.rejects(new SseClientTransport({ url: `${base}/sse` }).start(), /ended before the "endpoint" event/);
  } finally {
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
});

test('SseClientTransport: start() settles on close() or on the endpoint timeout', async () => {
  let served = 0;
  const http = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': waiting\n\n');
    served++;
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`;
  try {
    const t = new SseClientTransport({ url });
    const starting = t.start();
    // Close once the stream is open and start() is waiting for the endpoint event.
    await waitFor(() => served > 0);
    await new Promise((r) => setTimeout(r, 20));
    void t.close();
    await assert.rejects(starting, /the transport was closed|closed while connecting/);
    await assert.rejects(new SseClientTransport({ url, endpointTimeoutMs: 40 }).start(), /no "endpoint" event within 40 ms/);
  } finally {
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
});
