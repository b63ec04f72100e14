// mcpkit serve: modules, HTTP options (API key, stateless, JSON responses, CORS), --watch,
// and the conformance server.
import { describe, test } from 'node:test';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connectAny as connect } from '../../src/client/connect-stdio.js';
import { splitCommandLine } from '../../src/pool/shell-words.js';
import { CLI, cleanEnv, mcpkit, ROOT, startListening } from './helpers.js';
import { sleep, tempDir, waitFor, patient } from '../support/index.js';

const SERVER_INDEX = join(ROOT, 'src/entries/server.ts');

/** A module whose server comes from a second file: a restart must reload both. */
function moduleSource(text: string): string {
  return `import server from './server.js';
server.tool('hello', { description: 'Says hello' }, () => ${JSON.stringify(text)});
export default server;
`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('serve MODULE over HTTP', () => {
  test('serves what the module exports', async () => {
    const s = await startListening(['serve', 'test/fixtures/cli/module-server.ts', '--port', '0']);
    try {
      assert.match(s.stdout(), /● cli-module listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
      assert.match(s.stdout(), /main\.ts inspect http/);
      assert.doesNotMatch(s.stdout(), /npx/);
      const r = await mcpkit(['call', s.url, 'hello']);
      assert.equal(r.stdout, 'hello from a module\n');
    } finally {
      await s.stop();
    }
  });

  test('a missing module or one without a server is a usage error', async () => {
    const r = await mcpkit(['serve', 'no/such/file.ts']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /serve: no such file: no\/such\/file\.ts/);
    const bad = await mcpkit(['serve', 'test/fixtures/cli/not-a-server.ts', '--port', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /must export an McpServer or Server as default export or as "server" \(it exports: /);
  });

  test('unknown options and bad ports are usage errors', async () => {
    const r = await mcpkit(['serve', '--prot', '1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /serve: Unknown option '--prot'/);
    const p = await mcpkit(['serve', '--port', '70000']);
    assert.equal(p.code, 2);
    assert.match(p.stderr, /--port: expected a whole number from 0 to 65535/);
  });
});

describe('serve HTTP options', () => {
  test('--stateless --json-response: no session id, JSON answers, still works', async () => {
    const s = await startListening(['serve', '--port', '0', '--stateless', '--json-response']);
    try {
      assert.match(s.stdout(), /\(stateless, JSON responses\)/);
      const init = await fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      assert.equal(init.status, 200);
      assert.equal(init.headers.get('mcp-session-id'), null);
      assert.match(init.headers.get('content-type') ?? '', /application\/json/);
      const r = await mcpkit(['call', s.url, 'echo', 'message=stateless']);
      assert.equal(r.stdout, 'stateless\n');
    } finally {
      await s.stop();
    }
  });

  test('--api-key and --cors', async () => {
    const s = await startListening(['serve', '--port', '0', '--api-key', 'key-a', '--cors', 'https://app.example']);
    try {
      assert.match(s.stdout(), /"Authorization": "Bearer key-a"/);
      const post = (headers: Record<string, string>) =>
        fetch(s.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
      assert.equal((await post({})).status, 401);
      assert.equal((await post({ authorization: 'Bearer key-a', origin: 'https://evil.example' })).status, 403);
      const ok = await mcpkit(['call', s.url, 'echo', 'message=keyed', '-H', 'Authorization: Bearer key-a']);
      assert.equal(ok.stdout, 'keyed\n');
      const allowed = await post({ authorization: 'Bearer key-a', origin: 'https://app.example' });
      assert.notEqual(allowed.status, 403);
      assert.notEqual(allowed.status, 401);
    } finally {
      await s.stop();
    }
  });

  test('--session-timeout closes idle sessions', async () => {
    const s = await startListening(['serve', '--port', '0', '--session-timeout', '1']);
    try {
      const init = await fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      const sid = init.headers.get('mcp-session-id');
      assert.ok(sid);
      await init.text();
      // A real server's idle sweep on the wall clock (the ManualClock versions of this live in
      // test/serving/http): waiting longer than needed cannot break it, so load cannot either.
      await sleep(2500);
      const later = await fetch(s.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      assert.equal(later.status, 404);
    } finally {
      await s.stop();
    }
  });

  test('serve conformance serves the conformance fixture server', async () => {
    const s = await startListening(['serve', 'conformance', '--port', '0']);
    try {
      const j = JSON.parse((await mcpkit(['inspect', s.url, '--json'])).stdout) as { serverInfo: { name: string }; counts: { tools: number } };
      assert.equal(j.serverInfo.name, 'mcpkit-conformance-server');
      assert.ok(j.counts.tools > 10);
    } finally {
      await s.stop();
    }
  });
});

describe('serve --watch', () => {
  test('HTTP: a change restarts the server on the same port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-watch-'));
    writeFileSync(
      join(dir, 'server.ts'),
      `import { McpServer } from ${JSON.stringify(SERVER_INDEX)};\nexport default new McpServer({ name: 'watched', version: '1.0.0' });\n`,
    );
    writeFileSync(join(dir, 'main.ts'), moduleSource('first version'));
    const port = await freePort();
    const s = await startListening(['serve', join(dir, 'main.ts'), '--watch', '--port', String(port)]);
    try {
      assert.equal((await mcpkit(['call', s.url, 'hello'])).stdout, 'first version\n');
      writeFileSync(join(dir, 'main.ts'), moduleSource('second version'));
      // The restarted child listens again (a second "listening on"), then serves the new code.
      await waitFor(
        async () => (s.stdout().match(/listening on/g) ?? []).length >= 2 && (await mcpkit(['call', s.url, 'hello'])).stdout === 'second version\n',
        {
          what: 'the restarted server to answer "second version"',
          timeoutMs: patient(30_000),
          intervalMs: 100,
        },
      );
      assert.match(s.stderr(), /↻ main\.ts changed: restarting the server/);
      // The banner (where to connect, a config, what to try) once; a restart says it in one line.
      assert.equal((s.stdout().match(/Connect a client/g) ?? []).length, 1, s.stdout());
      assert.match(s.stdout(), /^● watched listening on http:\/\/127\.0\.0\.1:\d+\/mcp \(restarted\)$/m);
    } finally {
      await s.stop();
    }
  });

  test('keeps reloading after atomic saves (temp file renamed over the module), sed -i, and delete + recreate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-watch-atomic-'));
    writeFileSync(
      join(dir, 'server.ts'),
      `import { McpServer } from ${JSON.stringify(SERVER_INDEX)};\nexport default new McpServer({ name: 'watched', version: '1.0.0' });\n`,
    );
    const main = join(dir, 'main.ts');
    writeFileSync(main, moduleSource('v0'));
    const port = await freePort();
    const s = await startListening(['serve', main, '--watch', '--port', String(port)]);
    const saves: [string, (text: string) => void][] = [
      ['an atomic save', (text) => (writeFileSync(join(dir, '.main.ts.tmp'), moduleSource(text)), renameSync(join(dir, '.main.ts.tmp'), main))],
      ['a second atomic save', (text) => (writeFileSync(join(dir, '.main.ts.tmp'), moduleSource(text)), renameSync(join(dir, '.main.ts.tmp'), main))],
      [
        'sed -i (a visible temp file renamed over it)',
        (text) => (writeFileSync(join(dir, 'sedAb12Cd'), moduleSource(text)), renameSync(join(dir, 'sedAb12Cd'), main)),
      ],
      ['delete and recreate', (text) => (unlinkSync(main), writeFileSync(main, moduleSource(text)))],
    ];
    try {
      assert.equal((await mcpkit(['call', s.url, 'hello'])).stdout, 'v0\n');
      for (const [i, [what, save]] of saves.entries()) {
        const restarts = (s.stderr().match(/restarting the server/g) ?? []).length;
        save(`v${i + 1}`);
        await waitFor(
          async () => (s.stderr().match(/restarting the server/g) ?? []).length > restarts && (await mcpkit(['call', s.url, 'hello'])).stdout === `v${i + 1}\n`,
          { what: `the server reloaded after ${what} to answer "v${i + 1}"`, timeoutMs: patient(30_000), intervalMs: 100 },
        );
      }
    } finally {
      await s.stop();
    }
  });

  test('stdio: the client keeps its connection across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-watch-stdio-'));
    writeFileSync(
      join(dir, 'server.ts'),
      `import { McpServer } from ${JSON.stringify(SERVER_INDEX)};\nexport default new McpServer({ name: 'watched', version: '1.0.0' });\n`,
    );
    writeFileSync(join(dir, 'main.ts'), moduleSource('before'));
    const client = await connect({ command: process.execPath, args: [...CLI, 'serve', '--stdio', '--watch', join(dir, 'main.ts')], cwd: ROOT, stderr: 'pipe' });
    try {
      assert.deepEqual((await client.callTool('hello')).content, [{ type: 'text', text: 'before' }]);
      writeFileSync(join(dir, 'main.ts'), moduleSource('after'));
      // Calls during the restart fail or answer "before"; the restarted child answers "after".
      await waitFor(
        async () => {
          const r = await client.callTool('hello').catch((e: Error) => ({ content: [{ type: 'text', text: e.message }] }));
          return (r.content[0] as { text: string }).text === 'after';
        },
        { what: 'the restarted server to answer "after"', timeoutMs: patient(30_000), intervalMs: 100 },
      );
    } finally {
      await client.close();
    }
  });
});

describe('serve: what it prints for hosts and terminals works from anywhere', () => {
  test('stdio: the config names node and the CLI by absolute path, the module absolute, and keeps --watch', async () => {
    const module = 'test/fixtures/cli/module-server.ts';
    const child = spawn(process.execPath, [...CLI, 'serve', '--stdio', module, '--watch'], { cwd: ROOT, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c));
    try {
      const line = await waitFor(() => /config: (\{.*\})\n/.exec(err)?.[1], 'the config line on stderr');
      const entry = (JSON.parse(line) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers['cli-module'];
      assert.equal(entry.command, process.execPath);
      assert.ok(entry.args.includes(join(ROOT, 'src/cli/main.ts')), entry.args.join(' '));
      assert.deepEqual(entry.args.slice(-4), ['serve', '--stdio', join(ROOT, module), '--watch']);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('HTTP on 0.0.0.0: a loopback URL to connect to, and a Try line that runs from another directory', async () => {
    const s = await startListening(['serve', '--host', '0.0.0.0', '--port', '0', '--api-key', 'k9']);
    try {
      assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      assert.match(s.stdout(), /\(bound to 0\.0\.0\.0:\d+\)/);
      assert.match(s.stdout(), new RegExp(`"url": "${s.url}"`));
      const tryLine = /Try: (.+)/.exec(s.stdout())?.[1];
      assert.ok(tryLine, s.stdout());
      const [command, ...args] = splitCommandLine(tryLine);
      // Not execFileSync: the server answering it runs in this process.
      const { stdout } = await promisify(execFile)(command, args, { cwd: tmpdir(), env: cleanEnv(), encoding: 'utf8' });
      assert.match(stdout, /^echo\b/m);
    } finally {
      await s.stop();
    }
  });

  test("the built CLI suggests plain `mcpkit` only when the mcpkit on PATH is this one (not npx's node_modules/.bin)", {
    skip: process.platform === 'win32' && 'Windows always gets the absolute command',
  }, async () => {
    const main = join(ROOT, 'dist/cli/main.js');
    const tryLine = async (binDir: string) => {
      const child = spawn(process.execPath, [main, 'serve', '--port', '0'], {
        cwd: tmpdir(),
        env: { ...cleanEnv(), PATH: `${binDir}${delimiter}${process.env.PATH}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c));
      try {
        return await waitFor(() => /Try: (.+) tools http/.exec(out)?.[1], `the Try line (stdout: ${out})`);
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    };
    const global = join(tempDir('path'), 'bin');
    const npx = join(tempDir('path'), 'node_modules', '.bin');
    for (const dir of [global, npx]) {
      mkdirSync(dir, { recursive: true });
      symlinkSync(main, join(dir, 'mcpkit'));
    }
    assert.equal(await tryLine(global), 'mcpkit');
    assert.equal(await tryLine(npx), `${process.execPath} ${main}`);
  });
});
