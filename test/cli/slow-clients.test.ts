// Slow clients (slowloris) against the HTTP servers of the CLI, `mcpkit serve` and
// `mcpkit gateway`, as built: a client trickling its headers, or its body, must be disconnected
// once the headers or body timeout has passed, instead of holding a connection for minutes;
// an SSE GET stream opened before them must still be open, and deliver, after they are gone.
// The timeouts are set small by flag; the test waits on socket events, never on the clock.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, ROOT } from './helpers.js';
import { gatewayBackend, tempDir, trickle, waitFor, within, patient } from '../support/index.js';

const MAIN = join(ROOT, 'dist/cli/main.js');
const VERSION = '2025-11-25';
const TIMEOUTS = ['--headers-timeout', '0.2', '--body-timeout', '0.4'];

const children: ChildProcess[] = [];
after(async () => {
  await Promise.allSettled(
    children.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    }),
  );
});

/** Runs the built CLI and waits for the URL it prints. */
async function start(args: string[]): Promise<{ child: ChildProcess; url: string; port: number; stderr(): string }> {
  assert.ok(existsSync(MAIN), 'dist/cli/main.js exists (run npm run build first)');
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c));
  child.stderr!.on('data', (c: Buffer) => (err += c));
  const url = await waitFor(() => /listening on (http:\/\/\S+\/mcp)/.exec(out)?.[1], {
    what: `mcpkit ${args[0]} to listen (stderr: ${err})`,
    timeoutMs: patient(60_000),
  });
  return { child, url, port: Number(new URL(url).port), stderr: () => err };
}

/** Both kinds of slow client on `port`: each is disconnected, with a 408 if anything is said. */
async function slowClientsAreCut(port: number): Promise<void> {
  const [headers, body] = await within(
    Promise.all([
      trickle(port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n'),
      trickle(
        port,
        'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000000\r\n\r\n',
        ' ',
      ),
    ]),
    'the server to disconnect the slow clients',
  );
  for (const [what, answer] of [
    ['slow headers', headers],
    ['slow body', body],
  ] as const) {
    assert.ok(answer === '' || answer.startsWith('HTTP/1.1 408'), `${what}: ${JSON.stringify(answer.slice(0, 80))}`);
  }
}

/** A handshake-era session (initialize + initialized), by raw HTTP: its id. */
async function openSession(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'slow-clients', version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id');
  assert.ok(sid);
  await init.text();
  const ready = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(ready.status, 202);
  return sid;
}

/** The session's GET stream: a function resolving once a message containing `text` arrived on it. */
async function getStream(url: string, sid: string): Promise<(text: string) => Promise<void>> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': VERSION } });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  return (text) =>
    within(
      (async () => {
        while (!seen.includes(text)) {
          const { done, value } = await reader.read();
          assert.ok(!done, `the GET stream ended before ${text} (it had: ${seen})`);
          seen += decoder.decode(value, { stream: true });
        }
      })(),
      `${text} on the GET stream`,
    );
}

describe('slow clients are disconnected; SSE streams are not', () => {
  test('mcpkit serve --headers-timeout --body-timeout', async () => {
    const s = await start(['serve', '--port', '0', ...TIMEOUTS]);
    const sid = await openSession(s.url);
    const heard = await getStream(s.url, sid);
    // Both slow clients start after the stream opened and are cut after their timeouts: by then
    // the stream is older than either timeout.
    await slowClientsAreCut(s.port);
    const call = await fetch(s.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'toggle_bonus_tool', arguments: {} } }),
    });
    assert.equal(call.status, 200);
    await call.text();
    await heard('notifications/tools/list_changed');
  });

  test('mcpkit gateway --headers-timeout --body-timeout', async () => {
    const file = join(tempDir('slow-gateway'), 'servers.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { one: gatewayBackend('slow-one') } }));
    const g = await start(['gateway', '--config', file, '--port', '0', '--no-watch', ...TIMEOUTS]);
    const sid = await openSession(g.url);
    const heard = await getStream(g.url, sid);
    await slowClientsAreCut(g.port);
    // A reload adds a server: the gateway's clients hear of it on their GET streams.
    writeFileSync(file, JSON.stringify({ mcpServers: { one: gatewayBackend('slow-one'), two: gatewayBackend('slow-two') } }));
    g.child.kill('SIGHUP');
    await heard('notifications/tools/list_changed');
  });

  test('a headers timeout longer than the body timeout is a usage error', async () => {
    const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--headers-timeout', '5', '--body-timeout', '1'], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c));
    const code = await within(new Promise((r) => child.once('exit', r)), 'serve to refuse the flags');
    assert.equal(code, 2, err);
    assert.match(err, /--headers-timeout: must not exceed --body-timeout/);
  });
});
