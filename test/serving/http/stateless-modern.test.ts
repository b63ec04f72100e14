// A 2026-07-28 POST runs without connection machinery: no ServerSession, no engine, no session
// transport per request; its progress goes to its own response stream, a disconnect cancels it,
// and what the HTTP core knew (auth, address, era) reaches the handler. In process, with a
// minimal request view and responder, so that the disconnect is exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { StreamableHttpHandler } from '../../../src/serving/http/streamable.js';
import type { HttpRequestView, HttpResponder, StreamWriter } from '../../../src/serving/http/exchange.js';
import { meta, V } from '../../server/modern/helpers.js';

function view(headers: Record<string, string>, body: unknown): HttpRequestView {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  return { method: 'POST', path: '/mcp', query: '', remoteAddress: '203.0.113.7', header: (n) => h[n], readBody: () => Promise.resolve(JSON.stringify(body)) };
}

interface Recorded {
  status?: number;
  chunks: string[];
  ended: boolean;
  abort?: () => void;
  close?: () => void;
}

function responder(rec: Recorded): HttpResponder {
  return {
    send(status, _headers, body) {
      rec.status = status;
      if (body !== undefined) rec.chunks.push(body);
      rec.ended = true;
    },
    stream(status): StreamWriter {
      rec.status = status;
      const w: StreamWriter = {
        closed: false,
        write: (c) => (rec.chunks.push(c), !rec.ended),
        end: () => void (rec.ended = true),
        onClose: (l) => void (rec.close = l),
      };
      return w;
    },
    onAbort: (l) => void (rec.abort = l),
  };
}

test('2026-07-28 over HTTP: no session per request; progress on its stream; a disconnect cancels it', async () => {
  const mcp = new McpServer({ name: 'stateless', version: '1.0.0' });
  let seen: { sessions: number; era: string; principal?: string; address?: string } | undefined;
  let aborted!: () => void;
  const wasAborted = new Promise<void>((r) => (aborted = r));
  mcp.tool('watch', async (_a, ctx) => {
    seen = { sessions: mcp.server.sessions.size, era: ctx.era, principal: ctx.authInfo?.principal, address: ctx.remoteAddress };
    await ctx.progress(1, 2, 'half');
    await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
    aborted();
    return 'never sent';
  });
  const h = new StreamableHttpHandler(mcp, { authenticate: async () => ({ principal: 'ada' }), eventStore: false, keepAliveMs: 0 });
  const rec: Recorded = { chunks: [], ended: false };
  const body = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'watch', arguments: {}, _meta: meta({}, { progressToken: 'p' }) } };
  await h.handle(view({ 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'watch' }, body), responder(rec));
  for (let i = 0; i < 20 && rec.chunks.length === 0; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, { sessions: 0, era: 'modern', principal: 'ada', address: '203.0.113.7' });
  assert.equal(rec.status, 200);
  assert.equal(rec.chunks.length, 1, 'the progress notification, on an SSE stream');
  assert.match(rec.chunks[0], /"method":"notifications\/progress".*"progress":1/);
  assert.ok(rec.abort, 'the channel listens for a disconnect');
  rec.ended = true;
  rec.abort!();
  await wasAborted;
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.equal(rec.chunks.length, 1, 'a cancelled request is not answered');
  assert.equal(mcp.server.sessions.size, 0);
  await h.close();
});

test('2026-07-28 over HTTP: the answer carries the era decision made once (header and envelope disagree: -32020)', async () => {
  const mcp = new McpServer({ name: 'stateless', version: '1.0.0' });
  mcp.tool('era', (_a, ctx) => ctx.era);
  const h = new StreamableHttpHandler(mcp, { eventStore: false, keepAliveMs: 0 });
  const call = (headers: Record<string, string>, m: Record<string, unknown> | undefined) =>
    new Promise<Recorded>((resolve) => {
      const rec: Recorded = { chunks: [], ended: false };
      const params = { name: 'era', arguments: {}, ...(m ? { _meta: m } : {}) };
      void h.handle(view({ 'mcp-method': 'tools/call', 'mcp-name': 'era', ...headers }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params }), {
        ...responder(rec),
        send(status, _h, body) {
          rec.status = status;
          rec.chunks.push(body ?? '');
          resolve(rec);
        },
      });
    });
  const modern = await call({ 'mcp-protocol-version': V }, meta());
  assert.equal(modern.status, 200);
  assert.equal(JSON.parse(modern.chunks[0]).result.content[0].text, 'modern');
  // A handshake-era header with the modern envelope: the envelope decides the era; the header
  // check then reports the disagreement.
  const mixed = await call({ 'mcp-protocol-version': '2025-06-18' }, meta());
  assert.equal(mixed.status, 400);
  assert.equal(JSON.parse(mixed.chunks[0]).error.code, -32020);
  assert.equal(mcp.server.sessions.size, 0);
  await h.close();
});

test('2026-07-28 over HTTP: a response body under a modern version header is refused as this era refuses it', async () => {
  const mcp = new McpServer({ name: 'stateless', version: '1.0.0' });
  const h = new StreamableHttpHandler(mcp, { eventStore: false, keepAliveMs: 0 });
  const rec: Recorded = { chunks: [], ended: false };
  await h.handle(view({ 'mcp-protocol-version': V }, { jsonrpc: '2.0', id: 3, result: {} }), responder(rec));
  assert.equal(rec.status, 400);
  const body = JSON.parse(rec.chunks[0]);
  assert.equal(body.error.code, -32600);
  assert.match(body.error.message, /clients do not send responses in protocol version 2026-07-28/);
  await h.close();
});
