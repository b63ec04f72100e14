// mcpkit gateway as a real process (the built CLI): it serves a config's servers, reloads the
// config on SIGHUP, stops on SIGTERM leaving no backend process behind; a missing or broken
// config is a usage error saying what is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import { cleanEnv, mcpkit, ROOT } from './helpers.js';
import { gatewayBackend, tempDir, waitFor, within } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('mcpkit gateway serves the config, reloads on SIGHUP, and stops cleanly on SIGTERM', async (t) => {
  const file = join(tempDir('gateway-cli'), 'servers.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { one: gatewayBackend('cli-one') } }));
  const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'gateway', '--config', file, '--port', '0', '--no-watch'], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (err += c));
  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 'the URL the gateway prints');
  const client = await connect(url, { era: 'handshake' });
  t.after(() => client.close());
  assert.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['one_ask', 'one_cancelled', 'one_echo', 'one_pid', 'one_wait']);
  const pid = Number(text(await client.callTool('one_pid', {})));
  assert.ok(alive(pid));

  let changed = 0;
  client.on('notifications/tools/list_changed', () => changed++);
  writeFileSync(file, JSON.stringify({ mcpServers: { one: gatewayBackend('cli-one'), two: { ...gatewayBackend('cli-two'), allow: ['echo'] } } }));
  child.kill('SIGHUP');
  await waitFor(() => changed > 0 && /reloaded: \+\[two\]/.test(err));
  assert.ok((await client.listTools()).tools.some((x) => x.name === 'two_echo'));
  assert.equal(Number(text(await client.callTool('one_pid', {}))), pid, 'SIGHUP left the unchanged server running');

  child.kill('SIGTERM');
  assert.equal(await within(exited, 'the gateway to exit'), 0);
  await waitFor(() => !alive(pid));
});

test('mcpkit gateway without --config, or with a broken one, is a usage error', async () => {
  const none = await mcpkit(['gateway']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--config FILE is required/);
  const file = join(tempDir('gateway-cli'), 'bad.json');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${ENV} syntax, written literally
  writeFileSync(file, JSON.stringify({ mcpServers: { x: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${NOT_SET_ANYWHERE}' } } } }));
  const bad = await mcpkit(['gateway', '--config', file, '--port', '0'], { env: cleanEnv() });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /uses \$\{NOT_SET_ANYWHERE\}, which is not set/);
  // A per-client server with nobody identified in front: 2026-07-28 callers would share it.
  const perClient = join(tempDir('gateway-cli'), 'per-client.json');
  writeFileSync(perClient, JSON.stringify({ mcpServers: { shell: { ...gatewayBackend('cli-per-client'), session: 'per-client' } } }));
  const refused = await mcpkit(['gateway', '--config', perClient, '--port', '0'], { env: cleanEnv() });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /server "shell" is "per-client"/);
  assert.match(refused.stderr, /no authentication in front/);
});
