// The connection doctor against broken stdio servers (test/fixtures/doctor/stdio), each a real
// child process: the failing step, its code, and a summary and fix that name the cause. Silence
// and slowness are driven by a manual clock and a signal, never by waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, waitFor } from '../../support/index.js';
import { assertFailure, assertHealthy, fixture, node, run, SLOW_MS, start, TIMEOUT_MS } from './helpers.js';

test('command not found: the word is not on PATH and no config names it', async () => {
  const d = await run('doctor-no-such-command-xyz');
  assertFailure(d, 'spawn', 'command-not-found', {
    summary: ['`doctor-no-such-command-xyz` was not found on PATH', 'no mcpServers config names a server "doctor-no-such-command-xyz"'],
    fix: ['install it or give the full path'],
  });
});

test('command not found: a path to no file', async () => {
  const d = await run({ command: '/nonexistent/doctor/server' });
  assertFailure(d, 'spawn', 'command-not-found', { summary: ['there is no file /nonexistent/doctor/server'] });
});

test('command not found: the file is there, its #! interpreter is not', async () => {
  const d = await run({ command: fixture('missing-interpreter.mjs') });
  assertFailure(d, 'spawn', 'command-not-found', { summary: ['its interpreter', '/nonexistent/bin/node'], fix: ['install node'] });
});

test('permission denied: a script without the execute bit', async () => {
  const d = await run({ command: fixture('not-executable.mjs') });
  assertFailure(d, 'spawn', 'permission-denied', { summary: ['not executable'], fix: ['chmod +x', 'node '] });
});

test('exits at start: the exit code, its stderr, and the variable it wants', async () => {
  const d = await run(node('exits-at-start.mjs'));
  assertFailure(d, 'start', 'exited-at-start', {
    summary: ['exited with code 1 before answering server/discover', 'Error: WEATHER_API_KEY is not set'],
    fix: ['-e WEATHER_API_KEY=VALUE', 'not your shell'],
  });
});

test('exits at start: a module that is not installed', async () => {
  const d = await run(node('missing-module.mjs'));
  assertFailure(d, 'start', 'exited-at-start', { summary: ['exited with code 1', 'doctor-fixture-package-that-does-not-exist'], fix: ['npm install'] });
});

test('stdout not JSON: a banner before the messages (the server works otherwise)', async () => {
  const d = await run(node('banner.mjs'));
  assertFailure(d, 'stdout', 'stdout-not-json', {
    summary: ['a line that is not JSON', 'Weather server listening on http://localhost:3000'],
    fix: ['only JSON-RPC messages to stdout', 'stderr', 'looks like an HTTP server'],
  });
  // Everything after the stray line still worked, and says so.
  for (const step of ['start', 'discover', 'initialize', 'list']) assert.ok(d.steps.find((s) => s.step === step)?.ok, step);
});

test('stdout not JSON: a JSON logger writing to stdout', async () => {
  const d = await run(node('json-logger.mjs'));
  assertFailure(d, 'stdout', 'stdout-not-json', { summary: ['a JSON line that is not a JSON-RPC message', 'server started'], fix: ['JSON logger', 'stderr'] });
});

test('no answer: the server runs and says nothing (the clock runs out, no waiting)', async () => {
  const ready = join(tempDir('doctor-silent'), 'ready');
  const { clock, events, running } = start(node('silent.mjs', { env: { READY_FILE: ready } }));
  await events.waiting('server/discover');
  // It has said on stderr what it waits for (the report quotes it) before time runs out.
  await waitFor(() => existsSync(ready), 'the silent server to start');
  clock.advance(SLOW_MS);
  // The era probe got nothing: initialize goes out too, as a client would send it.
  await events.waiting('initialize');
  clock.advance(TIMEOUT_MS);
  const d = await running;
  assertFailure(d, 'start', 'no-answer', {
    summary: ['answered nothing within 60 s', 'server/discover, then initialize', 'waiting for the config wizard'],
    fix: ['stdio mode', '--stdio'],
  });
});

test('slow start: the answers come after the slow mark (the server is released by a signal)', async () => {
  const ready = join(tempDir('doctor-slow'), 'ready');
  const { clock, events, running } = start(node('slow-start.mjs', { env: { READY_FILE: ready } }));
  await events.waiting('server/discover');
  clock.advance(SLOW_MS + 1000);
  await events.waiting('initialize');
  await waitFor(() => existsSync(ready), 'the slow server to take signals');
  process.kill(events.pid(), 'SIGUSR1');
  const d = await running;
  assertFailure(d, 'start', 'slow-start', { summary: ['took 6 s to answer its first request', 'installing or downloading'], fix: ['npx'] });
  for (const step of ['discover', 'initialize', 'list']) assert.ok(d.steps.find((s) => s.step === step)?.ok, step);
});

test('version mismatch: initialize answered with a revision nobody speaks', async () => {
  const d = await run(node('wrong-version.mjs'));
  assertFailure(d, 'initialize', 'version-mismatch', { summary: ['protocol "1.0"', 'does not speak'], fix: ['2025-11-25'] });
});

test('version mismatch: server/discover lists only a revision mcpkit does not speak', async () => {
  const d = await run(node('future-only.mjs'));
  assertFailure(d, 'discover', 'version-mismatch', { summary: ['2099-01-01', 'none of which mcpkit speaks'], fix: ['update mcpkit'] });
});

test('era mismatch: initialize answered with 2026-07-28, a revision without initialize', async () => {
  const d = await run(node('mixed-eras.mjs'));
  assertFailure(d, 'initialize', 'era-mismatch', { summary: ['protocol 2026-07-28, a revision that has no initialize'], fix: ['mixes the eras'] });
});

test('exited: the server dies while answering tools/list', async () => {
  const d = await run(node('crashes-on-list.mjs'));
  assertFailure(d, 'list', 'exited', { summary: ['exited with code 1 while answering tools/list', "reading 'map'"] });
  assert.ok(d.steps.find((s) => s.step === 'initialize')?.ok);
});

test('list failed: tools/list answers an error', async () => {
  const d = await run(node('list-error.mjs'));
  assertFailure(d, 'list', 'list-failed', { summary: ['tools/list answered error -32603', 'database connection refused'] });
});

test('not MCP: a JSON-RPC server that knows neither server/discover nor initialize', async () => {
  const d = await run(node('not-mcp.mjs'));
  assertFailure(d, 'initialize', 'not-mcp', { summary: ['neither server/discover nor initialize'] });
});

test('a legacy server that exits on the era probe is started again and initialized: every step passes', async () => {
  const d = await run(node('exits-on-probe.mjs'));
  assertHealthy(d, ['spawn', 'discover', 'restart', 'start', 'initialize', 'list']);
  assert.match(d.steps.find((s) => s.step === 'discover')!.detail, /exits on requests it does not know/);
});
