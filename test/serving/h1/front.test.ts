// serve()'s fast HTTP/1.1 front (src/serving/h1), written as the attacks on it. The front reads
// only plain POSTs to the endpoint and hands any other request, from its first byte, to node:http.
// Each odd or hostile request below (request smuggling with Content-Length and Transfer-Encoding,
// bare line ends, folded or duplicated headers, oversized heads...) is sent byte for byte to a
// server with the front and to one without it (node:http alone): both must answer the same
// statuses and run the same calls, and a call hidden in a body must never run.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve, type RunningServer, type ServeOptions } from '../../../src/serving/node.js';
import { meta } from '../../server/modern/helpers.js';
import { deferred, modernToolCallHeaders, trickle, within } from '../../support/index.js';

const VERSION = '2025-11-25';

interface Rig {
  running: RunningServer;
  calls: string[];
}

const rigs: Rig[] = [];
after(() => Promise.all(rigs.map((r) => r.running.close())));

async function rig(fastFront: boolean, options: ServeOptions = {}): Promise<Rig> {
  const mcp = new McpServer({ name: 'h1', version: '1' });
  const calls: string[] = [];
  mcp.tool('record', { input: { tag: z.string() } }, ({ tag }) => {
    calls.push(tag);
    return tag;
  });
  const running = await serve(mcp, { port: 0, stateful: false, responseMode: 'json', fastFront, ...options });
  const r = { running, calls };
  rigs.push(r);
  return r;
}

/** A tools/call of `record` as a JSON body. */
function call(tag: string, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'record', arguments: { tag } } });
}

const HEADERS = ['Host: 127.0.0.1', 'Content-Type: application/json', 'Accept: application/json, text/event-stream', `MCP-Protocol-Version: ${VERSION}`];

/** A request, CRLF line ends unless `eol` says otherwise; Content-Length added unless `headers` frame the body. */
function request(body: string, o: { headers?: string[]; close?: boolean; line?: string; eol?: string; noLength?: boolean } = {}): string {
  const eol = o.eol ?? '\r\n';
  const lines = [o.line ?? 'POST /mcp HTTP/1.1', ...HEADERS, ...(o.headers ?? [])];
  if (!o.noLength) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  if (o.close) lines.push('Connection: close');
  return lines.join(eol) + eol + eol + body;
}

/** Sends `bytes` on one connection and resolves with all that came back once the server closed it. */
function exchange(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  socket.on('error', () => {});
  socket.write(bytes);
  return within(new Promise((resolve) => socket.on('close', () => resolve(answer))), `the server to answer and close: ${JSON.stringify(bytes.slice(0, 60))}`);
}

function statuses(answer: string): number[] {
  return [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}

const SMUGGLED = request(call('smuggled'), { close: true });

/** Odd and hostile byte streams; each ends with the server closing the connection. */
const ATTACKS: [string, string][] = [
  ['Content-Length and Transfer-Encoding, a call hidden in the chunked body', request(`0\r\n\r\n${SMUGGLED}`, { headers: ['Transfer-Encoding: chunked'] })],
  [
    'Transfer-Encoding before Content-Length',
    request(`0\r\n\r\n${SMUGGLED}`, { headers: ['Transfer-Encoding: chunked', `Content-Length: ${4 + 1}`], noLength: true }),
  ],
  ['two Content-Lengths that disagree', `${request(call('first'), { headers: ['Content-Length: 0'] })}${SMUGGLED}`],
  [
    'a Content-Length with a sign',
    request(call('signed'), { headers: [`Content-Length: +${Buffer.byteLength(call('signed'))}`], noLength: true, close: true }),
  ],
  [
    'a Content-Length list',
    request(call('listed'), {
      headers: [`Content-Length: ${Buffer.byteLength(call('listed'))}, ${Buffer.byteLength(call('listed'))}`],
      noLength: true,
      close: true,
    }),
  ],
  ['a space before the colon', request(call('spaced'), { headers: [`Content-Length : ${Buffer.byteLength(call('spaced'))}`], noLength: true, close: true })],
  ['bare LF line ends', request(call('bare-lf'), { eol: '\n', close: true })],
  ['a lone LF inside a header line', request(call('lone-lf'), { headers: ['X-A: 1\nContent-Length: 0'], close: true })],
  ['a lone CR inside a header value', request(call('lone-cr'), { headers: ['X-A: 1\r2'], close: true })],
  ['a NUL in a header value', request(call('nul'), { headers: ['X-A: 1\u00002'], close: true })],
  ['a folded header (obs-fold)', request(call('folded'), { headers: ['X-A: 1', ' folded'], close: true })],
  ['a head past node:http’s limit', request(call('huge'), { headers: [`X-Big: ${'a'.repeat(20_000)}`], close: true })],
  ['a head past the front’s limit, within node:http’s', request(call('big'), { headers: [`X-Big: ${'a'.repeat(10_000)}`], close: true })],
  ['a header value past ASCII', request(call('latin'), { headers: ['X-Name: h\u00e9llo'], close: true })],
  ['no Host', request(call('no-host'), { close: true }).replace('Host: 127.0.0.1\r\n', '')],
  ['two Hosts', request(call('two-hosts'), { headers: ['Host: 127.0.0.1'], close: true })],
  ['a foreign Host', request(call('foreign'), { close: true }).replace('Host: 127.0.0.1', 'Host: evil.example')],
  ['HTTP/1.0', request(call('http10'), { line: 'POST /mcp HTTP/1.0' })],
  ['an absolute-form target', request(call('absolute'), { line: 'POST http://127.0.0.1/mcp HTTP/1.1', close: true })],
  ['a lower-case method', request(call('lower'), { line: 'post /mcp HTTP/1.1', close: true })],
  [
    'a chunked body',
    request(`${Buffer.byteLength(call('chunked')).toString(16)}\r\n${call('chunked')}\r\n0\r\n\r\n`, {
      headers: ['Transfer-Encoding: chunked'],
      noLength: true,
      close: true,
    }),
  ],
  ['Expect: 100-continue', request(call('expect'), { headers: ['Expect: 100-continue'], close: true })],
  ['a body past the size limit', request(call('x'.repeat(5000)), { close: true })],
  ['three calls pipelined in one write', request(call('p1', 1)) + request(call('p2', 2)) + request(call('p3', 3), { close: true })],
  ['served here, then a DELETE, then a call', `${request(call('one'))}DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${request(call('two'), { close: true })}`],
  ['another path', request(call('elsewhere'), { line: 'POST /mcp/x HTTP/1.1', close: true })],
  // The front hands the body over in hand, its length with it: a deep one is still measured (400).
  ['a body nested past the depth limit', request(deepCall('deep', 100), { close: true })],
];

/** A call of `record` with an extra argument nested `depth` levels. */
function deepCall(tag: string, depth: number): string {
  let extra: unknown = 1;
  for (let i = 0; i < depth; i++) extra = { a: extra };
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'record', arguments: { tag, extra } } });
}

describe('the fast front answers odd and hostile requests as node:http alone does', () => {
  let fast: Rig;
  let plain: Rig;
  for (const [what, bytes] of ATTACKS) {
    test(what, async () => {
      fast ??= await rig(true, { maxBodyBytes: 4096 });
      plain ??= await rig(false, { maxBodyBytes: 4096 });
      fast.calls.length = plain.calls.length = 0;
      const [a, b] = await Promise.all([exchange(fast.running.port, bytes), exchange(plain.running.port, bytes)]);
      assert.deepEqual(statuses(a), statuses(b), `statuses with the front: ${a.slice(0, 300)}\nwithout: ${b.slice(0, 300)}`);
      assert.ok(statuses(a).length > 0, 'an answer came');
      assert.deepEqual(fast.calls, plain.calls);
      assert.ok(!fast.calls.includes('smuggled'), 'the call hidden in a body never runs');
      if (what.includes('nested')) assert.deepEqual([statuses(a), fast.calls], [[400], []], 'refused as too deep, not run');
    });
  }
});

test('the front serves plain calls itself (its own header lines), node:http the rest', async () => {
  const { running, calls } = await rig(true);
  const answer = await exchange(running.port, request(call('a', 1)) + request(call('b', 2), { close: true }));
  assert.deepEqual(statuses(answer), [200, 200], answer);
  assert.deepEqual(calls, ['a', 'b']);
  // The front writes its header names in lower case; node:http writes `Date:` and `Connection:`.
  assert.equal(answer.match(/\r\ndate: /g)?.length, 2, answer);
  // A kept-alive answer says how long the server keeps the connection idle; the last one closes it.
  assert.match(answer, /\r\nconnection: keep-alive\r\nkeep-alive: timeout=65\r\n\r\n\{"jsonrpc":"2.0","id":1/);
  assert.match(answer, /\r\nconnection: close\r\n\r\n\{"jsonrpc":"2.0","id":2/);
  assert.ok(answer.indexOf('"id":1') < answer.indexOf('"id":2'), 'answers in the order asked');
  const bodies = answer.split('\r\n\r\n').slice(1);
  assert.match(bodies[0], /"text":"a"/);
  const plain = await exchange((await rig(false)).running.port, request(call('c'), { close: true }));
  assert.match(plain, /\r\nDate: /);
});

test('served here, then a smuggling attempt on the same connection: node:http refuses it, the hidden call never runs', async () => {
  const { running, calls } = await rig(true);
  const answer = await exchange(running.port, request(call('before')) + request(`0\r\n\r\n${SMUGGLED}`, { headers: ['Transfer-Encoding: chunked'] }));
  // node:http alone answers only the 400 here (it drops the first answer when the pipelined
  // request after it is malformed); the front has answered the first call before reading on.
  assert.deepEqual(statuses(answer), [200, 400], answer);
  assert.deepEqual(calls, ['before']);
});

test('a request arriving a byte at a time, and one a head past the front’s limit, are served', async () => {
  const { running, calls } = await rig(true);
  const bytes = Buffer.from(request(call('slow-but-whole'), { close: true }));
  const socket = connect(running.port, '127.0.0.1');
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  for (let i = 0; i < bytes.length; i++) await new Promise<void>((resolve) => socket.write(bytes.subarray(i, i + 1), () => resolve()));
  await within(closed, 'the answer to a request sent a byte at a time');
  assert.deepEqual(statuses(answer), [200], answer);
  assert.match(answer, /\r\ndate: /, 'served by the front');
  assert.deepEqual(calls, ['slow-but-whole']);
});

test('a watcher of node:http requests (a tracer, HTTP instrumentation) sees every request', async () => {
  const { running } = await rig(true);
  const seen: string[] = [];
  running.httpServer.prependListener('request', (req) => seen.push(`${req.method} ${req.url}`));
  assert.deepEqual(statuses(await exchange(running.port, request(call('watched'), { close: true }))), [200]);
  assert.deepEqual(seen, ['POST /mcp']);
  // Wrapping emit, as OpenTelemetry's HTTP instrumentation does, is watching too.
  const other = await rig(true);
  const http = other.running.httpServer;
  const emit = http.emit.bind(http) as (event: string, ...args: unknown[]) => boolean;
  http.emit = ((event: string, ...args: unknown[]) => {
    if (event === 'request') seen.push('emitted');
    return emit(event, ...args);
  }) as typeof http.emit;
  assert.deepEqual(statuses(await exchange(other.running.port, request(call('instrumented'), { close: true }))), [200]);
  assert.deepEqual(seen, ['POST /mcp', 'emitted']);
});

test('slow clients are cut with 408: headers trickling, a body trickling', async () => {
  const { running } = await rig(true, { headersTimeoutMs: 200, bodyTimeoutMs: 400 });
  const [headers, body] = await Promise.all([
    trickle(running.port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n'),
    trickle(running.port, request('', { headers: ['Content-Length: 1000'], noLength: true }), ' '),
  ]);
  assert.match(headers, /^HTTP\/1\.1 408 /);
  assert.match(body, /^HTTP\/1\.1 408 /);
});

test('an idle kept-alive connection is closed after the keep-alive timeout', async () => {
  // The timeouts only set how often the front checks (a quarter of the shortest); they are long
  // enough that a starved machine cannot turn the request itself into a 408.
  const { running, calls } = await rig(true, { headersTimeoutMs: 2000, bodyTimeoutMs: 4000 });
  running.httpServer.keepAliveTimeout = 100;
  const answer = await exchange(running.port, request(call('kept')));
  assert.deepEqual(statuses(answer), [200]);
  assert.deepEqual(calls, ['kept']);
});

test('a 2026-07-28 client that goes away mid-call cancels the call', async () => {
  const mcp = new McpServer({ name: 'h1', version: '1' });
  const started = deferred<void>();
  const aborted = deferred<void>();
  mcp.tool('wait', (_args, ctx) => {
    started.resolve();
    return new Promise((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        aborted.resolve();
        resolve('aborted');
      }),
    );
  });
  const running = await serve(mcp, { port: 0, stateful: false, responseMode: 'json' });
  rigs.push({ running, calls: [] });
  const socket = connect(running.port, '127.0.0.1');
  socket.on('error', () => {});
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: meta() } });
  const headers = Object.entries(modernToolCallHeaders('wait')).map(([k, v]) => `${k}: ${v}`);
  socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  await within(started.promise, 'the call to start');
  socket.destroy();
  await within(aborted.promise, 'the call to be cancelled');
});
