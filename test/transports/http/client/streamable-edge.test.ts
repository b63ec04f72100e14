// StreamableHttpClientTransport against scripted servers: the wire cases official servers rarely produce.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpStatusError, SessionExpiredError } from '../../../../src/transports/http/client/http-common.js';
import { StreamableHttpClientTransport } from '../../../../src/transports/http/client/streamable.js';
import type { JsonRpcMessage } from '../../../../src/jsonrpc/messages.js';
import { rpcId, rpcMethod, sseHeaders, startScriptedServer, type Script } from '../../../fixtures/http/scripted-server.js';
import { flush, waitFor, WatchedClock } from '../../../support/index.js';

const INIT: JsonRpcMessage = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const INITIALIZED: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };
const initResult = (id: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } });

/** Answers initialize with JSON and a session id; everything else goes to `rest`. */
function withInit(rest: Script): Script {
  return (req, res) => {
    if (rpcMethod(req.body) === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' }).end(initResult(rpcId(req.body)));
      return;
    }
    return rest(req, res);
  };
}

function capture(t: StreamableHttpClientTransport) {
  const frames: unknown[] = [];
  const errors: Error[] = [];
  t.onmessage = (f) => frames.push(typeof f === 'string' ? JSON.parse(f) : f);
  t.onerror = (e) => errors.push(e);
  return { frames, errors };
}

// A deadline of its own (it had 2 s) would bet on the machine's speed: the shared safety net.
const until = (cond: () => boolean) => waitFor(cond, 'the condition');

test('JSON bodies (object and batch array) are delivered whole; 202 delivers nothing; headers follow the handshake', async () => {
  const srv = await startScriptedServer(
    withInit((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(405).end();
      if (rpcMethod(req.body) === undefined && Array.isArray(req.body)) {
        return void res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(
          JSON.stringify([
            { jsonrpc: '2.0', id: 5, result: {} },
            { jsonrpc: '2.0', id: 6, result: {} },
          ]),
        );
      }
      res.writeHead(202).end();
    }),
  );
  const t = new StreamableHttpClientTransport({ url: srv.url, openGetStream: false, headers: async () => ({ 'x-token': 'abc', accept: 'overridden?' }) });
  const { frames, errors } = capture(t);
  await t.start();
  await t.send(INIT);
  assert.equal(t.sessionId, 'sess-1');
  assert.equal(t.protocolVersion, '2025-06-18');
  await t.send(INITIALIZED);
  await t.send([
    { jsonrpc: '2.0', id: 5, method: 'ping' },
    { jsonrpc: '2.0', id: 6, method: 'ping' },
  ]);
  assert.equal(frames.length, 2);
  assert.ok(Array.isArray(frames[1]));
  const [init, initialized] = srv.requests;
  assert.equal(init.headers['mcp-session-id'], undefined);
  assert.equal(init.headers['x-token'], 'abc');
  assert.equal(init.headers.accept, 'application/json, text/event-stream', 'protocol headers win over user ones');
  assert.equal(initialized.headers['mcp-session-id'], 'sess-1');
  assert.equal(initialized.headers['mcp-protocol-version'], '2025-06-18');
  await t.close();
  assert.equal(srv.requests.at(-1)!.method, 'DELETE', 'DELETE sent (its 405 ignored)');
  assert.deepEqual(errors, []);
  await srv.close();
});

test('HTTP errors: status and body kept; a JSON-RPC error with an id is delivered too (not for initialize)', async () => {
  const rpcErr = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad params' } });
  const srv = await startScriptedServer((req, res) => {
    if (rpcMethod(req.body) === 'initialize' && srv.requests.length === 1)
      return void res.writeHead(400, { 'content-type': 'application/json' }).end(rpcErr(rpcId(req.body)));
    if (rpcMethod(req.body) === 'initialize') return void res.writeHead(200, { 'content-type': 'application/json' }).end(initResult(rpcId(req.body)));
    if (rpcMethod(req.body) === 'tools/call') return void res.writeHead(422, { 'content-type': 'application/json' }).end(rpcErr(rpcId(req.body)));
    if (rpcMethod(req.body) === 'ping') return void res.writeHead(404).end('no such thing');
    res.writeHead(500).end('boom');
  });
  const t = new StreamableHttpClientTransport({ url: srv.url, openGetStream: false });
  const { frames, errors } = capture(t);
  await t.start();
  const e1 = await t.send(INIT).catch((e: unknown) => e);
  assert.ok(e1 instanceof HttpStatusError);
  assert.equal(e1.status, 400);
  assert.deepEqual((e1.json as { error: unknown }).error, { code: -32602, message: 'bad params' });
  assert.equal(frames.length, 0, 'the initialize error is not delivered');
  await t.send(INIT);
  assert.equal(t.sessionId, undefined, 'no session when the server assigns none');
  const e2 = await t.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } }).catch((e: unknown) => e);
  assert.ok(e2 instanceof HttpStatusError && e2.status === 422);
  assert.deepEqual(frames.at(-1), { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad params' } });
  const e3 = await t.send({ jsonrpc: '2.0', id: 8, method: 'ping' }).catch((e: unknown) => e);
  assert.ok(e3 instanceof HttpStatusError && !(e3 instanceof SessionExpiredError), '404 without a session is not an expiry');
  assert.equal(e3.body, 'no such thing');
  assert.match(e3.message, /HTTP 404 .*POST .*no such thing/);
  assert.deepEqual(errors, []);
  await t.close();
  assert.ok(!srv.requests.some((r) => r.method === 'DELETE'), 'no DELETE without a session');
  await srv.close();
});

test('an SSE answer without event ids that ends early cannot be resumed: onerror explains', async () => {
  const srv = await startScriptedServer(
    withInit((req, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      if (rpcMethod(req.body) === 'tools/call') {
        res.writeHead(200, sseHeaders);
        res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`);
        return;
      }
      res.writeHead(202).end();
    }),
  );
  const t = new StreamableHttpClientTransport({ url: srv.url, reconnect: { initialDelayMs: 5 } });
  const { frames, errors } = capture(t);
  await t.start();
  await t.send(INIT);
  await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
  await until(() => errors.length > 0);
  assert.match(errors[0].message, /request 1 ended before the response arrived.*cannot be resumed/);
  assert.equal(frames.length, 2);
  assert.ok(!srv.requests.some((r) => r.method === 'GET'));
  await t.close();
  await srv.close();
});

test('resuming gives up after maxRetries failed GETs, with backoff, and says so', async () => {
  const clock = new WatchedClock();
  const t0 = clock.now();
  const gets: number[] = [];
  const srv = await startScriptedServer(
    withInit((req, res) => {
      if (req.method === 'GET') {
        gets.push(clock.now() - t0);
        return void res.writeHead(503).end('busy');
      }
      if (rpcMethod(req.body) === 'tools/call') return void res.writeHead(200, sseHeaders).end('id: e1\nretry: 20\ndata: \n\n');
      res.writeHead(202).end();
    }),
  );
  const t = new StreamableHttpClientTransport({ url: srv.url, openGetStream: false, reconnect: { maxRetries: 3 }, clock });
  const { errors } = capture(t);
  await t.start();
  await t.send(INIT);
  await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
  // Time moves only to each reconnection delay's end, once the transport waits on it.
  for (;;) {
    const due = await waitFor(() => (errors.length > 0 ? 'gave up' : clock.nextDue()), 'a reconnection delay or giving up');
    if (due === 'gave up') break;
    clock.set(due);
  }
  assert.match(errors[0].message, /Gave up resuming .*request 1 after 3 attempts.*503/);
  // Delays 20, 40, 80 ms (the server's retry, doubled each time): the GETs at 20, 60, 140.
  assert.deepEqual(clock.armed, [20, 40, 80]);
  assert.deepEqual(gets, [20, 60, 140]);
  for (const r of srv.requests.filter((x) => x.method === 'GET')) assert.equal(r.headers['last-event-id'], 'e1');
  await t.close();
  await srv.close();
});

test('the standalone GET stream reconnects with Last-Event-ID when the server drops it', async () => {
  let n = 0;
  const srv = await startScriptedServer(
    withInit((req, res) => {
      if (req.method === 'GET') {
        n++;
        res.writeHead(200, sseHeaders);
        const note = (i: number) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: i } });
        if (n === 1) return void res.end(`: keepalive\n\nid: g1\nretry: 10\nevent: message\ndata: ${note(1)}\n\n`);
        res.write(`id: g2\ndata: ${note(2)}\n\n`);
        return;
      }
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      res.writeHead(202).end();
    }),
  );
  const t = new StreamableHttpClientTransport({ url: srv.url });
  const { frames, errors } = capture(t);
  await t.start();
  await t.send(INIT);
  await t.send(INITIALIZED);
  await until(() => frames.length === 3);
  const gets = srv.requests.filter((r) => r.method === 'GET');
  assert.equal(gets.length, 2);
  assert.equal(gets[0].headers['last-event-id'], undefined);
  assert.equal(gets[0].headers.accept, 'text/event-stream');
  assert.equal(gets[0].headers['mcp-session-id'], 'sess-1');
  assert.equal(gets[1].headers['last-event-id'], 'g1');
  await t.close();
  assert.deepEqual(errors, []);
  await srv.close();
});

test('a 404 on the standalone stream is a session expiry; unexpected content types are refused', async () => {
  const srv = await startScriptedServer(
    withInit((req, res) => {
      if (req.method === 'GET') return void res.writeHead(404).end();
      if (rpcMethod(req.body) === 'ping') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
      res.writeHead(202).end();
    }),
  );
  const t = new StreamableHttpClientTransport({ url: srv.url });
  const { errors } = capture(t);
  await t.start();
  await t.send(INIT);
  await t.send(INITIALIZED);
  await until(() => errors.length > 0);
  assert.ok(errors[0] instanceof SessionExpiredError);
  assert.equal(t.sessionId, undefined);
  // Until a new initialize, sends fail at once: without a session id they could only be refused.
  const posts = srv.requests.length;
  const expired = await t.send({ jsonrpc: '2.0', id: 2, method: 'ping' }).catch((e: unknown) => e);
  assert.ok(expired instanceof SessionExpiredError && expired.sessionId === 'sess-1', String(expired));
  assert.match(expired.message, /answered 404 earlier.*not sent/);
  assert.equal(srv.requests.length, posts, 'nothing sent');
  await t.send(INIT);
  assert.equal(t.sessionId, 'sess-1');
  await assert.rejects(t.send({ jsonrpc: '2.0', id: 3, method: 'ping' }), /unexpected content type "text\/html"/);
  let closes = 0;
  t.onclose = () => closes++;
  await Promise.all([t.close(), t.close()]);
  assert.equal(closes, 1);
  await srv.close();
});

test('no resume for a request that was cancelled, or answered on another stream, meanwhile', async () => {
  const srv = await startScriptedServer(
    withInit((req, res) => {
      if (req.method === 'GET') {
        // The standalone stream carries the answer to request 2 (as after a server-side re-route).
        res.writeHead(200, sseHeaders);
        return void res.write(`id: g1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} })}\n\n`);
      }
      if (rpcMethod(req.body) === 'tools/call') return void res.writeHead(200, sseHeaders).end('id: p1\nretry: 80\ndata: \n\n');
      res.writeHead(202).end();
    }),
  );
  const clock = new WatchedClock();
  const t = new StreamableHttpClientTransport({ url: srv.url, clock });
  const { frames, errors } = capture(t);
  await t.start();
  await t.send(INIT);
  await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
  await t.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  await t.send(INITIALIZED);
  await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'y' } });
  await until(() => frames.length === 2);
  // Every resume starts with the server's `retry` (80 ms) on the transport's clock: none was armed.
  await flush();
  assert.deepEqual(clock.armed, [], 'no resume scheduled');
  const resumes = srv.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined);
  assert.deepEqual(resumes, [], 'nothing left to resume');
  assert.deepEqual(errors, []);
  await t.close();
  await srv.close();
});
