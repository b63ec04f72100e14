// The HTTP/1.1 reader under the node exchange (src/transports/http/client/h1.ts), against raw TCP
// servers that write answers byte by byte as a test needs them: heads and bodies split anywhere,
// chunked coding with extensions and trailers, informational heads, answers framed by the end of
// the connection, connections closed under a pooled socket, malformed heads, and header values
// that would split a request. What node:http's client took care of, this must.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { nodeExchange } from '../../../../src/transports/http/client/node-exchange.js';
import { Cancel } from '../../../../src/transports/http/client/exchange.js';
import { deferred } from '../../../support/index.js';

interface Raw {
  url: (path?: string) => URL;
  /** Every request received, head and body as text. */
  requests: string[];
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/**
 * A TCP server that reads one request at a time (head, then Content-Length bytes of body) and
 * calls `answer` with it and the socket: the answer is written as the test wants.
 */
async function raw(answer: (request: string, socket: Socket, n: number) => void): Promise<Raw> {
  const sockets = new Set<Socket>();
  const state: Raw = {
    url: (path = '/mcp') => new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`),
    requests: [],
    connections: 0,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buf = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      buf += chunk;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const request = buf.slice(0, end + 4 + length);
        buf = buf.slice(end + 4 + length);
        state.requests.push(request);
        answer(request, socket, state.requests.length);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return state;
}

const post = (url: URL, body = '{}', headers: Record<string, string> = {}, signal?: Cancel) => nodeExchange('POST', url, headers, body, signal);

/** Writes `parts` one by one, each in its own TCP segment (a tick apart). */
async function trickle(socket: Socket, parts: Array<string | Buffer>): Promise<void> {
  for (const p of parts) {
    socket.write(p);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('the request goes out as one HTTP/1.1 message: method, path and query, host, headers, content-length, body', async () => {
  const srv = await raw((_req, s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
  try {
    const url = srv.url('/mcp?x=1');
    const res = await post(url, '{"a":"é"}', { 'content-type': 'application/json', 'mcp-method': 'tools/call' });
    assert.equal(await res.text(), 'ok');
    const [head, body] = srv.requests[0].split('\r\n\r\n');
    const lines = head.split('\r\n');
    assert.equal(lines[0], 'POST /mcp?x=1 HTTP/1.1');
    assert.ok(lines.includes(`host: ${url.host}`));
    assert.ok(lines.includes('content-type: application/json'));
    assert.ok(lines.includes('mcp-method: tools/call'));
    assert.ok(lines.includes(`content-length: ${Buffer.byteLength('{"a":"é"}')}`));
    assert.equal(Buffer.from(body, 'latin1').toString('utf8'), '{"a":"é"}');
  } finally {
    await srv.close();
  }
});

test('heads and bodies split anywhere across reads, and several reads of body', async () => {
  const body = JSON.stringify({ text: 'x'.repeat(70_000), u: 'é€' });
  const bytes = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const srv = await raw(
    (_req, s) => void trickle(s, [bytes.subarray(0, 7), bytes.subarray(7, 30), bytes.subarray(30, 60), bytes.subarray(60, 40_000), bytes.subarray(40_000)]),
  );
  try {
    const res = await post(srv.url());
    assert.equal(res.header('content-type'), 'application/json');
    assert.equal(await res.text(), body);
    // The connection is reused for the next request.
    assert.equal(await (await post(srv.url())).text(), body);
    assert.equal(srv.connections, 1);
  } finally {
    await srv.close();
  }
});

test('chunked coding: sizes in hex with extensions, chunks split across reads, trailers; then the connection is reused', async () => {
  const srv = await raw(
    (_req, s) =>
      void trickle(s, [
        'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n',
        '5;ext=1\r\nhel',
        'lo\r',
        '\n1',
        '0\r\n',
        '0123456789abcdef\r\n',
        '0\r\nx-trailer: yes\r\n',
        '\r\n',
      ]),
  );
  try {
    assert.equal(await (await post(srv.url())).text(), 'hello0123456789abcdef');
    assert.equal(await (await post(srv.url())).text(), 'hello0123456789abcdef');
    assert.equal(srv.connections, 1);
  } finally {
    await srv.close();
  }
});

test('informational heads (100, 103) are skipped; the real answer follows on the same read or later', async () => {
  const srv = await raw((_req, s) => {
    s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n');
    setTimeout(() => s.write('HTTP/1.1 201 Created\r\ncontent-length: 4\r\n\r\ndone'), 5);
  });
  try {
    const res = await post(srv.url());
    assert.equal(res.status, 201);
    assert.equal(res.statusText, 'Created');
    assert.equal(await res.text(), 'done');
  } finally {
    await srv.close();
  }
});

test('an answer framed by the end of the connection (no length), HTTP/1.0 and `connection: close` are read whole, and their connections not reused', async () => {
  const srv = await raw((req, s) => {
    if (req.startsWith('POST /eof')) {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\npart one, ');
      setTimeout(() => s.end('part two'), 5);
    } else if (req.startsWith('POST /old')) s.write('HTTP/1.0 200 OK\r\ncontent-length: 3\r\n\r\nold');
    else s.write('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 5\r\n\r\nclose');
  });
  try {
    assert.equal(await (await post(srv.url('/eof'))).text(), 'part one, part two');
    assert.equal(await (await post(srv.url('/old'))).text(), 'old');
    assert.equal(await (await post(srv.url('/close'))).text(), 'close');
    assert.equal(await (await post(srv.url('/close'))).text(), 'close');
    assert.equal(srv.connections, 4, 'a new connection each time');
  } finally {
    await srv.close();
  }
});

test('bodiless answers: 204 and 304 have none whatever they say, content-length 0 has none; the connection stays', async () => {
  const srv = await raw((req, s) => {
    if (req.startsWith('POST /204')) s.write('HTTP/1.1 204 No Content\r\n\r\n');
    else s.write('HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n');
  });
  try {
    const none = await post(srv.url('/204'));
    assert.equal(none.status, 204);
    assert.equal(none.hasBody, false);
    assert.equal(await none.text(), '');
    const accepted = await post(srv.url('/202'));
    assert.equal(accepted.status, 202);
    assert.equal(await accepted.text(), '');
    assert.equal(srv.connections, 1);
  } finally {
    await srv.close();
  }
});

test('repeated headers are joined as fetch joins them; names are case-insensitive', async () => {
  const srv = await raw((_req, s) => s.write('HTTP/1.1 200 OK\r\nX-Thing: a\r\nx-thing:  b \r\nContent-Length: 0\r\n\r\n'));
  try {
    const res = await post(srv.url());
    assert.equal(res.header('x-thing'), 'a, b');
    assert.equal(res.headers.get('X-Thing'), 'a, b');
  } finally {
    await srv.close();
  }
});

test('malformed answers fail the request with "fetch failed": a bad status line, a folded header, lengths that disagree, a head too large', async () => {
  const answers: Record<string, string> = {
    '/status': 'HTTP/2 200 OK\r\n\r\n',
    '/fold': 'HTTP/1.1 200 OK\r\nx-a: 1\r\n  folded\r\ncontent-length: 0\r\n\r\n',
    '/lengths': 'HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabcd',
    '/huge': `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
    // A name is a token right up to its colon (RFC 9112 §5): no space before it, none empty,
    // none with a character outside tchar, including names this connection has read before.
    '/space': 'HTTP/1.1 200 OK\r\ncontent-type : text/plain\r\ncontent-length: 0\r\n\r\n',
    '/empty': 'HTTP/1.1 200 OK\r\n: x\r\ncontent-length: 0\r\n\r\n',
    '/at': 'HTTP/1.1 200 OK\r\nx@y: 1\r\ncontent-length: 0\r\n\r\n',
    '/latin1': 'HTTP/1.1 200 OK\r\nx-\u00e9: 1\r\ncontent-length: 0\r\n\r\n',
    '/sign': 'HTTP/1.1 200 OK\r\ncontent-length: +2\r\n\r\nok',
    '/digits': 'HTTP/1.1 200 OK\r\ncontent-length: 2a\r\n\r\nok',
    '/long': 'HTTP/1.1 200 OK\r\ncontent-length: 1234567890123456\r\n\r\nok',
    '/list': 'HTTP/1.1 200 OK\r\ncontent-length: 2, 3\r\n\r\nok',
  };
  const srv = await raw((req, s) => s.write(answers[/^POST (\S+)/.exec(req)![1]]));
  try {
    for (const path of Object.keys(answers)) {
      await assert.rejects(post(srv.url(path)), (e: unknown) => e instanceof TypeError && e.message === 'fetch failed', path);
    }
  } finally {
    await srv.close();
  }
});

test('values are trimmed of spaces and tabs only; a Content-Length repeated with one value in a list is that length', async () => {
  const srv = await raw((_req, s) => s.write('HTTP/1.1 200 OK\r\nx-t:\t c d\t \r\nX-Upper: u\r\ncontent-length: 2, 2\r\n\r\nok'));
  try {
    for (let i = 0; i < 2; i++) {
      const res = await post(srv.url());
      assert.equal(res.header('x-t'), 'c d');
      assert.equal(res.header('x-upper'), 'u');
      assert.equal(await res.text(), 'ok');
    }
    assert.equal(srv.connections, 1, 'the connection is reused after a listed length');
  } finally {
    await srv.close();
  }
});

test('a connection that breaks in the middle of a body fails the read with "terminated"', async () => {
  const srv = await raw((_req, s) => {
    s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part');
    setTimeout(() => s.destroy(), 5);
  });
  try {
    const res = await post(srv.url());
    await assert.rejects(res.text(), (e: unknown) => e instanceof TypeError && e.message === 'terminated');
  } finally {
    await srv.close();
  }
});

test('a pooled connection the server closed while idle is not used again; a POST on one that breaks unanswered is not sent twice', async () => {
  const closed = deferred<void>();
  const srv = await raw((req, s, n) => {
    if (n === 1) {
      s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
      // Closed while idle; the server sees it closed once the client has closed its side too.
      s.on('close', () => closed.resolve());
      setTimeout(() => s.end(), 5);
      return;
    }
    if (req.includes('"drop"')) return void s.destroy();
    s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });
  try {
    assert.equal(await (await post(srv.url())).text(), 'ok');
    await closed.promise;
    assert.equal(await (await post(srv.url())).text(), 'ok', 'a new connection, not the closed one');
    assert.equal(srv.connections, 2);
    await assert.rejects(post(srv.url(), '{"drop":true}'), (e: unknown) => e instanceof TypeError && e.message === 'fetch failed');
    assert.equal(srv.requests.filter((r) => r.includes('"drop"')).length, 1);
  } finally {
    await srv.close();
  }
});

test('a Keep-Alive timeout of 1 s from the server: the connection is not kept', async () => {
  const srv = await raw((_req, s) => s.write('HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\nok'));
  try {
    assert.equal(await (await post(srv.url())).text(), 'ok');
    assert.equal(await (await post(srv.url())).text(), 'ok');
    assert.equal(srv.connections, 2);
  } finally {
    await srv.close();
  }
});

test('header names and values that would break the request are refused before anything is sent', async () => {
  const srv = await raw((_req, s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
  try {
    // Sent once: a name and value found sendable are remembered, which must not let a bad one by.
    assert.equal((await post(srv.url(), '{}', { 'x-a': 'v', 'x-b': 'tab\tok' })).status, 200);
    const refused: Array<Record<string, string>> = [
      { 'x-a': 'v\r\nx-injected: 1' },
      { 'x a': 'v' },
      { 'x-a': 'nul\0' },
      { 'x-a': 'del\x7f' },
      { 'x-a': 'wide\u0100' },
      { '': 'v' },
      { 'x-a:': 'v' },
      { 'x-\u00e9': 'v' },
    ];
    for (const headers of refused) {
      await assert.rejects(post(srv.url(), '{}', headers), (e: unknown) => e instanceof TypeError && e.message === 'fetch failed');
    }
    assert.equal(srv.requests.length, 1, 'only the first request went out');
  } finally {
    await srv.close();
  }
});

test('an event stream read slowly pauses the socket and loses nothing; aborting while waiting ends it quietly', async () => {
  const events = Array.from({ length: 200 }, (_, i) => `data: ${i} ${'x'.repeat(1000)}\n\n`);
  const wrote = deferred<void>();
  const srv = await raw((_req, s) => {
    s.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
    for (const e of events) s.write(`${Buffer.byteLength(e).toString(16)}\r\n${e}\r\n`);
    wrote.resolve();
  });
  try {
    const cancel = new Cancel();
    const res = await nodeExchange('GET', srv.url(), { accept: 'text/event-stream' }, undefined, cancel);
    await wrote.promise;
    let n = 0;
    for await (const ev of res.events()) {
      assert.equal(ev.data, `${n} ${'x'.repeat(1000)}`);
      if (++n % 50 === 0) await new Promise((r) => setTimeout(r, 10));
      if (n === events.length) setTimeout(() => cancel.abort(new Error('done')), 5);
    }
    assert.equal(n, events.length);
  } finally {
    await srv.close();
  }
});
