// mcpkit bridge, both ways, with clients talking through it: progress, logs, errors,
// server-to-client requests (elicitation) and cancellation must cross.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connectAny as connect } from '../../src/client/connect-stdio.js';
import type { ProgressInfo } from '../../src/engine/peer.js';
import { CLI, CLI_LINE, mcpkit, ROOT, startListening, TSX, type Running } from './helpers.js';
import { waitFor } from '../support/index.js';

describe('bridge --stdio-to-http: a stdio server forwarding to a remote HTTP server', () => {
  let remote: Running;
  before(async () => {
    remote = await startListening(['serve', '--port', '0', '--api-key', 'k-1']);
  });
  after(async () => {
    await remote?.stop();
  });
  const bridgeArgs = (url: string, extra: string[] = []) => [...CLI, 'bridge', '--stdio-to-http', url, '-H', 'Authorization: Bearer k-1', ...extra];

  test('the CLI through the bridge: progress crosses, auth headers are sent', async () => {
    const line = `${CLI_LINE} bridge --stdio-to-http ${remote.url} -H "Authorization: Bearer k-1"`;
    const r = await mcpkit(['call', line, 'count', 'n=3']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Counted to 3.\n');
    assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('progress')).length, 3);
    const denied = await mcpkit(['tools', `${CLI_LINE} bridge --stdio-to-http ${remote.url}`]);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /401/);
  });

  test('a library client through the bridge: elicitation, progress, errors, cancellation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bridge-'));
    const traceFile = join(dir, 'bridge.jsonl');
    const client = await connect(
      { command: process.execPath, args: bridgeArgs(remote.url, ['--trace-file', traceFile]), cwd: ROOT, stderr: 'pipe' },
      { elicitation: async () => ({ action: 'accept', content: { name: 'Ada', language: 'fr' } }) },
    );
    try {
      assert.equal(client.serverInfo?.name, 'mcpkit-demo');
      const greet = await client.callTool('greet_me');
      assert.deepEqual(greet.content, [{ type: 'text', text: 'Bonjour, Ada!' }]);
      const seen: ProgressInfo[] = [];
      await client.callTool('count', { n: 2 }, { onprogress: (p) => seen.push(p) });
      assert.deepEqual(
        seen.map((p) => p.progress),
        [1, 2],
      );
      const err = await client.callTool('test_throw');
      assert.equal(err.isError, true);
      await assert.rejects(client.callTool('nope'), /Unknown tool: nope/);
      const ac = new AbortController();
      const long = client.callTool('count', { n: 100 }, { signal: ac.signal });
      setTimeout(() => ac.abort(new Error('user stopped it')), 400);
      await assert.rejects(long, /user stopped it|abort/i);
      // Still usable afterwards.
      assert.deepEqual((await client.callTool('echo', { message: 'after' })).content, [{ type: 'text', text: 'after' }]);
    } finally {
      await client.close();
    }
    // The host's cancellation reached the bridge's HTTP side (sent as a notification in the
    // handshake era; in 2026-07-28 it closes that request's POST stream).
    const lines = readFileSync(traceFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { direction?: string; message?: { method?: string } });
    assert.ok(
      lines.some((l) => l.direction === 'client→server' && l.message?.method === 'notifications/cancelled'),
      'the cancellation crossed the bridge',
    );
  });

  test('falls back to HTTP+SSE when the URL is an old-style /sse endpoint', async () => {
    const sse = remote.url.replace(/\/mcp$/, '/sse');
    const r = await mcpkit(['inspect', `${CLI_LINE} bridge --stdio-to-http ${sse} -H "Authorization: Bearer k-1"`, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { serverInfo: { name: string }; counts: { tools: number } };
    assert.equal(j.serverInfo.name, 'mcpkit-demo');
    assert.equal(j.counts.tools, 11);
    assert.match(r.stderr, /refused Streamable HTTP \(405\); trying HTTP\+SSE/);
  });
});

describe('bridge --stdio-to-http: the remote server restarts', () => {
  test('the host keeps its connection: the bridge starts a new session by itself', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    let remote = await startListening(['serve', '--port', String(port)]);
    // A handshake-era revision, so there is a session to lose.
    const client = await connect(
      { command: process.execPath, args: [...CLI, 'bridge', '--stdio-to-http', remote.url], cwd: ROOT, stderr: 'pipe' },
      { protocolVersion: '2025-11-25' },
    );
    try {
      assert.deepEqual((await client.callTool('echo', { message: 'one' })).content, [{ type: 'text', text: 'one' }]);
      await remote.stop();
      remote = await startListening(['serve', '--port', String(port)]);
      assert.deepEqual((await client.callTool('echo', { message: 'two' })).content, [{ type: 'text', text: 'two' }]);
      assert.deepEqual((await client.callTool('echo', { message: 'three' })).content, [{ type: 'text', text: 'three' }]);
    } finally {
      await client.close();
      await remote.stop();
    }
  });
});

describe('bridge --http: a stdio server exposed over HTTP', () => {
  let bridged: Running;
  before(async () => {
    bridged = await startListening([
      'bridge',
      '--http',
      '--port',
      '0',
      '--',
      process.execPath,
      '--import',
      TSX,
      join(ROOT, 'test/fixtures/official-server.ts'),
    ]);
  });
  after(async () => {
    await bridged?.stop();
  });

  test('prints where it listens; the CLI lists and calls through it', async () => {
    assert.match(bridged.stdout(), /official-fixture listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const tools = await mcpkit(['tools', bridged.url, '--json']);
    assert.equal(tools.code, 0, tools.stderr);
    assert.deepEqual((JSON.parse(tools.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name).slice(0, 4), ['echo', 'add', 'count', 'fail']);
    const count = await mcpkit(['call', bridged.url, 'count', 'n=3']);
    assert.equal(count.stdout, 'counted to 3\n');
    assert.equal(count.stderr.split('\n').filter((l) => l.startsWith('progress')).length, 3);
    const fail = await mcpkit(['call', bridged.url, 'fail']);
    assert.equal(fail.code, 1);
    assert.match(fail.stderr, /this tool always fails/);
    const read = await mcpkit(['read', bridged.url, 'docs://api']);
    assert.equal(read.stdout, 'contents of api\n');
    const log = await mcpkit(['call', bridged.url, 'log', 'level=warning', 'text=careful', '--log-level', 'info']);
    assert.match(log.stderr, /\[warning\] fixture: careful/);
  });

  test('a library client: elicitation from the stdio server reaches the HTTP client, in both eras', async () => {
    const targets = [
      { target: bridged.url, era: 'modern' as const },
      { target: bridged.url, era: 'handshake' as const },
      { target: bridged.url.replace(/\/mcp$/, '/sse'), era: 'handshake' as const },
    ];
    for (const { target, era } of targets) {
      const client = await connect(target, { era, elicitation: async () => ({ action: 'accept', content: { name: 'Grace' } }) });
      try {
        assert.equal(client.era, era, target);
        const r = await client.callTool('ask');
        const answer = JSON.parse((r.content[0] as { text: string }).text) as { action: string; content: Record<string, unknown> };
        assert.equal(answer.action, 'accept', `${era} ${target}`);
        assert.equal(answer.content.name, 'Grace');
        const c = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'C' } });
        assert.deepEqual(c.completion.values, ['Carol']);
      } finally {
        await client.close();
      }
    }
  });

  test('the demo server behind the bridge, with an API key', async () => {
    const keyed = await startListening(['bridge', '--http', '--port', '0', '--api-key', 'b-2', '--', process.execPath, ...CLI, 'serve', '--stdio']);
    try {
      const ok = await mcpkit(['call', keyed.url, 'search_docs', 'keyword=sse', '-H', 'X-API-Key: b-2', '--json']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal((JSON.parse(ok.stdout) as { structuredContent: { total: number } }).structuredContent.total, 5);
      const no = await mcpkit(['tools', keyed.url]);
      assert.equal(no.code, 1);
      assert.match(no.stderr, /401/);
    } finally {
      await keyed.stop();
    }
  });
});

describe('bridge --http: roots cross from the HTTP clients to the stdio server', () => {
  let bridged: Running;
  before(async () => {
    bridged = await startListening([
      'bridge',
      '--http',
      '--port',
      '0',
      '--',
      process.execPath,
      '--import',
      TSX,
      join(ROOT, 'test/fixtures/cli/roots-server.ts'),
    ]);
  });
  after(async () => {
    await bridged?.stop();
  });
  const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

  test("asked within a tool call, in both eras and over HTTP+SSE; the answer is the caller's own", async () => {
    const targets = [
      { url: bridged.url, era: 'modern' as const },
      { url: bridged.url, era: 'handshake' as const },
      { url: bridged.url.replace(/\/mcp$/, '/sse'), era: 'handshake' as const },
    ];
    for (const [i, { url, era }] of targets.entries()) {
      const root = { uri: `file:///work/project-${i}`, name: `project ${i}` };
      const client = await connect(url, { era, roots: [root] });
      try {
        assert.equal(client.era, era, url);
        assert.deepEqual(JSON.parse(text(await client.callTool('roots'))), [root], `${era} ${url}`);
        const next = { uri: `file:///work/other-${i}`, name: 'other' };
        await client.setRoots([next]);
        assert.deepEqual(JSON.parse(text(await client.callTool('roots'))), [next], `${era} ${url} after setRoots`);
      } finally {
        await client.close();
      }
    }
  });

  test('roots/list_changed reaches the stdio server, and its roots/list outside a request reaches the client', async () => {
    const client = await connect(bridged.url, { era: 'handshake', roots: [{ uri: 'file:///one', name: 'one' }] });
    try {
      // A request first, so the bridge knows which session has roots.
      await client.callTool('roots');
      await client.setRoots([{ uri: 'file:///two', name: 'two' }]);
      const seen = await waitFor(
        async () => {
          const last = text(await client.callTool('last_roots'));
          return last.includes('file:///two') && last;
        },
        { what: 'the stdio server to see the new roots', intervalMs: 50 },
      );
      assert.deepEqual(JSON.parse(seen), { roots: [{ uri: 'file:///two', name: 'two' }] });
    } finally {
      await client.close();
    }
  });

  test('through both bridges: stdio host → bridge --stdio-to-http → bridge --http → stdio server', async () => {
    for (const era of ['modern', 'handshake'] as const) {
      const root = { uri: `file:///far/${era}`, name: era };
      const client = await connect(
        { command: process.execPath, args: [...CLI, 'bridge', '--stdio-to-http', bridged.url], cwd: ROOT, stderr: 'pipe' },
        { era, roots: [root] },
      );
      try {
        assert.equal(client.era, era);
        assert.deepEqual(JSON.parse(text(await client.callTool('roots'))), [root], era);
      } finally {
        await client.close();
      }
    }
  });

  test('an HTTP client without roots: the stdio server is told so (-32601), the call goes on', async () => {
    const client = await connect(bridged.url, { era: 'handshake' });
    try {
      const r = await client.callTool('roots');
      assert.equal(r.isError, true);
      assert.match(text(r), /^Method not found: roots\/list \(.*did not declare the "roots" capability\)$/);
      // Still usable afterwards.
      assert.notEqual((await client.callTool('last_roots')).isError, true);
    } finally {
      await client.close();
    }
  });
});
