// HTTP+SSE behind a load balancer that is not sticky: the stream on one instance, the POSTs on
// another, the two sharing nothing but a RedisBus. The official v1 SDK client must not notice.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve, type RunningServer, type ServeOptions } from '../../../src/serving/node.js';
import { RedisBus } from '../../../src/state/redis/bus.js';
import { cleanup, connectRedis, PREFIX } from '../../state/redis/helpers.js';
import { call, initReq, jsonError, post, SseReader } from './helpers.js';

after(cleanup);

function makeServer(): McpServer {
  const mcp = new McpServer({ name: 'relayed', version: '1.0.0' });
  mcp.tool('steps', async (_args, ctx) => {
    for (let i = 1; i <= 3; i++) await ctx.progress(i, 3);
    return 'three steps';
  });
  mcp.tool('whoami', (_args, ctx) => ctx.authInfo?.principal ?? 'nobody');
  return mcp;
}

async function instance(options: ServeOptions = {}): Promise<RunningServer> {
  const mcp = makeServer();
  mcp.server.share({ bus: new RedisBus({ client: await connectRedis(), subscriber: await connectRedis(), keyPrefix: PREFIX }) });
  await mcp.server.bus!.ready;
  return serve(mcp, { port: 0, host: '127.0.0.1', ...options });
}

/** Sends every GET to `streams` and everything else to `posts`; remembers the POSTed paths. */
async function balancer(streams: RunningServer, posts: RunningServer): Promise<{ base: string; posted: string[]; close(): Promise<void> }> {
  const posted: string[] = [];
  const server = http.createServer((req, res) => {
    const target = req.method === 'GET' ? streams : posts;
    if (req.method === 'POST') posted.push(req.url ?? '');
    const upstream = http.request({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    posted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('HTTP+SSE with a bus: POSTs reach the instance holding the stream; once it is gone, 404', async () => {
  // A result waits 100 ms after its progress (as in the interop tests): the v1 SDK drops
  // progress it reads in one chunk with the result, which a loaded machine can cause.
  const a = await instance({ legacySse: { progressGapMs: 100 } });
  const b = await instance();
  // Only for the "gone" check: nobody will answer, so the wait is the whole check.
  const c = await instance({ legacySse: { forwardTimeoutMs: 300 } });
  const lb = await balancer(a, b);
  const client = new Client({ name: 'lb-sse-client', version: '1.0.0' }, { capabilities: {} });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  try {
    await client.connect(new SSEClientTransport(new URL(`${lb.base}/sse`)));
    assert.equal(client.getServerVersion()?.name, 'relayed');
    const tools = await client.listTools();
    assert.deepEqual(
      tools.tools.map((t) => t.name),
      ['steps', 'whoami'],
    );
    const seen: number[] = [];
    const result = await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: (p) => seen.push(p.progress) });
    assert.deepEqual(result.content, [{ type: 'text', text: 'three steps' }]);
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(errors, []);
    // The stream is on A alone: every POST went to B and was forwarded.
    assert.equal(a.handler.legacy?.connectionCount, 1);
    assert.equal(b.handler.legacy?.connectionCount, 0);
    assert.ok(lb.posted.length >= 3, `POSTs through the balancer: ${lb.posted.join(', ')}`);
    const path = lb.posted[0]!;
    assert.match(path, /^\/messages\?sessionId=/);

    // The holder's stream gone: no instance accepts the session's POSTs any more.
    await a.close();
    const r = await fetch(`http://127.0.0.1:${c.port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
    });
    const err = await jsonError(r, 404);
    assert.match(err.message, /unknown or closed SSE session/);
    // And an unknown session is refused on a bus-less path as before: the same answer.
    const unknown = await fetch(`http://127.0.0.1:${c.port}/messages?sessionId=nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 100, method: 'ping' }),
    });
    assert.equal((await jsonError(unknown, 404)).message, err.message);
  } finally {
    await client.close().catch(() => {});
    await lb.close();
    await Promise.all([a.close().catch(() => {}), b.close(), c.close()]);
  }
});

test('HTTP+SSE with a bus: a forwarded POST keeps its caller; another caller gets 404 from the holder', async () => {
  const authenticate: ServeOptions['authenticate'] = (req) => (req.header('x-user') ? { principal: `user:${req.header('x-user')}` } : undefined);
  const a = await instance({ authenticate });
  const b = await instance({ authenticate });
  const abort = new AbortController();
  try {
    const r = await fetch(`http://127.0.0.1:${a.port}/sse`, { headers: { accept: 'text/event-stream', 'x-user': 'ada' }, signal: abort.signal });
    const sse = new SseReader(r);
    const endpoint = (await sse.next())?.data;
    assert.ok(endpoint);
    const onB = `http://127.0.0.1:${b.port}${endpoint}`;
    const init = await post(onB, initReq('2024-11-05'), { 'x-user': 'ada' });
    assert.equal(init.status, 202, await init.clone().text());
    assert.equal((await sse.message()).result.serverInfo.name, 'relayed');
    assert.equal((await post(onB, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'x-user': 'ada' })).status, 202);
    // The holder sees the caller B authenticated, as if the POST had come to it.
    const who = call('whoami');
    assert.equal((await post(onB, who, { 'x-user': 'ada' })).status, 202);
    const answer = await sse.message();
    assert.equal(answer.id, who.id);
    assert.equal(answer.result.content[0].text, 'user:ada');
    // Someone else with the session id: the holder refuses, and B says 404 as A would.
    const err = await jsonError(await post(onB, call('whoami'), { 'x-user': 'bob' }), 404);
    assert.match(err.message, /unknown or closed SSE session/);
  } finally {
    abort.abort();
    await Promise.all([a.close(), b.close()]);
  }
});
