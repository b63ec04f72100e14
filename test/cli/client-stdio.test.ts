// Client commands against stdio servers: the demo (`mcpkit serve --stdio`) given as a quoted
// command line, the official-SDK fixture, and servers named in a config file.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAny as connect } from '../../src/client/connect-stdio.js';
import { CLI, CLI_LINE, cleanEnv, mcpkit, OFFICIAL_LINE, ROOT, TSX } from './helpers.js';

const DEMO = `${CLI_LINE} serve --stdio`;

describe('the demo server over stdio', () => {
  test('serve --stdio keeps stdout for messages; a library client works', async () => {
    const client = await connect({ command: process.execPath, args: [...CLI, 'serve', '--stdio'], cwd: ROOT, stderr: 'pipe' });
    try {
      assert.equal(client.serverInfo?.name, 'mcpkit-demo');
      const r = await client.callTool('echo_ip');
      assert.deepEqual(r.content, [{ type: 'text', text: 'No network address: this connection is not over HTTP (stdio or in-memory).' }]);
    } finally {
      await client.close();
    }
  });

  test('call "COMMAND LINE" count: progress lines and the result', async () => {
    const r = await mcpkit(['call', DEMO, 'count', '{"n":3}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Counted to 3.\n');
    assert.deepEqual(
      r.stderr.split('\n').filter((l) => l.startsWith('progress')),
      ['progress 1/3 (33%) Step 1 of 3', 'progress 2/3 (67%) Step 2 of 3', 'progress 3/3 (100%) Step 3 of 3'],
    );
    // The server's own stderr (its banner with a config snippet) is shown, marked as the server's;
    // the snippet starts this same CLI by absolute paths (a host has no npx in the project).
    const config = JSON.stringify({ mcpServers: { 'mcpkit-demo': { command: process.execPath, args: [...CLI, 'serve', '--stdio'] } } });
    assert.ok(r.stderr.includes(`server │ mcpkit: serving mcpkit-demo over stdio; config: ${config}\n`), r.stderr);
  });

  test('inspect over stdio', async () => {
    const r = await mcpkit(['inspect', DEMO, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { transport: string; counts: unknown; serverInfo: { name: string } };
    assert.equal(j.transport, 'stdio');
    assert.equal(j.serverInfo.name, 'mcpkit-demo');
    assert.deepEqual(j.counts, { tools: 11, resources: 32, resourceTemplates: 2, prompts: 2 });
  });

  test('a command that does not exist is explained', async () => {
    const r = await mcpkit(['tools', 'definitely-not-a-command-xyz']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Cannot start MCP server "definitely-not-a-command-xyz": command not found \(and no config file names a server "definitely-not-a-command-xyz"/,
    );
  });
});

describe('a stdio server that exits before answering (issue 13, item 2)', () => {
  const CRASH = join(ROOT, 'test/fixtures/stdio/crash-at-start.mjs');
  const EXIT_ON_UNKNOWN = join(ROOT, 'test/client/modern/fixtures/exit-on-unknown.mjs');

  test('one that cannot start: how it exited, its stderr once, started once, no era advice', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'mcpkit-crash-')), 'starts');
    const r = await mcpkit(['tools', `"${process.execPath}" "${CRASH}" "${log}"`, '-e', `START_LOG=${log}`]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Could not connect: the server exited with code 3 before answering server\/discover \(its stderr is above\)/);
    assert.equal(r.stderr.split('fatal: missing API_KEY').length - 1, 1, `the server's stderr once:\n${r.stderr}`);
    assert.ok(r.stderr.indexOf('fatal: missing API_KEY') < r.stderr.indexOf('Could not connect'), 'its stderr comes before the error');
    assert.doesNotMatch(r.stderr, /handshake-era|era: 'handshake'|\n\s+at /);
    assert.equal(readFileSync(log, 'utf8'), 'start\n');
  });

  test('a handshake-era server that exits on the era probe: started again with initialize, and it works', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'mcpkit-exit-')), 'log');
    const r = await mcpkit(['tools', `"${process.execPath}" "${EXIT_ON_UNKNOWN}" "${log}"`, '-e', `EXIT_FIXTURE_LOG=${log}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /noop/);
    assert.match(r.stderr, /the server exited on the server\/discover era probe; starting it again with initialize \(--era handshake skips the probe\)/);
    assert.doesNotMatch(r.stderr, /era: 'handshake'/);
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n').slice(0, 4), ['start', 'server/discover', 'start', 'initialize']);
  });
});

describe('a server named in an mcpServers config', () => {
  test('found in ./.mcp.json, and with --config FILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-config-'));
    const entry = { command: process.execPath, args: [...CLI, 'serve', '--stdio'], env: { DEMO_FLAG: '1' } };
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { demo: entry } }));
    const r = await mcpkit(['call', 'demo', 'echo', 'message=from a config'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'from a config\n');
    const file = join(dir, 'other.json');
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { official: { command: process.execPath, args: ['--import', TSX, join(ROOT, 'test/fixtures/official-server.ts')] } } }),
    );
    const t = await mcpkit(['tools', 'official', '--config', file, '--json']);
    assert.equal(t.code, 0, t.stderr);
    assert.ok((JSON.parse(t.stdout) as { tools: Array<{ name: string }> }).tools.some((x) => x.name === 'add'));
    const missing = await mcpkit(['tools', 'nope', '--config', file]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no server named "nope" in .*other\.json \(it has: official\)/);
  });

  test("found in Claude Desktop's config under HOME", async () => {
    const env = cleanEnv();
    const dir = join(env.XDG_CONFIG_HOME!, 'Claude');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'claude_desktop_config.json'),
      JSON.stringify({ mcpServers: { desk: { command: process.execPath, args: [...CLI, 'serve', '--stdio'] } } }),
    );
    const r = await mcpkit(['call', 'desk', 'suggest_activity', 'condition=rainy'], { env, cwd: mkdtempSync(join(tmpdir(), 'mcpkit-cwd-')) });
    if (process.platform === 'darwin' || process.platform === 'win32') return; // other locations there
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Find a cosy café and read a good book.\n');
  });
});

describe('the official-SDK fixture server', () => {
  test('tools, structured results, errors, progress, logs', async () => {
    const tools = await mcpkit(['tools', OFFICIAL_LINE]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /^add {2}Add two numbers\n {4}a\* {2}number\n {4}b\* {2}number\n {4}→ structured output$/m);
    const add = await mcpkit(['call', OFFICIAL_LINE, 'add', 'a=2', 'b=3']);
    assert.equal(add.stdout, '5\nstructuredContent:\n{\n  "sum": 5\n}\n');
    const fail = await mcpkit(['call', OFFICIAL_LINE, 'fail']);
    assert.equal(fail.code, 1);
    assert.match(fail.stderr, /✖ Tool "fail" returned an error \(isError: true\)\n.*this tool always fails/);
    const count = await mcpkit(['call', OFFICIAL_LINE, 'count', 'n=2']);
    assert.equal(count.stdout, 'counted to 2\n');
    assert.deepEqual(
      count.stderr.split('\n').filter((l) => l.startsWith('progress')),
      ['progress 1/2 (50%) step 1 of 2', 'progress 2/2 (100%) step 2 of 2'],
    );
    const log = await mcpkit(['call', OFFICIAL_LINE, 'log', 'level=warning', 'text=disk almost full']);
    assert.match(log.stderr, /\[warning\] fixture: disk almost full/);
    const ask = await mcpkit(['call', OFFICIAL_LINE, 'ask']);
    assert.match(ask.stderr, /asked for input \("What is your name\?"\) but mcpkit is not running on a terminal: declined/);
    assert.match(ask.stdout, /"action":"decline"/);
  });

  test('complete over stdio', async () => {
    const r = await mcpkit(['complete', OFFICIAL_LINE, 'prompt:greet', 'name', 'C']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Carol\n');
    const t = await mcpkit(['complete', OFFICIAL_LINE, 'resource:docs://{name}', 'name', 'g', '--json']);
    assert.deepEqual((JSON.parse(t.stdout) as { completion: { values: string[] } }).completion.values, ['guide']);
  });

  test('read, prompt and inspect', async () => {
    const read = await mcpkit(['read', OFFICIAL_LINE, 'docs://guide']);
    assert.equal(read.stdout, 'contents of guide\n');
    const prompt = await mcpkit(['prompt', OFFICIAL_LINE, 'greet', 'name=Bob']);
    assert.equal(prompt.stdout, 'user:\n  Please greet Bob warmly.\n');
    const inspect = await mcpkit(['inspect', OFFICIAL_LINE]);
    assert.match(inspect.stdout, /^Server +official-fixture 2\.3\.4$/m);
    // --era auto: the server/discover probe is refused, so the handshake.
    assert.match(inspect.stdout, /^Protocol +2025-11-25$/m);
    assert.match(inspect.stdout, /^Era +handshake \(initialize and a session; the server does not speak 2026-07-28\)$/m);
    assert.match(inspect.stdout, /^Round trip +[\d.]+ ms \(ping\)$/m);
    assert.match(inspect.stdout, /^Offers +8 tools, 1 resource, 1 template, 1 prompt$/m);
    assert.match(inspect.stdout, /^Instructions\n {2}Official SDK fixture\.$/m);
  });
});
