import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connectAny as connect } from '../../src/client/connect-stdio.js';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

test('mcpkit --version prints the package version', () => {
  const out = execFileSync(process.execPath, [...CLI, '--version'], { encoding: 'utf8' });
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  assert.equal(out.trim(), pkg.version);
});

test('mcpkit with an unknown command exits 2 with a clear message on stderr', () => {
  const r = spawnSync(process.execPath, [...CLI, 'frobnicate'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown command "frobnicate"/);
  // A near miss is named.
  const typo = spawnSync(process.execPath, [...CLI, 'srve'], { encoding: 'utf8' });
  assert.equal(typo.status, 2);
  assert.equal(typo.stderr, 'mcpkit: unknown command "srve": did you mean "mcpkit serve"? (mcpkit --help lists every command)\n');
  assert.equal(r.stdout, '');
});

test('mcpkit serve --stdio MODULE serves the exported server to a real client', async () => {
  const client = await connect({ command: process.execPath, args: [...CLI, 'serve', '--stdio', 'test/fixtures/cli/module-server.ts'] });
  try {
    assert.deepEqual(client.serverInfo, { name: 'cli-module', version: '2.0.0' });
    const r = await client.callTool('hello');
    assert.deepEqual(r.content, [{ type: 'text', text: 'hello from a module' }]);
  } finally {
    await client.close();
  }
});

test('mcpkit serve --stdio with a module that exports no server fails clearly', () => {
  const r = spawnSync(process.execPath, [...CLI, 'serve', '--stdio', 'test/fixtures/cli/not-a-server.ts'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /must export an McpServer or Server/);
  assert.equal(r.stdout, '');
});

test('mcpkit --help lists every command; each command has its own --help', () => {
  const out = execFileSync(process.execPath, [...CLI, '--help'], { encoding: 'utf8' });
  for (const cmd of ['serve', 'tools', 'call', 'read', 'prompt', 'complete', 'inspect', 'bridge']) assert.match(out, new RegExp(`^ {2}mcpkit ${cmd} `, 'm'));
  for (const option of ['--json', '--trace', '--era auto|modern|handshake']) assert.ok(out.includes(option), option);
  // Every way to serve, --openapi included; conformance in this source checkout only (tarball.test.ts).
  for (const way of ['serve --stdio', 'serve --skills DIR', 'serve --openapi SPEC', 'serve conformance'])
    assert.match(out, new RegExp(`^ {2}mcpkit ${way} `, 'm'));
  const call = execFileSync(process.execPath, [...CLI, 'call', '--help'], { encoding: 'utf8' });
  assert.match(call, /^Usage: mcpkit call TARGET TOOL \[ARGS\] \[options\]/);
  assert.match(call, /--trace-file FILE/);
  assert.match(call, /--era ERA +auto \(default\)/);
  const complete = execFileSync(process.execPath, [...CLI, 'complete', '--help'], { encoding: 'utf8' });
  assert.match(complete, /^Usage: mcpkit complete TARGET REF ARGUMENT \[VALUE\] \[options\]/);
  const serve = execFileSync(process.execPath, [...CLI, 'serve', '--help'], { encoding: 'utf8' });
  assert.match(serve, /--session-timeout SECS/);
  assert.match(serve, /--cors ORIGIN/);
});

test('a client command without its TARGET is a usage error', () => {
  const r = spawnSync(process.execPath, [...CLI, 'tools'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /tools: wrong number of arguments\nUsage: mcpkit tools TARGET/);
});
