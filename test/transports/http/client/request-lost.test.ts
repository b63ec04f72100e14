// onrequestlost: a request whose answer can no longer arrive fails at once (LocalError 'closed'),
// not at its timeout. Scripted servers produce the broken streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient } from '../../../../src/client/client.js';
import { LocalError } from '../../../../src/jsonrpc/errors.js';
import type { RequestId } from '../../../../src/jsonrpc/messages.js';
import { HttpStatusError } from '../../../../src/transports/http/client/http-common.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from '../../../../src/transports/http/client/streamable.js';
import { rpcId, rpcMethod, sseHeaders, startScriptedServer, type Script } from '../../../fixtures/http/scripted-server.js';
import { ManualClock, sleep, waitFor, within } from '../../../support/index.js';

const initResult = (id: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });

/** Answers initialize with JSON and a session id, notifications with 202; tools/call goes to `call`. */
function server(call: Script, get: Script = (_req, res) => void res.writeHead(405).end()): Script {
  return (req, res) => {
    if (req.method === 'GET') return get(req, res);
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (rpcMethod(req.body) === 'initialize') {
      return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' }).end(initResult(rpcId(req.body)));
    }
    if (rpcMethod(req.body) === 'tools/call') return call(req, res);
    res.writeHead(202).end();
  };
}

async function client(url: string, extra: Partial<StreamableHttpClientTransportOptions> = {}) {
  const errors: Error[] = [];
  const transport = new StreamableHttpClientTransport({ url, openGetStream: false, ...extra });
  // The request timeout runs on a clock that never moves: a call that fails did so because its
  // request was lost (or refused), never because it timed out, however slow the machine.
  const c = new McpClient({ name: 'lost', version: '1', requestTimeoutMs: 20_000, clock: new ManualClock(), onerror: (e) => errors.push(e) });
  await c.connect(transport);
  return { c, errors, transport };
}

/** The call's rejection (with the safety net: the client's own timeout can never fire). */
async function failure(p: Promise<unknown>): Promise<unknown> {
  return within(
    p.then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    ),
    "the call's rejection",
  );
}

function assertLost(err: unknown, pattern: RegExp): void {
  assert.ok(err instanceof LocalError, String(err));
  assert.equal(err.kind, 'closed');
  assert.match(err.message, /Request "tools\/call" was lost/);
  assert.match(err.message, pattern);
}

const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: 1 } });

test('a POST stream that drops without event ids: the call fails at once with LocalError closed', async () => {
  const srv = await startScriptedServer(
    server((_req, res) => {
      res.writeHead(200, sseHeaders);
      res.end(`event: message\ndata: ${progress}\n\n`);
    }),
  );
  const { c, errors } = await client(srv.url);
  try {
    const err = await failure(c.callTool('x'));
    assertLost(err, /no event ids/);
    assert.ok(
      errors.some((e) => /cannot be resumed: the server sent no event ids/.test(e.message)),
      'onerror told too',
    );
    assert.ok(!srv.requests.some((r) => r.method === 'GET'), 'no resume attempted');
    // The connection is still usable.
    assert.equal(c.connected, true);
  } finally {
    await c.close();
    await srv.close();
  }
});

test('a POST stream cut by the network mid-way, without event ids, is lost too', async () => {
  const srv = await startScriptedServer(
    server((_req, res) => {
      res.writeHead(200, sseHeaders);
      res.write(`data: ${progress}\n\n`);
      setTimeout(() => res.destroy(), 20);
    }),
  );
  const { c } = await client(srv.url);
  try {
    const err = await failure(c.callTool('x'));
    assertLost(err, /ended before the response arrived/);
  } finally {
    await c.close();
    await srv.close();
  }
});

test('resume GET answered 405: lost', async () => {
  const srv = await startScriptedServer(server((_req, res) => void res.writeHead(200, sseHeaders).end('id: e1\nretry: 5\ndata: \n\n')));
  const { c } = await client(srv.url);
  try {
    const err = await failure(c.callTool('x'));
    assertLost(err, /does not allow GET \(405\)/);
    assert.equal(srv.requests.filter((r) => r.method === 'GET').length, 1);
  } finally {
    await c.close();
    await srv.close();
  }
});

test('resume GET answered 404 (session gone): lost, and the session is forgotten', async () => {
  const srv = await startScriptedServer(
    server(
      (_req, res) => void res.writeHead(200, sseHeaders).end('id: e1\nretry: 5\ndata: \n\n'),
      (_req, res) => void res.writeHead(404).end(),
    ),
  );
  const { c, transport } = await client(srv.url);
  try {
    const err = await failure(c.callTool('x'));
    assertLost(err, /has expired or was terminated/);
    assert.equal(transport.sessionId, undefined);
  } finally {
    await c.close();
    await srv.close();
  }
});

test('resume retries exhausted: lost after maxRetries GETs', async () => {
  const srv = await startScriptedServer(
    server(
      (_req, res) => void res.writeHead(200, sseHeaders).end('id: e1\nretry: 5\ndata: \n\n'),
      (_req, res) => void res.writeHead(503).end('busy'),
    ),
  );
  const { c } = await client(srv.url, { reconnect: { maxRetries: 2 } });
  try {
    const err = await failure(c.callTool('x'));
    assertLost(err, /Gave up resuming .* after 2 attempts/);
    assert.equal(srv.requests.filter((r) => r.method === 'GET').length, 2);
  } finally {
    await c.close();
    await srv.close();
  }
});

test('POST HTTP errors: send() rejects with the exact error; onrequestlost backs it up, except for initialize and delivered errors', async () => {
  const rpcErr = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad params' } });
  let initStatus = 400;
  const srv = await startScriptedServer((req, res) => {
    const m = rpcMethod(req.body);
    if (m === 'initialize' && initStatus === 400) return void res.writeHead(400).end('no');
    if (m === 'initialize') return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' }).end(initResult(rpcId(req.body)));
    if (m === 'ping') return void res.writeHead(422, { 'content-type': 'application/json' }).end(rpcErr(rpcId(req.body)));
    res.writeHead(500).end('boom');
  });
  const t = new StreamableHttpClientTransport({ url: srv.url, openGetStream: false });
  const lost: Array<[RequestId, Error]> = [];
  t.onrequestlost = (id, e) => lost.push([id, e]);
  const frames: unknown[] = [];
  t.onmessage = (f) => frames.push(f);
  // The transport reports a lost request from a setTimeout(0) armed before the send rejects;
  // a timer armed after it fires after it (timers of one duration run in order), so a report
  // that is coming has come by then, whatever the machine's speed.
  const tick = () => sleep(0);
  try {
    await t.start();
    const init = {
      jsonrpc: '2.0' as const,
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    };
    await assert.rejects(t.send(init), (e: unknown) => e instanceof HttpStatusError && e.status === 400);
    await tick();
    assert.deepEqual(lost, [], 'the initialize POST is never reported lost (connectHttp falls back on it)');
    initStatus = 200;
    await t.send({ ...init, id: 1 });
    await assert.rejects(
      t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } }),
      (e: unknown) => e instanceof HttpStatusError && e.status === 500,
    );
    await waitFor(() => lost.length > 0, 'the lost request report');
    await tick();
    assert.equal(lost.length, 1);
    const [id, error] = lost[0] as [RequestId, Error];
    assert.equal(id, 2);
    assert.ok(error instanceof HttpStatusError && error.status === 500);
    // A JSON-RPC error in the body answers the request: delivered, not lost.
    await assert.rejects(t.send({ jsonrpc: '2.0', id: 3, method: 'ping' }), (e: unknown) => e instanceof HttpStatusError && e.status === 422);
    await tick();
    assert.equal(lost.length, 1);
    assert.equal(frames.length, 2);
  } finally {
    await t.close();
    await srv.close();
  }
});

test('through McpClient, a POST HTTP error rejects the call with the HttpStatusError itself', async () => {
  const srv = await startScriptedServer(server((_req, res) => void res.writeHead(500).end('boom')));
  const { c } = await client(srv.url);
  try {
    const err = await failure(c.callTool('x'));
    assert.ok(err instanceof HttpStatusError && err.status === 500, String(err));
  } finally {
    await c.close();
    await srv.close();
  }
});
