// connect() to a URL, against OUR server: Streamable HTTP at /mcp, the HTTP+SSE fallback at
// /sse on the same port, and API-key authentication.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { apiKeyGuard } from '../../src/serving/http/security.js';
import { HttpStatusError } from '../../src/transports/http/client/http-common.js';
import { startOurServer, text } from './http-fixture.js';

/** A fetch that notes every request's method and path (query included). */
function recordingFetch(): { fetch: typeof fetch; seen: string[] } {
  const seen: string[] = [];
  const wrapped: typeof fetch = (input, init) => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    seen.push(`${init?.method ?? 'GET'} ${u.pathname}${u.search}`);
    return fetch(input, init);
  };
  return { fetch: wrapped, seen };
}

test('connect(url) to /mcp speaks Streamable HTTP, in the 2026-07-28 era by default', async () => {
  const s = await startOurServer();
  const rec = recordingFetch();
  const client = await connect({ url: s.url, fetch: rec.fetch }, { name: 'auto', version: '1' });
  try {
    assert.equal(client.era, 'modern');
    assert.equal(client.serverInfo?.name, 'our-http');
    assert.equal(client.clientInfo.name, 'auto');
    assert.equal(client.protocolVersion, '2026-07-28');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'echo'));
    assert.equal(text(await client.callTool('echo', { text: 'modern' })), 'modern');
    // The probe's DiscoverResult was adopted: no second server/discover, and never initialize.
    assert.deepEqual(s.methods, ['server/discover', 'tools/list', 'tools/call']);
    assert.deepEqual(rec.seen, ['POST /mcp', 'POST /mcp', 'POST /mcp']);
    assert.equal(s.running.handler.streamable.sessionCount, 0, 'no session in this era');
    assert.equal(s.running.handler.legacy?.connectionCount, 0);
  } finally {
    await client.close();
  }
  assert.ok(!rec.seen.includes('DELETE /mcp'), 'no session to DELETE');
  await s.close();
});

test('connect(url, { era: "handshake" }) to /mcp: initialize, a session, DELETE on close', async () => {
  const s = await startOurServer();
  const client = await connect(s.url, { name: 'pinned', version: '1', era: 'handshake' });
  try {
    assert.equal(client.era, 'handshake');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal(text(await client.callTool('echo', { text: 'handshake' })), 'handshake');
    assert.deepEqual(s.methods.slice(0, 2), ['initialize', 'notifications/initialized']);
    assert.ok(!s.methods.includes('server/discover'), 'no probe when the era is pinned');
    assert.equal(s.running.handler.streamable.sessionCount, 1);
  } finally {
    await client.close();
  }
  // close() ended the session with DELETE.
  assert.equal(s.running.handler.streamable.sessionCount, 0);
  await s.close();
});

test('connect(.../sse): the probe and the initialize POST are refused (405), so it falls back to HTTP+SSE on the same port', async () => {
  const s = await startOurServer();
  const rec = recordingFetch();
  const client = await connect({ url: s.url.replace('/mcp', '/sse'), fetch: rec.fetch });
  try {
    assert.equal(rec.seen[0], 'POST /sse', 'the server/discover probe first');
    assert.equal(rec.seen[1], 'POST /sse', 'then Streamable HTTP initialize');
    assert.equal(rec.seen[2], 'GET /sse', 'then the legacy event stream');
    assert.equal(client.era, 'handshake');
    assert.equal(s.running.handler.streamable.sessionCount, 0, 'no Streamable HTTP session');
    assert.equal(s.running.handler.legacy?.connectionCount, 1);
    const before = rec.seen.length;
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'echo'));
    // tools/list went to the legacy POST endpoint named by the `endpoint` event.
    const posted = rec.seen.slice(before);
    assert.equal(posted.length, 1);
    assert.match(posted[0], /^POST \/messages\?sessionId=[\w-]+$/);
    assert.equal(text(await client.callTool('echo', { text: 'legacy' })), 'legacy');
    assert.equal(client.protocolVersion, '2025-11-25');
  } finally {
    await client.close();
    await s.close();
  }
});

test('connect({ url, headers }) with an API key; without it, HttpStatusError 401 and no fallback', async () => {
  const s = await startOurServer({ authenticate: apiKeyGuard({ keys: ['k'] }) });
  try {
    const client = await connect({ url: s.url, headers: { 'x-api-key': 'k' } });
    assert.equal(text(await client.callTool('echo', { text: 'authed' })), 'authed');
    await client.close();

    const rec = recordingFetch();
    const err = await connect({ url: s.url, fetch: rec.fetch }).catch((e: unknown) => e);
    assert.ok(err instanceof HttpStatusError, String(err));
    assert.equal(err.status, 401);
    assert.equal(err.headers.get('www-authenticate'), 'Bearer');
    assert.match(err.message, /^HTTP 401 Unauthorized from POST \S+: a valid API key or bearer token is required$/);
    assert.deepEqual(rec.seen, ['POST /mcp'], '401 is not a reason to try HTTP+SSE');

    const wrong = await connect({ url: s.url, headers: { 'x-api-key': 'nope' } }).catch((e: unknown) => e);
    assert.ok(wrong instanceof HttpStatusError && wrong.status === 401);
    assert.equal(s.running.handler.streamable.sessionCount, 0);
  } finally {
    await s.close();
  }
});
