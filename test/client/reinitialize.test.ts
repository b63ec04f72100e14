// McpClient re-initialization after session expiry, against OUR Streamable HTTP server (and a
// scripted one that refuses everything). Sessions exist only in the handshake era, so every
// client here pins it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReinitializeEvent } from '../../src/client/client.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { HttpStatusError, SessionExpiredError } from '../../src/transports/http/client/http-common.js';
import { rpcId, rpcMethod, startScriptedServer } from '../fixtures/http/scripted-server.js';
import { deleteSession, openClient, startOurServer, text } from './http-fixture.js';
import { ManualClock, waitFor } from '../support/index.js';

test('session DELETEd server-side: the next call re-initializes transparently and succeeds', async () => {
  const s = await startOurServer();
  const events: ReinitializeEvent[] = [];
  const { client, transport, errors } = await openClient(s.url, {}, { era: 'handshake', onreinitialize: (e) => events.push(e) });
  try {
    const old = transport.sessionId!;
    assert.equal(text(await client.callTool('echo', { text: 'before' })), 'before');
    await deleteSession(s.url, old);
    assert.equal(s.running.handler.streamable.sessionCount, 0);
    assert.equal(text(await client.callTool('echo', { text: 'after' })), 'after');
    assert.equal(s.inits(), 2, 'the server saw a second initialize');
    assert.equal(s.methods.filter((m) => m === 'notifications/initialized').length, 2);
    assert.equal(events.length, 1);
    assert.ok(events[0].cause instanceof SessionExpiredError && events[0].cause.sessionId === old);
    assert.equal(events[0].outcome.serverInfo.name, 'our-http');
    const fresh = transport.sessionId;
    assert.ok(fresh && fresh !== old, 'a new session id');
    assert.equal(s.running.handler.streamable.sessionCount, 1);
    assert.equal(client.sessionState, 'ready');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.ok(
      errors.every((e) => e instanceof SessionExpiredError || /standalone|SSE/.test(e.message)),
      errors.join('\n'),
    );
  } finally {
    await client.close();
    await s.close();
  }
});

test('expiry first noticed by the GET stream: the call fails locally, re-initializes, and succeeds', async () => {
  // A short retry: the standalone stream reconnects (and gets its 404) before the call is made.
  const s = await startOurServer({ retryMs: 10 });
  const wire: Array<{ method: string; session: string | null }> = [];
  const recording: typeof fetch = (input, init) => {
    wire.push({ method: init?.method ?? 'GET', session: new Headers(init?.headers).get('mcp-session-id') });
    return fetch(input, init);
  };
  const { client, transport } = await openClient(s.url, { fetch: recording }, { era: 'handshake' });
  try {
    const old = transport.sessionId!;
    await waitFor(() => s.methods.includes('notifications/initialized'));
    await deleteSession(s.url, old);
    await waitFor(() => transport.sessionId === undefined, 'the GET stream to see the 404');
    const before = s.methods.length;
    const posted = wire.filter((w) => w.method === 'POST').length;
    assert.equal(text(await client.callTool('echo', { text: 'x' })), 'x');
    assert.deepEqual(s.methods.slice(before), ['initialize', 'notifications/initialized', 'tools/call']);
    const posts = wire.filter((w) => w.method === 'POST').slice(posted);
    assert.equal(posts.length, 3, 'no doomed POST: the expired session is known locally');
    assert.equal(posts[0].session, null, 'initialize carries no session id');
    assert.ok(posts[1].session && posts[1].session !== old && posts[2].session === posts[1].session);
    // The standalone stream comes back on the new session.
    await waitFor(() => {
      const inner = s.running.handler.streamable as unknown as { sessions: Map<string, { transport: { standalone?: { connected: boolean } } }> };
      return inner.sessions.get(transport.sessionId!)?.transport.standalone?.connected === true;
    }, 'the GET stream on the new session');
  } finally {
    await client.close();
    await s.close();
  }
});

test('session idle expiry (sessionIdleMs) → the next call succeeds after re-initializing', async () => {
  // The server's idle clock is manual: the session expires when the test says, not when a
  // loaded machine happens to take longer than the idle time between two requests.
  const clock = new ManualClock();
  const s = await startOurServer({ sessionIdleMs: 150, clock });
  // An open GET stream keeps a session alive on our server; this client has none, so it idles.
  const { client, transport } = await openClient(s.url, { openGetStream: false }, { era: 'handshake' });
  try {
    const old = transport.sessionId!;
    assert.equal(s.running.handler.streamable.sessionCount, 1);
    clock.advance(1_000);
    await waitFor(() => s.running.handler.streamable.sessionCount === 0, 'the session to expire');
    assert.equal(text(await client.callTool('echo', { text: 'awake' })), 'awake');
    assert.equal(s.inits(), 2);
    assert.notEqual(transport.sessionId, old);
  } finally {
    await client.close();
    await s.close();
  }
});

test('reinitializeOnExpiry: false → the call rejects with SessionExpiredError, no new initialize', async () => {
  const s = await startOurServer();
  let reinits = 0;
  const { client, transport } = await openClient(
    s.url,
    { openGetStream: false },
    { era: 'handshake', reinitializeOnExpiry: false, onreinitialize: () => reinits++ },
  );
  try {
    const old = transport.sessionId!;
    await deleteSession(s.url, old);
    const err = await client.callTool('echo', { text: 'x' }).catch((e: unknown) => e);
    assert.ok(err instanceof SessionExpiredError, String(err));
    assert.equal(err.sessionId, old);
    assert.equal(s.inits(), 1);
    assert.equal(reinits, 0);
  } finally {
    await client.close();
    await s.close();
  }
});

test('concurrent calls failing together share one re-initialization', async () => {
  const s = await startOurServer();
  let reinits = 0;
  const { client, transport } = await openClient(s.url, { openGetStream: false }, { era: 'handshake', onreinitialize: () => reinits++ });
  try {
    await deleteSession(s.url, transport.sessionId!);
    const results = await Promise.all([1, 2, 3, 4].map((i) => client.callTool('echo', { text: `c${i}` })));
    assert.deepEqual(results.map(text), ['c1', 'c2', 'c3', 'c4']);
    assert.equal(s.inits(), 2);
    assert.equal(reinits, 1);
    assert.equal(s.running.handler.streamable.sessionCount, 1);
  } finally {
    await client.close();
    await s.close();
  }
});

test('no retry loop: a server that 404s everything after the first session → one re-initialization, then a clear error', async () => {
  let sessions = 0;
  const srv = await startScriptedServer((req, res) => {
    if (rpcMethod(req.body) === 'initialize' && sessions++ === 0) {
      const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
      return void res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'only-one' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: rpcId(req.body), result }));
    }
    if (rpcMethod(req.body) === 'notifications/initialized' && sessions === 1) return void res.writeHead(202).end();
    res.writeHead(404).end('gone');
  });
  const { client } = await openClient(srv.url, { openGetStream: false }, { era: 'handshake' });
  try {
    const posts = () => srv.requests.filter((r) => r.method === 'POST').map((r) => rpcMethod(r.body));
    assert.deepEqual(posts(), ['initialize', 'notifications/initialized']);
    const err = await client.callTool('x').catch((e: unknown) => e);
    assert.ok(err instanceof LocalError && err.kind === 'closed', String(err));
    assert.match(err.message, /session "only-one" expired and re-initializing failed: HTTP 404/);
    assert.ok(err.cause instanceof HttpStatusError && err.cause.status === 404);
    assert.deepEqual(posts(), ['initialize', 'notifications/initialized', 'tools/call', 'initialize'], 'exactly one re-initialization, no retry of the call');
    assert.equal(client.sessionState, 'expired');
    // The next call makes one fresh attempt of its own (the server might be back), no more.
    await assert.rejects(client.callTool('x'), /re-initializing failed/);
    assert.deepEqual(posts().slice(4), ['initialize']);
  } finally {
    await client.close();
    await srv.close();
  }
});
