// Our StreamableHttpClientTransport + McpClient against the OFFICIAL SDK's Streamable HTTP server.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient, type ClientOptions } from '../../../../src/client/client.js';
import { HttpStatusError, SessionExpiredError } from '../../../../src/transports/http/client/http-common.js';
import { StreamableHttpClientTransport } from '../../../../src/transports/http/client/streamable.js';
import type { StreamableHttpClientTransportOptions } from '../../../../src/transports/http/client/streamable.js';
import { startStreamableServer, type StreamableFixture } from '../../../fixtures/http/official-servers.js';
import { waitFor, WatchedClock } from '../../../support/index.js';

const firstText = (r: { content: Array<{ type: string; text?: string }> }) => r.content[0]?.text;

async function open(url: string, extra: Partial<StreamableHttpClientTransportOptions> = {}, clientOptions: Partial<ClientOptions> = {}) {
  const errors: Error[] = [];
  const transport = new StreamableHttpClientTransport({ url, reconnect: { initialDelayMs: 10 }, ...extra });
  const client = new McpClient({ name: 'mcpkit-http-test', version: '0.0.1', onerror: (e) => errors.push(e), ...clientOptions });
  await client.connect(transport);
  return { client, transport, errors };
}

let sse: StreamableFixture;
let json: StreamableFixture;
before(async () => {
  [sse, json] = await Promise.all([startStreamableServer(), startStreamableServer({ enableJsonResponse: true })]);
});
after(async () => {
  await Promise.all([sse.close(), json.close()]);
});

test('SSE responses: handshake, headers on every request, tool calls', async () => {
  const { client, transport, errors } = await open(sse.url, { headers: () => ({ authorization: 'Bearer t0k' }) });
  try {
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal(client.serverInfo?.name, 'official-http-fixture');
    assert.equal(transport.protocolVersion, '2025-11-25');
    const sid = transport.sessionId;
    assert.ok(sid && sse.sessions.has(sid), 'session id learned from the initialize response');
    assert.equal(firstText(await client.callTool('echo', { message: 'héllo' })), 'héllo');
    const posts = sse.seen.filter((r) => r.method === 'POST' && (r.sessionId === sid || r.rpc === 'initialize'));
    const init = posts.find((r) => r.rpc === 'initialize')!;
    assert.equal(init.sessionId, undefined);
    assert.equal(init.protocolVersion, undefined);
    assert.equal(init.accept, 'application/json, text/event-stream');
    assert.equal(init.contentType, 'application/json');
    for (const r of posts.filter((p) => p.rpc !== 'initialize')) {
      assert.equal(r.sessionId, sid);
      assert.equal(r.protocolVersion, '2025-11-25');
      assert.equal(r.authorization, 'Bearer t0k');
    }
    assert.ok(posts.some((p) => p.rpc === 'notifications/initialized'));
    assert.ok(posts.some((p) => p.rpc === 'tools/call'));
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
  }
});

test('SSE responses: progress notifications reach onprogress before the result', async () => {
  const { client } = await open(sse.url);
  try {
    const progress: number[] = [];
    const r = await client.callTool('count', { n: 5 }, { onprogress: (p) => progress.push(p.progress) });
    assert.equal(firstText(r), 'counted to 5');
    assert.deepEqual(progress, [1, 2, 3, 4, 5]);
  } finally {
    await client.close();
  }
});

test('JSON responses (enableJsonResponse): calls, lists, errors', async () => {
  const { client, transport } = await open(json.url);
  try {
    assert.ok(transport.sessionId);
    assert.equal(firstText(await client.callTool('echo', { message: 'json' })), 'json');
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'count'));
    // Progress is not carried in JSON mode, but the call still completes.
    assert.equal(firstText(await client.callTool('count', { n: 2 }, { onprogress: () => {} })), 'counted to 2');
    await assert.rejects(client.request('nope/method' as 'ping'), /not found/i);
  } finally {
    await client.close();
  }
});

test('standalone GET stream delivers server-initiated notifications (tools/list_changed)', async () => {
  const before = sse.seen.length;
  const { client, transport } = await open(sse.url);
  try {
    const gotIt = new Promise<void>((resolve) => client.on('notifications/tools/list_changed', () => resolve()));
    await sse.waitForGets(transport.sessionId!);
    const get = sse.seen.slice(before).find((r) => r.method === 'GET')!;
    assert.equal(get.accept, 'text/event-stream');
    assert.equal(get.protocolVersion, '2025-11-25');
    sse.addTool(`late_${Date.now()}`);
    await gotIt;
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name.startsWith('late_')));
  } finally {
    await client.close();
  }
});

test('close() aborts the streams and DELETEs the session; onclose fires once', async () => {
  const { client, transport } = await open(sse.url);
  const sid = transport.sessionId!;
  let closes = 0;
  client.onClose(() => closes++);
  await client.close();
  await transport.close();
  assert.ok(sse.deleted.includes(sid), 'server saw DELETE with the session id');
  await waitFor(() => !sse.sessions.has(sid));
  assert.equal(closes, 1);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'ping', id: 99 }), /closed/);
});

test('a 404 for a session the server ended → SessionExpiredError (reinitializeOnExpiry: false), session forgotten, onerror told', async () => {
  const { client, transport, errors } = await open(json.url, { openGetStream: false }, { reinitializeOnExpiry: false });
  try {
    const sid = transport.sessionId!;
    await json.endSession(sid);
    const err = await client.callTool('echo', { message: 'x' }).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof SessionExpiredError, String(err));
    assert.ok(err instanceof HttpStatusError);
    assert.equal(err.status, 404);
    assert.equal(err.sessionId, sid);
    assert.match(err.message, /re-initialize/);
    assert.equal(transport.sessionId, undefined);
    assert.ok(errors.some((e) => e instanceof SessionExpiredError));
  } finally {
    await client.close();
  }
});

test('by default, a session the official server ended is replaced transparently (one re-initialize)', async () => {
  const reinits: string[] = [];
  const { client, transport, errors } = await open(json.url, { openGetStream: false }, { onreinitialize: (e) => reinits.push(e.cause.sessionId) });
  try {
    const sid = transport.sessionId!;
    await json.endSession(sid);
    assert.equal(firstText(await client.callTool('echo', { message: 'again' })), 'again');
    assert.deepEqual(reinits, [sid]);
    assert.ok(transport.sessionId && transport.sessionId !== sid && json.sessions.has(transport.sessionId));
    assert.equal(client.sessionState, 'ready');
    assert.ok(
      errors.some((e) => e instanceof SessionExpiredError),
      'the expiry is still reported to onerror',
    );
  } finally {
    await client.close();
  }
});

test('a server without a standalone stream (GET → 405) is fine: one GET, no errors', async () => {
  const fx = await startStreamableServer({ noGetStream: true });
  try {
    const { client, errors } = await open(fx.url);
    assert.equal(firstText(await client.callTool('echo', { message: 'a' })), 'a');
    await waitFor(() => fx.seen.some((r) => r.method === 'GET'));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(fx.seen.filter((r) => r.method === 'GET').length, 1);
    await client.close();
    assert.deepEqual(errors, []);
  } finally {
    await fx.close();
  }
});

/**
 * A fetch that lets the first tools/call response stream through up to its priming event, then
 * drops the connection, as a flaky network would.
 */
function droppingFetch(): { fetch: typeof fetch; dropped: () => boolean } {
  let dropped = false;
  const wrapped: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const isCall = init?.method === 'POST' && typeof init.body === 'string' && init.body.includes('"tools/call"');
    if (dropped || !isCall || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    dropped = true;
    const reader = res.body.getReader();
    let seen = '';
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const r = await reader.read();
        if (r.done) return controller.close();
        controller.enqueue(r.value);
        seen += new TextDecoder().decode(r.value);
        if (/\n\n/.test(seen)) {
          await reader.cancel();
          controller.error(new TypeError('terminated: simulated network drop'));
        }
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: wrapped, dropped: () => dropped };
}

test('resumability: a dropped POST stream is resumed with GET + Last-Event-ID (InMemoryEventStore)', async () => {
  const fx = await startStreamableServer({ resumable: true, retryInterval: 20 });
  try {
    const drop = droppingFetch();
    const { client, transport, errors } = await open(fx.url, { fetch: drop.fetch, openGetStream: false });
    const r = await client.callTool('wait', { ms: 150 });
    assert.equal(firstText(r), 'waited 150');
    assert.ok(drop.dropped());
    const resume = fx.seen.find((s) => s.method === 'GET' && s.lastEventId !== undefined);
    assert.ok(resume, 'a GET with Last-Event-ID was made');
    assert.equal(resume.sessionId, transport.sessionId);
    assert.equal(resume.accept, 'text/event-stream');
    // The client still works afterwards.
    assert.equal(firstText(await client.callTool('echo', { message: 'after' })), 'after');
    await client.close();
    assert.deepEqual(errors, []);
  } finally {
    await fx.close();
  }
});

test('polling: the server closes the stream after the priming event; the client waits `retry` and resumes', async () => {
  const fx = await startStreamableServer({ resumable: true, retryInterval: 60 });
  try {
    const clock = new WatchedClock();
    const { client, transport, errors } = await open(fx.url, { clock });
    const progress: number[] = [];
    const call = client.callTool('poll', { ms: 100 }, { onprogress: (p) => progress.push(p.progress) });
    const resumed = () => fx.seen.filter((s) => s.method === 'GET' && s.lastEventId !== undefined);
    // The stream closes after its priming event: the client waits the server's retry on its clock.
    const due = await waitFor(() => clock.nextDue(), 'the wait before resuming');
    assert.deepEqual(clock.armed, [60], "the server's retry");
    assert.equal(resumed().length, 0, 'no resume before the wait is over');
    clock.set(due);
    assert.equal(firstText(await call), 'polled 100');
    assert.ok(resumed().length >= 1, 'resumed with Last-Event-ID');
    // Server-initiated messages still flow on the standalone stream while resuming requests.
    const gotIt = new Promise<void>((resolve) => client.on('notifications/tools/list_changed', () => resolve()));
    await fx.waitForGets(transport.sessionId!);
    fx.addTool('late');
    await gotIt;
    await client.close();
    assert.deepEqual(errors, []);
  } finally {
    await fx.close();
  }
});
