// Unexpected failures of a command are one line that says what and what to do, with no stack
// frames unless DEBUG is set (issue 13, item 4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import { run } from '../../src/cli/run.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { writeFileSync } from 'node:fs';
import { deferred, tempDir, within } from '../support/index.js';
import { cleanEnv, mcpkit, mcpkitProcess, ROOT, testIo } from './helpers.js';

async function busyPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((r) => s.close(() => r())) };
}

test('serve on a port in use: one line naming the address and what to do, exit 1, no stack frames', async () => {
  const busy = await busyPort();
  try {
    const r = await mcpkit(['serve', '--port', String(busy.port)], { env: {} });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${busy.port} is already in use: choose another port with --port`));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack frames');
    const debug = await mcpkit(['serve', '--port', String(busy.port)], { env: { DEBUG: '1' } });
    assert.equal(debug.code, 1);
    assert.match(debug.stderr, /EADDRINUSE[\s\S]*\n\s+at /, 'DEBUG shows the frames');
  } finally {
    await busy.close();
  }
});

test('a target with another URL scheme, or without one, is a usage error that says so (exit 2)', async () => {
  const ftp = await mcpkit(['tools', 'ftp://host/x']);
  assert.equal(ftp.code, 2);
  assert.match(ftp.stderr, /unsupported URL scheme ftp: \(use http:\/\/ or https:\/\/\)/);
  assert.doesNotMatch(ftp.stderr, /command not found/);
  const bare = await mcpkit(['call', 'localhost:3000/mcp', 'echo', 'message=hi']);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /"localhost:3000\/mcp" is neither a URL nor a command: did you mean http:\/\/localhost:3000\/mcp\?/);
});

const STDIO_FIXTURES = join(ROOT, 'test/fixtures/stdio');

test('bridge --http with a command that does not exist: one line naming it, exit 1, no stack frames', async () => {
  const r = await mcpkit(['bridge', '--http', '--port', '0', '--', 'mcpkit-no-such-command-xyz'], { env: cleanEnv() });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'mcpkit: bridge --http: Cannot start MCP server "mcpkit-no-such-command-xyz": command not found: check the command after --\n');
});

test('bridge --http with a command that exits at start: its stderr, then one line saying how it exited, exit 1', async () => {
  const r = await mcpkit(['bridge', '--http', '--port', '0', '--', process.execPath, join(STDIO_FIXTURES, 'crash-at-start.mjs')], { env: cleanEnv() });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^fatal: missing API_KEY\n/);
  assert.match(
    r.stderr,
    /\nmcpkit: bridge --http: the stdio server \(\S+ \S+crash-at-start\.mjs\) exited with code 3 before answering initialize; what it wrote on stderr, if anything, is above\n$/,
  );
  assert.equal(r.stderr.split('\n').length, 3, r.stderr);
  assert.equal(r.stdout, '', 'never said it was listening');
});

test('bridge --http whose command dies during a call: the HTTP caller gets an error at once, the bridge stops with exit 1', async () => {
  const io = testIo({ env: cleanEnv() });
  const listening = deferred<string>();
  io.stdout.on('data', () => {
    const m = /listening on (http:\/\/\S+)/.exec(io.out());
    if (m) listening.resolve(m[1]);
  });
  const ended = run(['bridge', '--http', '--port', '0', '--', process.execPath, join(STDIO_FIXTURES, 'dies-on-call.mjs')], io);
  const url = await within(listening.promise, () => `the bridge to listen\n${io.err()}`);
  const client = await connect(url, { era: 'handshake' });
  try {
    await assert.rejects(
      within(client.callTool('die'), 'the call to be answered'),
      (e: unknown) => e instanceof McpError && e.code === -32603 && /the stdio server exited \(code 5\) before answering tools\/call/.test(e.message),
    );
  } finally {
    await client.close();
  }
  assert.equal(await within(ended, 'the bridge to stop'), 1);
  assert.match(io.err(), /^dies-on-call: fatal: lost the database\n✖ the stdio server exited \(code 5\); the bridge stops\n$/);
});

for (const ext of ['ts', 'mjs']) {
  test(`serve MODULE.${ext} with a syntax error: file:line:column, the source line and a caret, no stack frames`, async () => {
    const dir = tempDir('syntax');
    writeFileSync(join(dir, `broken.${ext}`), 'export const a = 1;\nconst b = ;\nexport default a;\n');
    const r = await mcpkit(['serve', `broken.${ext}`, '--port', '0'], { cwd: dir, env: cleanEnv() });
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n');
    assert.match(lines[0], new RegExp(`^mcpkit: cannot load broken\\.${ext}: a syntax error at broken\\.${ext}:2:11: Unexpected (token )?["';]+$`));
    assert.equal(lines[1], '  2 | const b = ;');
    assert.equal(lines[2], '    |           ^');
    assert.deepEqual(lines.slice(3), ['']);
  });
}

test('a tool name some clients reject: one warning line from serve, no stack frames', async () => {
  const dir = tempDir('tool-name');
  const entry = join(ROOT, 'src/server/mcp-server.ts');
  writeFileSync(
    join(dir, 'odd-names.ts'),
    `import { McpServer } from ${JSON.stringify(entry)};\nexport const server = new McpServer({ name: 'odd', version: '1' });\nserver.tool('my tool', () => 'ok');\n`,
  );
  // A real process: the warning is the module's server writing to the process's stderr.
  const r = await mcpkitProcess(['serve', '--stdio', 'odd-names.ts'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split('\n').filter((l) => /warning/i.test(l));
  assert.deepEqual(warnings, [
    '[mcpkit] warning: Tool name "my tool" should be 1-128 characters of A-Z a-z 0-9 _ - . (MCP 2025-11-25); some clients reject it',
  ]);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
