// The two HTTP stacks under the client transports (src/transports/http/client/exchange.ts): the
// node:http one (the default on Node) and the fetch one (every other runtime, and a `fetch`
// option). Each case runs against both over real loopback HTTP and checks they behave the same:
// what the server receives, what the caller gets, redirects, errors, aborts, SSE bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Cancel, fetchExchange, type HttpExchange } from '../../../../src/transports/http/client/exchange.js';
import { nodeExchange, nodeExchangeFor } from '../../../../src/transports/http/client/node-exchange.js';
import { pickExchange } from '../../../../src/transports/http/client/pick-exchange.js';
import { StreamableHttpClientTransport } from '../../../../src/transports/http/client/streamable.js';
import { McpClient } from '../../../../src/client/client.js';
import { McpServer } from '../../../../src/server/mcp-server.js';
import { toNodeHandler } from '../../../../src/serving/node.js';
import { deferred } from '../../../support/index.js';

const STACKS: Array<[string, HttpExchange]> = [
  ['node:http', nodeExchange],
  ['fetch', fetchExchange(globalThis.fetch.bind(globalThis))],
];

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  port: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

/** A loopback server that records every request (and its client port) and hands it to `handler`. */
async function server(handler: Handler): Promise<{ url: (path?: string) => URL; seen: Seen[]; http: Server; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), port: req.socket.remotePort! };
    seen.push(s);
    handler(req, res, s);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  return {
    url: (path = '/mcp') => new URL(`http://127.0.0.1:${port}${path}`),
    seen,
    http,
    async close() {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

/** The request headers both stacks send (fetch adds a few of its own, node:http none). */
function common(h: IncomingMessage['headers']) {
  const { host, 'content-type': type, 'content-length': length, accept, 'user-agent': agent, 'x-custom': custom, authorization } = h;
  return { host, type, length, accept, agent, custom, authorization };
}

for (const [name, exchange] of STACKS) {
  test(`${name}: a POST and its JSON answer: what the server gets, status, headers and body`, async () => {
    const srv = await server((_req, res) => {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(200, 'Fine', { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end('{"ok":"é"}');
    });
    try {
      const res = await exchange('POST', srv.url(), { 'content-type': 'application/json', 'x-custom': 'v' }, '{"a":"ü"}', undefined);
      assert.equal(res.status, 200);
      assert.equal(res.statusText, 'Fine');
      assert.equal(res.ok, true);
      assert.equal(res.hasBody, true);
      assert.equal(res.header('mcp-session-id'), 's-1');
      assert.equal(res.header('absent'), null);
      assert.equal(res.headers.get('MCP-Session-Id'), 's-1');
      assert.equal(await res.text(), '{"ok":"é"}');
      const [s] = srv.seen;
      assert.equal(s.method, 'POST');
      assert.equal(s.body, '{"a":"ü"}');
      assert.deepEqual(common(s.headers), {
        host: srv.url().host,
        type: 'application/json',
        length: String(Buffer.byteLength('{"a":"ü"}')),
        accept: '*/*',
        agent: 'node',
        custom: 'v',
        authorization: undefined,
      });
      assert.match(String(s.headers['accept-encoding']), /gzip, deflate/);
    } finally {
      await srv.close();
    }
  });

  test(`${name}: bodiless answers (204, 202) and a gzip-compressed, BOM-prefixed body`, async () => {
    const srv = await server((req, res) => {
      if (req.url === '/204') return void res.writeHead(204).end();
      if (req.url === '/202') return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(Buffer.from('\uFEFF{"zipped":true}')));
    });
    try {
      const none = await exchange('DELETE', srv.url('/204'), {}, undefined, undefined);
      assert.equal(none.status, 204);
      assert.equal(none.hasBody, false);
      none.discard();
      const accepted = await exchange('POST', srv.url('/202'), {}, '{}', undefined);
      assert.equal(accepted.status, 202);
      assert.equal(await accepted.text(), '');
      const zipped = await exchange('GET', srv.url('/gz'), {}, undefined, undefined);
      assert.equal(await zipped.text(), '{"zipped":true}');
    } finally {
      await srv.close();
    }
  });

  test(`${name}: redirects as fetch follows them (303/302 turn a POST into a GET, 307 keeps it, another origin loses the credentials)`, async () => {
    const other = await server((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('elsewhere'));
    const srv = await server((req, res) => {
      if (req.url === '/303') return void res.writeHead(303, { location: '/end' }).end();
      if (req.url === '/302') return void res.writeHead(302, { location: '/end' }).end();
      if (req.url === '/307') return void res.writeHead(307, { location: '/end' }).end();
      if (req.url === '/away') return void res.writeHead(307, { location: other.url('/there').href }).end();
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} end`);
    });
    const post = (path: string) =>
      exchange('POST', srv.url(path), { 'content-type': 'application/json', authorization: 'Bearer t', 'x-custom': 'c' }, '{"x":1}', undefined);
    try {
      assert.equal(await (await post('/303')).text(), 'GET end');
      assert.equal(await (await post('/302')).text(), 'GET end');
      assert.equal(await (await post('/307')).text(), 'POST end');
      const [, after303, , after302, , after307] = srv.seen;
      assert.deepEqual([after303.method, after303.body, after303.headers['content-type']], ['GET', '', undefined]);
      assert.deepEqual([after302.method, after302.body], ['GET', '']);
      assert.deepEqual([after307.method, after307.body, after307.headers['content-type']], ['POST', '{"x":1}', 'application/json']);
      assert.equal(after307.headers.authorization, 'Bearer t', 'the same origin keeps the credentials');

      assert.equal(await (await post('/away')).text(), 'elsewhere');
      const there = other.seen[0];
      assert.equal(there.method, 'POST');
      assert.equal(there.headers.authorization, undefined, 'credentials never go to another origin');
      assert.equal(there.headers['x-custom'], 'c');
      assert.equal(there.headers.host, other.url().host);

      const loop = await post('/loop').then(
        () => assert.fail('an endless redirect must fail'),
        (e: unknown) => e as TypeError,
      );
      assert.ok(loop instanceof TypeError);
      assert.equal(loop.message, 'fetch failed');
      assert.match(String((loop.cause as Error).message), /redirect count exceeded/);
      assert.equal(srv.seen.filter((s) => s.url === '/loop').length, 21, 'the first request and 20 redirects');
    } finally {
      await srv.close();
      await other.close();
    }
  });

  test(`${name}: a refused connection rejects with "fetch failed" and the socket error as its cause`, async () => {
    const srv = await server(() => {});
    const url = srv.url();
    await srv.close();
    const err = await exchange('POST', url, {}, '{}', undefined).then(
      () => assert.fail('nothing listens there'),
      (e: unknown) => e as TypeError,
    );
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, 'fetch failed');
    const cause = err.cause as NodeJS.ErrnoException;
    assert.equal(cause.code, 'ECONNREFUSED');
    assert.equal(cause.message, `connect ECONNREFUSED ${url.host}`);
  });

  test(`${name}: a URL with credentials in it is refused before anything is sent`, async () => {
    const srv = await server((_req, res) => res.end());
    try {
      const url = srv.url();
      url.username = 'user';
      url.password = 'secret';
      await assert.rejects(exchange('GET', url, {}, undefined, undefined), (e: unknown) => e instanceof TypeError && /credentials/.test(e.message));
      assert.equal(srv.seen.length, 0);
    } finally {
      await srv.close();
    }
  });

  for (const kind of ['AbortController', 'Cancel'] as const) {
    test(`${name}: aborting (${kind}) before the answer rejects with the reason and closes the connection`, async () => {
      const arrived = deferred<void>();
      const gone = deferred<void>();
      const srv = await server((req, res) => {
        res.on('close', () => gone.resolve());
        arrived.resolve();
        void req;
      });
      try {
        const ctl = kind === 'Cancel' ? new Cancel() : new AbortController();
        const signal = ctl instanceof Cancel ? ctl : ctl.signal;
        const pending = exchange('POST', srv.url(), {}, '{}', signal);
        await arrived.promise;
        const reason = new Error('cancelled by the caller');
        ctl.abort(reason);
        await assert.rejects(pending, (e: unknown) => e === reason);
        await gone.promise; // the server saw the request end: how 2026-07-28 cancels
      } finally {
        await srv.close();
      }
    });
  }

  test(`${name}: an SSE body arrives event by event, across chunk and UTF-8 boundaries; aborting ends it quietly`, async () => {
    const next = deferred<void>();
    const gone = deferred<void>();
    const srv = await server((_req, res) => {
      res.on('close', () => gone.resolve());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const bytes = Buffer.from('id: 1\nevent: message\ndata: {"a":"é€"}\n\n');
      // Split inside the multi-byte characters and inside the field names.
      res.write(bytes.subarray(0, 25));
      setImmediate(() => res.write(bytes.subarray(25)));
      void next.promise.then(() => res.write('data: second\n\n'));
    });
    try {
      const ctl = new Cancel();
      const res = await exchange('GET', srv.url(), { accept: 'text/event-stream' }, undefined, ctl);
      assert.equal(res.header('content-type'), 'text/event-stream');
      const seen: string[] = [];
      for await (const ev of res.events()) {
        seen.push(`${ev.id ?? ''}|${ev.event}|${ev.data}`);
        if (seen.length === 1) next.resolve();
        if (seen.length === 2) ctl.abort(new Error('enough'));
      }
      assert.deepEqual(seen, ['1|message|{"a":"é€"}', '|message|second']);
      await gone.promise;
    } finally {
      await srv.close();
    }
  });
}

test('node:http keeps connections alive: sequential requests share one socket', async () => {
  const srv = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  try {
    for (let i = 0; i < 5; i++) await (await nodeExchange('POST', srv.url(), {}, '{}', undefined)).text();
    assert.equal(new Set(srv.seen.map((s) => s.port)).size, 1);
  } finally {
    await srv.close();
  }
});

test('node:http sends a GET again on a fresh connection when the pooled one was closed under it, never a POST', async () => {
  // The server reads the second request on a connection and drops the connection unanswered:
  // what a request that crosses the server's idle-timeout close looks like to the client.
  let served = 0;
  const srv = await server((req, res) => {
    served++;
    if (served === 2) return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' }).end('{}');
  });
  try {
    await (await nodeExchange('GET', srv.url(), {}, undefined, undefined)).text();
    const again = await nodeExchange('GET', srv.url(), {}, undefined, undefined);
    assert.equal(await again.text(), '{}');
    assert.equal(srv.seen.length, 3, 'the GET went out twice');
    assert.notEqual(srv.seen[2].port, srv.seen[1].port, 'the second time on a new connection');

    served = 1; // the next request on a pooled connection is dropped again
    const post = await nodeExchange('POST', srv.url(), {}, '{"once":true}', undefined).then(
      () => assert.fail('a POST whose connection broke must fail, not be sent twice'),
      (e: unknown) => e as TypeError,
    );
    assert.equal(post.message, 'fetch failed');
    assert.equal(srv.seen.filter((s) => s.body === '{"once":true}').length, 1);
  } finally {
    await srv.close();
  }
});

test('the transports use node:http on Node by default, and fetch when given one or when MCPKIT_HTTP_CLIENT=fetch', async () => {
  const mcp = new McpServer({ name: 'paths', version: '1' });
  mcp.tool('echo', { description: 'echoes' }, () => 'hi');
  const handler = toNodeHandler(mcp, { stateful: false, responseMode: 'json' });
  // fetch sends `sec-fetch-mode: cors` on every request; node:http sends nothing of the kind.
  const fetchMarks: boolean[] = [];
  const http = createServer((req, res) => {
    fetchMarks.push(req.headers['sec-fetch-mode'] !== undefined);
    handler(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const callOnce = async (options: { fetch?: typeof fetch }) => {
    fetchMarks.length = 0;
    const client = new McpClient({ name: 't', version: '1', era: 'modern' });
    await client.connect(new StreamableHttpClientTransport({ url, ...options }));
    assert.equal((await client.callTool('echo', {})).content[0]?.type, 'text');
    await client.close();
    return [...new Set(fetchMarks)];
  };
  try {
    assert.deepEqual(await callOnce({}), [false], 'node:http by default');
    assert.deepEqual(await callOnce({ fetch: (input, init) => fetch(input, init) }), [true], 'the fetch given');
    process.env.MCPKIT_HTTP_CLIENT = 'fetch';
    try {
      assert.deepEqual(await callOnce({}), [true], 'MCPKIT_HTTP_CLIENT=fetch');
    } finally {
      delete process.env.MCPKIT_HTTP_CLIENT;
    }
    assert.equal(nodeExchangeFor(new URL('ftp://example.com/')), undefined, 'only http: and https: URLs');
    assert.notEqual(pickExchange(new URL(url), undefined), undefined);
  } finally {
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
});

test('a fetch routed elsewhere (an undici dispatcher other than the default Agent) keeps the transports on fetch', () => {
  const key = Symbol.for('undici.globalDispatcher.1');
  const globals = globalThis as unknown as Record<symbol, unknown>;
  const before = globals[key];
  class ProxyAgent {}
  globals[key] = new ProxyAgent();
  try {
    assert.equal(nodeExchangeFor(new URL('http://127.0.0.1/mcp')), undefined);
  } finally {
    globals[key] = before;
  }
});
