// --trace and --trace-file: the wire on stderr (or in a file), stdout untouched.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_LINE, mcpkit, startListening, type Running } from './helpers.js';
import { waitFor } from '../support/index.js';

let server: Running;
before(async () => {
  server = await startListening(['serve', '--port', '0']);
});
after(async () => {
  await server?.stop();
});

describe('--trace', () => {
  test('stdio: every message with its direction and pretty JSON, stdout unchanged', async () => {
    const r = await mcpkit(['call', `${CLI_LINE} serve --stdio`, 'echo', 'message=traced', '--trace']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'traced\n');
    assert.match(r.stderr, /^→ tools\/call #\d+ {2}\+\d+\.\d{3}s\n {4}\{\n {6}"jsonrpc": "2\.0",\n {6}"id": \d+,\n {6}"method": "tools\/call",/m);
    assert.match(r.stderr, /^← result #\d+ {2}\+/m);
    assert.match(r.stderr, /"text": "traced"/);
    // The handshake (or the 2026-07-28 discovery) is on the wire too.
    assert.match(r.stderr, /^→ (initialize|server\/discover) #\d+/m);
  });

  test('HTTP: method, path, status, MCP headers, SSE events split out', async () => {
    // The handshake era: sessions, so Mcp-Session-Id is on the wire.
    const r = await mcpkit(['call', server.url, 'count', 'n=2', '--trace', '--era', 'handshake']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Counted to 2.\n');
    const e = r.stderr;
    assert.match(e, /^→ POST \/mcp {2}\+\d/m);
    assert.match(e, /^ {2}Accept: application\/json, text\/event-stream$/m);
    assert.match(e, /^ {2}Content-Type: application\/json$/m);
    assert.match(e, /^← 200 OK POST \/mcp · \d+ ms$/m);
    assert.match(e, /^ {2}Mcp-Session-Id: \S+$/m);
    assert.match(e, /^ {2}MCP-Protocol-Version: 2025-11-25$/m);
    assert.match(e, /^ {2}Content-Type: text\/event-stream$/m);
    assert.match(e, /^← SSE notifications\/progress( {2}id: \S+)? \(POST \/mcp\)/m);
    assert.match(e, /^← SSE result #\d+/m);
    assert.match(e, /"method": "initialize"/);
    // Progress still reaches the client through the tee.
    assert.equal(e.split('\n').filter((l) => l.startsWith('progress')).length, 2);
    // Closing the session.
    assert.match(e, /^→ DELETE \/mcp/m);
  });

  test('HTTP with an API key: the secret is not printed', async () => {
    const keyed = await startListening(['serve', '--port', '0', '--api-key', 'sekrit-123']);
    try {
      const r = await mcpkit(['tools', keyed.url, '-H', 'Authorization: Bearer sekrit-123', '--trace']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /^ {2}Authorization: Bearer \*\*\*$/m);
      assert.doesNotMatch(r.stderr, /sekrit-123/);
      const denied = await mcpkit(['tools', keyed.url]);
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /401/);
    } finally {
      await keyed.stop();
    }
  });

  test('--trace-file writes JSON lines; nothing on stderr without --trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-trace-'));
    const file = join(dir, 'trace.jsonl');
    const r = await mcpkit(['call', server.url, 'count', 'n=2', '--trace-file', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /POST/);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.every((l) => typeof l.time === 'string' && l.transport === 'http'));
    const req = lines.find((l) => l.event === 'request' && (l.body as { method?: string } | undefined)?.method === 'tools/call');
    assert.ok(req, 'the tools/call request is recorded');
    assert.equal(req.method, 'POST');
    assert.equal((req.headers as Record<string, string>)['Content-Type'], 'application/json');
    assert.ok(lines.some((l) => l.event === 'response' && l.status === 200));
    const progress = lines.filter((l) => l.event === 'sse' && (l.data as { method?: string } | undefined)?.method === 'notifications/progress');
    assert.equal(progress.length, 2);

    const sfile = join(dir, 'stdio.jsonl');
    await mcpkit(['tools', `${CLI_LINE} serve --stdio`, '--trace-file', sfile]);
    const s = readFileSync(sfile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { transport: string; direction: string; message: { method?: string } });
    assert.ok(s.every((l) => l.transport === 'stdio'));
    assert.ok(s.some((l) => l.direction === 'client→server' && l.message.method === 'tools/list'));
    assert.ok(s.some((l) => l.direction === 'server→client'));
  });

  test('serve --trace shows the server side: messages, and each HTTP exchange with its MCP headers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-serve-trace-'));
    const file = join(dir, 'serve.jsonl');
    const traced = await startListening(['serve', '--port', '0', '--trace', '--trace-file', file]);
    try {
      const hs = await mcpkit(['call', traced.url, 'echo', 'message=seen', '--era', 'handshake']);
      assert.equal(hs.code, 0, hs.stderr);
      const modern = await mcpkit(['call', traced.url, 'echo', 'message=modern', '--era', 'modern']);
      assert.equal(modern.code, 0, modern.stderr);
      // An HTTP-level refusal: an unknown session, while resuming a stream.
      const refused = await fetch(traced.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25', 'last-event-id': 'ev-7' },
      });
      assert.equal(refused.status, 404);
      await refused.text();
      // The refusal is the last exchange: once its body is traced (stderr and file), all is.
      await waitFor(
        () =>
          /^← 404 Not Found GET \/mcp · \d+ ms\n {2}Content-Type: application\/json\n {4}\{\n {6}"jsonrpc": "2\.0",/m.test(traced.stderr()) &&
          /"status":404/.test(readFileSync(file, 'utf8')),
        'the traced 404',
      );
      const e = traced.stderr();
      // The messages, as before.
      assert.match(e, /^→ tools\/call #\d+/m);
      assert.match(e, /^← result #\d+/m);
      assert.match(e, /"text": "seen"/);
      // Each exchange: method, path, the request's headers; then status, time, the response's.
      const exchanges = e.split(/^(?=[→←] )/m);
      const initialize = exchanges.findIndex((x, i) => /^→ POST \/mcp {2}\+\d/.test(x) && exchanges[i + 1]?.startsWith('→ initialize'));
      assert.ok(initialize >= 0, 'the initialize POST is shown before its message');
      assert.match(exchanges[initialize], /^ {2}Accept: application\/json, text\/event-stream$/m);
      assert.match(exchanges[initialize], /^ {2}Content-Type: application\/json$/m);
      const answered = exchanges.find((x) => /^← 200 OK POST \/mcp · \d+ ms\n/.test(x) && /Mcp-Session-Id/.test(x));
      assert.ok(answered, 'the initialize response carries the new session id');
      const sid = /^ {2}Mcp-Session-Id: (\S+)$/m.exec(answered)![1];
      assert.ok(
        exchanges.some((x) => x.startsWith('→ POST /mcp') && x.includes(`  Mcp-Session-Id: ${sid}\n`) && /^ {2}MCP-Protocol-Version: 2025-11-25$/m.test(x)),
        'later requests carry the session and version',
      );
      assert.ok(
        exchanges.some((x) => x.startsWith('→ DELETE /mcp') && x.includes(`Mcp-Session-Id: ${sid}`)),
        'the session is closed with DELETE',
      );
      assert.match(e, /^← 202 Accepted POST \/mcp · \d+ ms$/m);
      // The 2026-07-28 request: routing headers, no session.
      const call = exchanges.find((x) => x.startsWith('→ POST /mcp') && /^ {2}Mcp-Name: echo$/m.test(x));
      assert.ok(call, 'the modern tools/call POST shows Mcp-Name');
      assert.match(call, /^ {2}Mcp-Method: tools\/call$/m);
      assert.match(call, /^ {2}MCP-Protocol-Version: 2026-07-28$/m);
      assert.doesNotMatch(call, /Mcp-Session-Id/);
      assert.ok(exchanges.some((x) => x.startsWith('→ POST /mcp') && /^ {2}Mcp-Method: server\/discover$/m.test(x)));
      // The refusal: request headers, status, and the body no message middleware sees.
      const get = exchanges.find((x) => x.startsWith('→ GET /mcp') && x.includes('no-such-session'));
      assert.ok(get, 'the refused GET is shown');
      assert.match(get, /^ {2}Last-Event-ID: ev-7$/m);
      assert.match(e, /^← 404 Not Found GET \/mcp · \d+ ms\n {2}Content-Type: application\/json\n {4}\{\n {6}"jsonrpc": "2\.0",/m);
      // The same in the trace file, as JSON lines.
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const req = lines.find((l) => l.event === 'request' && (l.headers as Record<string, string>)['Mcp-Name'] === 'echo');
      assert.ok(req, 'the request is in the file');
      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/mcp');
      assert.ok(lines.some((l) => l.event === 'response' && l.status === 404 && l.seq !== undefined));
      assert.ok(lines.some((l) => l.direction === 'client→server' && (l.message as { method?: string }).method === 'tools/call'));
    } finally {
      await traced.stop();
    }
  });
});
