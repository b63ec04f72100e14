// Code mode's own tools under the gateway's policy, in a real `mcpkit gateway --code-mode` process
// (the built CLI) with a rate limit and a JSON-lines call log file from its config: run_code and
// search_api count against the limits and are logged like any call (run_code's line after its
// program's calls); a run_code over the limit is refused with the gateway's refusal code and
// nothing of its program runs. Then `gateway.codeMode.limits` changes and SIGHUP reloads it: the
// client is told the tools changed, run_code describes the new limits and programs are held to
// them. And with `watch`, a file change turns code mode on and off while a client stays connected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { createGateway, type GatewayEvent } from '../../src/gateway/gateway.js';
import { startListeningProcess } from '../cli/helpers.js';
import { gatewayBackend, tempDir, waitFor, within } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

test('mcpkit gateway --code-mode: run_code is rate limited and logged like any call; SIGHUP reloads gateway.codeMode.limits', async (t) => {
  const dir = tempDir('code-mode-policy');
  const file = join(dir, 'gateway.json');
  const logFile = join(dir, 'calls.jsonl');
  const config = (limits: Record<string, number>) => ({
    mcpServers: { one: gatewayBackend('code-policy-one') },
    gateway: { codeMode: { limits } },
    policy: {
      limits: { rules: [{ name: 'programs', items: ['run_code'], limit: 2, windowMs: 3_600_000 }] },
      callLog: { to: logFile, arguments: 'keys' },
    },
  });
  writeFileSync(file, JSON.stringify(config({ toolCalls: 5 })));
  const gateway = await startListeningProcess(['gateway', '--config', file, '--code-mode', '--port', '0', '--no-watch']);
  const { child, url } = gateway;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const client = await connect(url, { era: 'handshake' });
  t.after(() => client.close());
  const tools = async () => (await client.listTools()).tools;
  // The backend connects after the gateway listens: wait until its tools are in the API.
  await waitFor(async () => /function echo\(/.test((await tools())[1]?.description ?? ''), { what: 'the backend in the API', intervalMs: 50 });
  assert.deepEqual(
    (await tools()).map((x) => x.name),
    ['search_api', 'run_code'],
  );
  assert.match((await tools())[1]?.description ?? '', /5 tool calls/);

  assert.match(text(await client.callTool('search_api', { query: 'echo text' })), /function echo\(/);
  const program = 'const a = await one.echo({ text: "a" });\nconst b = await one.echo({ text: "b" });\nreturn [a, b];';
  assert.match(text(await client.callTool('run_code', { code: program })), /^Returned:\n/);
  assert.match(text(await client.callTool('run_code', { code: 'return 1;' })), /^Returned:\n1\n/);
  // The third program is over the limit: refused as a direct call is, before anything runs.
  const refused = await client.callTool('run_code', { code: 'await one.echo({ text: "never" });\nreturn 2;' }).then(
    () => assert.fail('the third run_code was not refused'),
    (e: unknown) => e,
  );
  assert.ok(refused instanceof McpError);
  assert.equal(refused.code, -32029);
  assert.match(refused.message, /Rate limit "programs" reached \(2 calls per 3600s\)/);
  assert.equal((refused.data as { retryAfterMs?: number }).retryAfterMs !== undefined, true);

  // SIGHUP: the file's code mode limits are read again (the --code-mode flag keeps it on).
  let changed = 0;
  client.on('notifications/tools/list_changed', () => changed++);
  writeFileSync(file, JSON.stringify(config({ toolCalls: 1 })));
  child.kill('SIGHUP');
  await waitFor(() => changed > 0 && /reloaded:/.test(gateway.stderr()), 'the reload and its tools/list_changed');
  assert.match((await tools())[1]?.description ?? '', /1 tool calls/);

  child.kill('SIGTERM');
  assert.equal(await within(exited, 'the gateway to exit'), 0);
  // The call log, one JSON object a line, flushed at exit.
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    lines.map((l) => `${l.item} ${l.outcome}`),
    ['search_api ok', 'one_echo ok', 'one_echo ok', 'run_code ok', 'run_code ok', 'run_code refused'],
  );
  const run = lines[3] as Record<string, unknown>;
  assert.equal(run.caller, 'anonymous');
  assert.equal(run.method, 'tools/call');
  assert.equal(run.kind, 'tool');
  assert.equal('server' in run, false, "the gateway's own tool has no server");
  assert.deepEqual(run.arguments, ['code']);
  assert.equal(typeof run.durationMs, 'number');
  assert.match(String(lines[5]?.error), /Rate limit "programs" reached/);
  assert.equal(lines[1]?.server, 'one');
});

test('gateway.codeMode follows the config file: a change turns code mode on, to other limits, and off, the session kept', async (t) => {
  const dir = tempDir('code-mode-reload');
  const file = join(dir, 'gateway.json');
  // As editors save: a new file renamed over the old one.
  const write = (codeMode: unknown) => {
    writeFileSync(`${file}.tmp`, JSON.stringify({ mcpServers: { one: gatewayBackend('code-reload-one') }, gateway: { codeMode } }));
    renameSync(`${file}.tmp`, file);
  };
  write(false);
  const events: GatewayEvent[] = [];
  const gateway = createGateway({ config: file, watch: true, era: 'modern', onEvent: (e) => events.push(e) });
  const running = await gateway.listen({ port: 0 });
  t.after(() => gateway.close());
  await gateway.ready;
  const client = await connect(running.url, { era: 'handshake' });
  t.after(() => client.close());
  let changes = 0;
  client.on('notifications/tools/list_changed', () => changes++);
  const names = async () => (await client.listTools()).tools.map((x) => x.name).sort();
  const reloads = () => events.filter((e) => e.type === 'reloaded').length;
  assert.deepEqual(await names(), ['one_ask', 'one_cancelled', 'one_echo', 'one_pid', 'one_wait']);
  const session = client.sessionState;

  // On, with a limit of one tool call a program.
  write({ limits: { toolCalls: 1 } });
  // (A save may fire the watch more than once: wait on what the client sees, not on counts.)
  await waitFor(async () => changes >= 1 && (await names()).includes('run_code'), { what: 'the reload turning code mode on', intervalMs: 50 });
  assert.deepEqual(await names(), ['run_code', 'search_api']);
  const two = 'const a = await one.echo({ text: "a" });\nconst b = await one.echo({ text: "b" });\nreturn [a, b];';
  const limited = await client.callTool('run_code', { code: two });
  assert.equal(limited.isError, true);
  assert.match(text(limited), /at line 2, column \d+: .*one\.echo was not called: a program may make at most 1 tool calls/);
  await assert.rejects(client.callTool('one_echo', { text: 'x' }), /Unknown tool: one_echo/);

  // Other limits: the same program now runs.
  write({ limits: { toolCalls: 3 } });
  const described = async () => (await client.listTools()).tools.find((x) => x.name === 'run_code')?.description ?? '';
  await waitFor(async () => changes >= 2 && /3 tool calls/.test(await described()), { what: 'the reload changing the limits', intervalMs: 50 });
  assert.match(text(await client.callTool('run_code', { code: two })), /^Returned:\n\["echo:a","echo:b"\]/);

  // Off: the backends' tools again, in the same session.
  write(false);
  await waitFor(async () => changes >= 3 && (await names()).includes('one_echo'), { what: 'the reload turning code mode off', intervalMs: 50 });
  assert.deepEqual(await names(), ['one_ask', 'one_cancelled', 'one_echo', 'one_pid', 'one_wait']);
  assert.equal(text(await client.callTool('one_echo', { text: 'back' })), 'echo:back');
  await assert.rejects(client.callTool('run_code', { code: 'return 1' }), /Unknown tool: run_code/);
  assert.deepEqual(client.sessionState, session);

  // A change that leaves code mode as it was tells nobody the tools changed.
  const before = { reloads: reloads(), changes };
  write(false);
  await waitFor(() => reloads() > before.reloads, 'a reload that changes nothing');
  assert.equal(changes, before.changes);
});
