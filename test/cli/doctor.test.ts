// mcpkit doctor TARGET and mcpkit inspect TARGET when it cannot connect: the failing step, the
// summary and the fix on the terminal, the diagnosis in --json, the exit codes. In-process, over
// real child processes and real HTTP. --slow is set high so that a busy machine is never "slow".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as servers from '../fixtures/doctor/http-servers.js';
import { startDemoHttp, tempDir } from '../support/index.js';
import { mcpkit } from './helpers.js';

const EXITS = fileURLToPath(new URL('../fixtures/doctor/stdio/exits-at-start.mjs', import.meta.url));
const EXITS_LINE = `"${process.execPath}" "${EXITS}"`;
const CALM = ['--slow', '600'];

test('mcpkit doctor URL: every step, the failing one with its fix and code; exit 1', async () => {
  const s = await servers.notFound();
  try {
    const r = await mcpkit(['doctor', s.url, ...CALM]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^Connection doctor: http:\/\/127\.0\.0\.1:\d+\/api \(http\)$/m);
    assert.match(r.stdout, /^✔ dns /m);
    assert.match(r.stdout, /^✔ connect /m);
    assert.match(r.stdout, /^✖ post .*answered 404 Not Found/m);
    assert.ok(r.stdout.includes(`fix: MCP endpoints are usually at /mcp`), r.stdout);
    assert.ok(r.stdout.includes(`${s.origin}/mcp (Streamable HTTP) answers MCP: use that URL  [http-404]`), r.stdout);
    assert.match(r.stdout, /^Failing step: post \[http-404\]$/m);
  } finally {
    await s.close();
  }
});

test('mcpkit doctor --json: the diagnosis object', async () => {
  const r = await mcpkit(['doctor', EXITS_LINE, '--json', ...CALM]);
  assert.equal(r.code, 1, r.stderr);
  const d = JSON.parse(r.stdout);
  assert.equal(d.ok, false);
  assert.equal(d.transport, 'stdio');
  assert.deepEqual(
    d.steps.map((s: { step: string }) => s.step),
    ['spawn', 'start', 'stdout'],
  );
  assert.equal(d.failure.code, 'exited-at-start');
  assert.match(d.failure.summary, /exited with code 1 .*WEATHER_API_KEY is not set/);
  assert.match(d.failure.fix, /-e WEATHER_API_KEY=VALUE/);
});

test('mcpkit doctor on a working server: every step passes; exit 0', async () => {
  const demo = await startDemoHttp();
  try {
    const r = await mcpkit(['doctor', demo.url, '--origin', 'http://localhost:5173', ...CALM]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /✖/);
    assert.match(r.stdout, /^✔ preflight /m);
    assert.match(r.stdout, /^Every step works: mcpkit-demo .* speaks 2026-07-28\.$/m);
  } finally {
    await demo.close();
  }
});

test('mcpkit doctor NAME --config FILE: the entry is diagnosed (its env values kept out of the report)', async () => {
  const dir = tempDir('doctor-config');
  const config = join(dir, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { weather: { command: process.execPath, args: [EXITS], env: { OTHER_TOKEN: 'cfg-secret-99887766' } } } }));
  const r = await mcpkit(['doctor', 'weather', '--config', config, ...CALM]);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stdout.startsWith(`Connection doctor: weather (${process.execPath} ${EXITS}) (stdio)`), r.stdout);
  assert.match(r.stdout, /^Failing step: start \[exited-at-start\]$/m);
  assert.ok(!r.stdout.includes('cfg-secret-99887766'));
});

test('mcpkit doctor with a TARGET that names nothing usable: exit 2', async () => {
  const r = await mcpkit(['doctor', 'ftp://example.com/mcp']);
  assert.equal(r.code, 2);
  assert.match(r.stdout, /✖ target .*unsupported URL scheme ftp/);
});

test('mcpkit doctor -H: the header value never appears, even when the server echoes it', async () => {
  const s = await servers.echoesCredentials();
  try {
    const r = await mcpkit(['doctor', s.url, '-H', 'Authorization: Bearer sk-cli-0123456789', ...CALM]);
    assert.equal(r.code, 1);
    assert.ok(s.seen.length > 0);
    assert.ok(!`${r.stdout}${r.stderr}`.includes('sk-cli-0123456789'), r.stdout);
    assert.match(r.stdout, /\[redacted\]/);
  } finally {
    await s.close();
  }
});

test('mcpkit inspect URL that cannot connect: the error, then the failing step, its summary and the fix; exit 1', async () => {
  const s = await servers.notFound();
  try {
    const r = await mcpkit(['inspect', s.url, ...CALM]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /✖ .*404/);
    assert.match(r.stderr, /^Failing step: post \[http-404\]$/m);
    assert.match(r.stderr, /^ {2}POST server\/discover and initialize to http:\/\/127\.0\.0\.1:\d+\/api answered 404 Not Found/m);
    assert.ok(r.stderr.includes(`Fix: MCP endpoints are usually at /mcp`), r.stderr);
    assert.ok(r.stderr.includes(`${s.origin}/mcp (Streamable HTTP) answers MCP`), r.stderr);
    assert.match(r.stderr, /mcpkit doctor TARGET shows every step/);
  } finally {
    await s.close();
  }
});

test('mcpkit inspect --json that cannot connect: { error, diagnosis }', async () => {
  const r = await mcpkit(['inspect', EXITS_LINE, '--json', ...CALM]);
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout);
  assert.match(out.error.message, /exited with code 1/);
  assert.equal(out.diagnosis.failure.code, 'exited-at-start');
  assert.equal(out.diagnosis.failure.step, 'start');
  assert.match(r.stderr, /^Failing step: start \[exited-at-start\]$/m);
  assert.match(r.stderr, /^Fix: the server needs WEATHER_API_KEY: pass it with -e WEATHER_API_KEY=VALUE/m);
});

test('on a 401, inspect diagnoses without registering a client; doctor registers one to check the redirect URI', async () => {
  const s = await servers.needsSignIn();
  try {
    const registrations = () => s.seen.filter((r) => r.method === 'POST' && r.path === '/register').length;
    const r = await mcpkit(['inspect', s.url, '--no-oauth', '--json', ...CALM]);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.equal(out.diagnosis.failure.code, 'sign-in-required');
    assert.match(out.diagnosis.steps.find((x: { step: string }) => x.step === 'registration').detail, /not tried/);
    assert.equal(registrations(), 0, 'inspect registered a client');
    const d = await mcpkit(['doctor', s.url, '--redirect-port', '41234', ...CALM]);
    assert.equal(d.code, 1);
    assert.equal(registrations(), 1);
    assert.match(d.stdout, /registered a client with redirect URI http:\/\/127\.0\.0\.1:41234\/callback/);
  } finally {
    await s.close();
  }
});

test('help: mcpkit doctor --help, and the command in mcpkit --help', async () => {
  const r = await mcpkit(['doctor', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Usage: mcpkit doctor TARGET/);
  assert.match(r.stdout, /--origin URL/);
  const all = await mcpkit(['--help']);
  assert.match(all.stdout, /mcpkit doctor TARGET +every step of connecting/);
});
