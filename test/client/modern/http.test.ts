// The 2026-07-28 era over HTTP, against OUR server served by serve(): era detection by the
// discover POST, the routing headers (incl. Mcp-Param-* for x-mcp-header arguments), no
// session, cancellation by aborting the POST, listen, MRTR and the private cache per credential.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { connect } from '../../../src/client/connect.js';
import { McpClient } from '../../../src/client/client.js';
import { LocalError, McpError } from '../../../src/jsonrpc/errors.js';
import { McpServer, type McpServerOptions } from '../../../src/server/mcp-server.js';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import { connectHttp } from '../../../src/client/connect-http.js';
import { HttpStatusError } from '../../../src/transports/http/client/http-common.js';
import { StreamableHttpClientTransport } from '../../../src/transports/http/client/streamable.js';
import { serve, type RunningServer } from '../../../src/serving/node.js';
import { startStreamableServer } from '../../fixtures/http/official-servers.js';
import { M, text, V } from './helpers.js';
import { waitFor } from '../../support/index.js';

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, any> | undefined;
}

/** A fetch that keeps every request: HTTP method, path, headers, JSON body. */
function recordingFetch(): { fetch: typeof fetch; seen: Seen[]; posts: (rpc: string) => Seen[] } {
  const seen: Seen[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    seen.push({ method: init?.method ?? 'GET', path: u.pathname, headers, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return fetch(input, init);
  };
  return { fetch: wrapped, seen, posts: (rpc) => seen.filter((s) => s.method === 'POST' && s.body?.method === rpc) };
}

interface Fixture {
  mcp: McpServer;
  running: RunningServer;
  url: string;
  aborted: string[];
  /** Tools whose handler has started, in order. */
  started: string[];
  close(): Promise<void>;
}

async function start(options: Partial<McpServerOptions> = {}, serveOptions: Parameters<typeof serve>[1] = {}): Promise<Fixture> {
  const mcp = new McpServer({ name: 'http-modern', version: '2.0.0', onerror: () => {}, ...options });
  const aborted: string[] = [];
  const started: string[] = [];
  mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  mcp.resource('spaced', 'file:///a%20b/read me', () => 'spaced');
  mcp.tool('traced', () => ({ content: [{ type: 'text' as const, text: 't' }], _meta: { 'example.com/trace': 'abc' } }));
  mcp.tool(
    'route',
    {
      input: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          count: { type: 'integer', 'x-mcp-header': 'Count' },
          verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
          note: { type: 'string' },
        },
      },
    },
    (args) => JSON.stringify(args),
  );
  // x-mcp-header on a number property is not allowed: HTTP clients must drop this tool.
  mcp.tool('bad-header', { input: { type: 'object', properties: { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } } } }, () => 'never listed');
  mcp.tool('wait', async (_a, ctx) => {
    started.push('wait');
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    aborted.push('wait');
    return 'cancelled';
  });
  mcp.tool('ask', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return r.action === 'accept' ? `hello ${String(r.content?.name)}` : r.action;
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1', ...serveOptions });
  return { mcp, running, url: running.url, aborted, started, close: () => running.close() };
}

test('http auto: our server is detected as 2026-07-28; every POST carries the routing headers; no session, GET or DELETE', async () => {
  const fx = await start();
  const rec = recordingFetch();
  const client = await connect({ url: fx.url, fetch: rec.fetch }, { era: 'auto' });
  try {
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, V);
    assert.deepEqual(client.serverInfo, { name: 'http-modern', version: '2.0.0' });
    const echoed = await client.callTool('echo', { text: 'héllo' });
    assert.equal(text(echoed), 'héllo');
    // The era's plumbing (resultType, the server's identity in _meta) is taken off; a result's
    // own _meta keys stay.
    assert.deepEqual(Object.keys(echoed), ['content']);
    assert.deepEqual((await client.callTool('traced', {}))._meta, { 'example.com/trace': 'abc' });
    // asSent (a relay answering a caller of the same era): the result as the server sent it.
    const sent = await client.callTool('traced', {}, { asSent: true });
    assert.equal(sent.resultType, 'complete');
    assert.deepEqual(sent._meta, { 'example.com/trace': 'abc', [M.serverInfo]: { name: 'http-modern', version: '2.0.0' } });
    assert.equal((await client.readResource('file:///a%20b/read me')).contents[0].uri, 'file:///a%20b/read me');
    // The discover POST doubled as the probe: one request, no second discover.
    assert.equal(rec.posts('server/discover').length, 1);
    for (const s of rec.seen) {
      assert.equal(s.method, 'POST');
      assert.equal(s.headers['content-type'], 'application/json');
      assert.equal(s.headers.accept, 'application/json, text/event-stream');
      assert.equal(s.headers['mcp-protocol-version'], V);
      assert.equal(s.headers['mcp-method'], s.body!.method);
      assert.equal(s.headers['mcp-session-id'], undefined);
    }
    assert.equal(rec.posts('tools/call')[0].headers['mcp-name'], 'echo');
    assert.equal(rec.posts('resources/read')[0].headers['mcp-name'], 'file:///a%20b/read me');
  } finally {
    await client.close();
  }
  assert.ok(
    rec.seen.every((s) => s.method === 'POST'),
    'no GET stream and no DELETE',
  );
  assert.equal(fx.running.handler.streamable.sessionCount, 0);
  await fx.close();
});

test('http auto: a handshake-only server (ours with modern:false, and the OFFICIAL SDK) gets initialize; remembered', async () => {
  const fx = await start({ modern: false });
  const rec = recordingFetch();
  const client = await connect({ url: fx.url, fetch: rec.fetch }, { era: 'auto' });
  assert.equal(client.era, 'handshake');
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.equal(text(await client.callTool('echo', { text: 'legacy' })), 'legacy');
  assert.deepEqual(
    rec.seen.slice(0, 2).map((s) => s.body?.method),
    ['server/discover', 'initialize'],
  );
  await client.close();
  // The era is remembered for this origin + path: no probe the second time.
  const again = recordingFetch();
  const second = await connect({ url: fx.url, fetch: again.fetch }, { era: 'auto' });
  assert.equal(second.era, 'handshake');
  assert.equal(again.seen[0].body?.method, 'initialize');
  await second.close();
  await fx.close();

  const official = await startStreamableServer();
  try {
    const { client: c, transport } = await connectHttp(official.url, { era: 'auto' });
    assert.equal(transport, 'streamable-http');
    assert.equal(c.era, 'handshake');
    assert.equal(text(await c.callTool('echo', { message: 'official' })), 'official');
    assert.deepEqual(
      official.seen.slice(0, 2).map((s) => s.rpc),
      ['server/discover', 'initialize'],
    );
    await c.close();
  } finally {
    await official.close();
  }
});

test('http auto: the HTTP+SSE fallback still follows a refused initialize; 401 is no era signal', async () => {
  const fx = await start();
  const rec = recordingFetch();
  const { client, transport } = await connectHttp(fx.url.replace('/mcp', '/sse'), { era: 'auto' }, { fetch: rec.fetch });
  assert.equal(transport, 'sse');
  assert.equal(client.era, 'handshake');
  assert.deepEqual(
    rec.seen.slice(0, 3).map((s) => `${s.method} ${s.path} ${s.body?.method ?? ''}`.trim()),
    ['POST /sse server/discover', 'POST /sse initialize', 'GET /sse'],
  );
  assert.equal(text(await client.callTool('echo', { text: 'sse' })), 'sse');
  await client.close();
  await fx.close();

  const guarded = await start({}, { authenticate: apiKeyGuard({ keys: ['k'] }) });
  const denied = recordingFetch();
  const err = await connect({ url: guarded.url, fetch: denied.fetch }, { era: 'auto' }).catch((e: unknown) => e);
  assert.ok(err instanceof HttpStatusError && err.status === 401, String(err));
  assert.equal(denied.seen.length, 1, 'no initialize, no HTTP+SSE after a 401');
  const ok = await connect({ url: guarded.url, headers: { 'x-api-key': 'k' } }, { era: 'auto' });
  assert.equal(ok.era, 'modern');
  await ok.close();
  await guarded.close();
});

test('http: x-mcp-header arguments travel as Mcp-Param-*; a tool with invalid annotations is dropped with a warning', async () => {
  const fx = await start();
  const rec = recordingFetch();
  const warnings: string[] = [];
  const client = await connect({ url: fx.url, fetch: rec.fetch }, { era: 'modern', onerror: (e) => warnings.push(e.message) });
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('route') && !names.includes('bad-header'), names.join());
    assert.ok(!(await client.listAllTools()).some((t) => t.name === 'bad-header'));
    assert.ok(
      warnings.some((w) => /bad-header/.test(w) && /x-mcp-header/.test(w)),
      warnings.join('\n'),
    );
    const r = await client.callTool('route', { region: 'Zürich', count: 3, verbose: false, note: 'not mirrored' });
    assert.deepEqual(JSON.parse(text(r)!), { region: 'Zürich', count: 3, verbose: false, note: 'not mirrored' });
    const h = rec.posts('tools/call').at(-1)!.headers;
    assert.equal(h['mcp-name'], 'route');
    assert.equal(h['mcp-param-region'], `=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
    assert.equal(h['mcp-param-count'], '3');
    assert.equal(h['mcp-param-verbose'], 'false');
    assert.equal(Object.keys(h).filter((k) => k.startsWith('mcp-param-')).length, 3);
    // Absent arguments: no header.
    await client.callTool('route', { region: 'eu' });
    assert.deepEqual(
      Object.keys(rec.posts('tools/call').at(-1)!.headers).filter((k) => k.startsWith('mcp-param-')),
      ['mcp-param-region'],
    );
  } finally {
    await client.close();
  }
  await fx.close();
});

test('http: a call before tools/list is refused (-32020); the client re-reads the tools and retries once', async () => {
  const fx = await start();
  const rec = recordingFetch();
  const client = await connect({ url: fx.url, fetch: rec.fetch }, { era: 'modern', onerror: () => {} });
  try {
    const r = await client.callTool('route', { region: 'us' });
    assert.deepEqual(JSON.parse(text(r)!), { region: 'us' });
    assert.deepEqual(
      rec.seen.slice(1).map((s) => s.body?.method),
      ['tools/call', 'tools/list', 'tools/call'],
    );
  } finally {
    await client.close();
  }
  await fx.close();
});

test('http: cancelling a call aborts its POST; the server handler sees ctx.signal fire; nothing is POSTed for it', async () => {
  const fx = await start();
  const rec = recordingFetch();
  const client = await connect({ url: fx.url, fetch: rec.fetch }, { era: 'modern' });
  try {
    const ctl = new AbortController();
    const call = client.callTool('wait', {}, { signal: ctl.signal });
    await waitFor(() => fx.started.length === 1, 'the handler to be running');
    ctl.abort();
    await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
    await waitFor(() => fx.aborted.length === 1, 'the server handler to be cancelled');
    assert.equal(rec.posts('notifications/cancelled').length, 0);
    // Timeouts cancel the same way.
    await assert.rejects(client.callTool('wait', {}, { timeoutMs: 50 }), (e: unknown) => e instanceof LocalError && e.kind === 'timeout');
    await waitFor(() => fx.aborted.length === 2, 'the timed-out handler to be cancelled');
    assert.equal(text(await client.callTool('echo', { text: 'after' })), 'after');
  } finally {
    await client.close();
  }
  await fx.close();
});

test('http: listen (acknowledged, a list change, close aborts the stream) and an MRTR round trip', async () => {
  const fx = await start();
  const client = await connect(fx.url, { era: 'auto', elicitation: () => ({ action: 'accept', content: { name: 'Grace' } }) });
  try {
    const seen: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => seen.push(n.method));
    assert.deepEqual(await sub.acknowledged, { toolsListChanged: true });
    assert.equal(fx.mcp.server.modern!.listenCount, 1);
    fx.mcp.tool('late', () => 'late');
    await waitFor(() => seen.length === 1, 'the list change');
    assert.deepEqual(seen, ['notifications/tools/list_changed']);
    await sub.close();
    await waitFor(() => fx.mcp.server.modern!.listenCount === 0, 'the server to see the stream closed');
    assert.equal(text(await client.callTool('ask')), 'hello Grace');
  } finally {
    await client.close();
  }
  await fx.close();
});

test('http: private results are cached per credential; a bad pinned version is corrected (-32022 at HTTP 400)', async () => {
  const fx = await start({ modern: { cache: { ttlMs: 60_000, scope: 'private' } } });
  const rec = recordingFetch();
  let token = 'alice';
  const transport = new StreamableHttpClientTransport({ url: fx.url, fetch: rec.fetch, headers: () => ({ authorization: `Bearer ${token}` }) });
  const client = new McpClient({ name: 'c', version: '1', era: 'modern', protocolVersion: '2099-01-01', onerror: () => {} });
  await client.connect(transport);
  try {
    assert.equal(client.protocolVersion, V);
    assert.deepEqual(
      rec.posts('server/discover').map((s) => s.headers['mcp-protocol-version']),
      ['2099-01-01', V],
    );
    const lists = () => rec.posts('tools/list').length;
    await client.listTools();
    await client.listTools();
    assert.equal(lists(), 1);
    token = 'bob';
    await client.listTools();
    assert.equal(lists(), 2, "another credential never sees alice's private entry");
    token = 'alice';
    await client.listTools();
    assert.equal(lists(), 2);
  } finally {
    await client.close();
  }
  await fx.close();
});

test('http: a modern error is surfaced as McpError, not as an HTTP failure', async () => {
  const fx = await start();
  const client = await connect(fx.url, { era: 'modern' });
  try {
    await assert.rejects(client.callTool('nope'), (e: unknown) => e instanceof McpError && e.code === -32602);
    await assert.rejects(client.request('no/such/method'), (e: unknown) => e instanceof McpError && e.code === -32601);
  } finally {
    await client.close();
  }
  await fx.close();
});
