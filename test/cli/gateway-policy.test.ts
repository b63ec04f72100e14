// mcpkit gateway as a real process with a "policy" section in its config: API keys (one from an
// environment variable, one as a digest) in front, each caller's own tools, a rate limit refused
// with retryAfterMs, and the call log written by the time the process exits. A broken policy, or
// --api-key beside policy.auth, is a usage error naming the problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import type { McpClient } from '../../src/client/client.js';
import { cleanEnv, mcpkit, ROOT } from './helpers.js';
import { gatewayBackend, tempDir, waitFor, within } from '../support/index.js';

const ALICE_KEY = 'cli-alice-key-77';
const BOB_KEY = 'cli-bob-key-88';
const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

function policy(log: string) {
  return {
    auth: {
      apiKeys: {
        'env:GW_ALICE_KEY': { id: 'alice', groups: ['dev'] },
        [`sha256:${createHash('sha256').update(BOB_KEY).digest('hex')}`]: { id: 'bob', groups: ['ops'] },
      },
    },
    visibility: [{ when: { group: 'dev' }, allow: ['one_*'] }, { when: { group: 'ops' }, allow: ['one_echo'] }, { deny: ['one_wait'] }],
    limits: { rules: [{ name: 'echo', items: ['one_echo'], limit: 2, windowMs: 600_000 }] },
    callLog: { to: log },
  };
}

test('mcpkit gateway with a policy: API keys, per-caller tools, a rate limit, the call log', async (t) => {
  const dir = tempDir('gateway-policy-cli');
  const file = join(dir, 'gateway.json');
  const log = join(dir, 'calls.jsonl');
  writeFileSync(file, JSON.stringify({ mcpServers: { one: gatewayBackend('cli-policy') }, policy: policy(log) }));
  const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'gateway', '--config', file, '--port', '0', '--no-watch'], {
    cwd: ROOT,
    env: cleanEnv({ GW_ALICE_KEY: ALICE_KEY }),
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
  const clients: McpClient[] = [];
  t.after(() => Promise.all(clients.map((c) => c.close())));
  const as = async (key: string) => {
    const c = await connect({ url, headers: { authorization: `Bearer ${key}` } });
    clients.push(c);
    return c;
  };
  const alice = await as(ALICE_KEY);
  const bob = await as(BOB_KEY);
  assert.deepEqual((await alice.listTools()).tools.map((x) => x.name).sort(), ['one_ask', 'one_cancelled', 'one_echo', 'one_pid']);
  assert.deepEqual(
    (await bob.listTools()).tools.map((x) => x.name),
    ['one_echo'],
  );
  await assert.rejects(connect(url), /401/);

  assert.equal(text(await alice.callTool('one_echo', { text: 'a' })), 'echo:a');
  assert.equal(text(await alice.callTool('one_echo', { text: 'b' })), 'echo:b');
  await assert.rejects(alice.callTool('one_echo', { text: 'c' }), (e: Error & { code?: number; data?: { retryAfterMs?: number } }) => {
    assert.equal(e.code, -32029);
    assert.ok((e.data?.retryAfterMs ?? 0) > 0, JSON.stringify(e.data));
    return true;
  });
  assert.equal(text(await bob.callTool('one_echo', { text: 'd' })), 'echo:d');
  await Promise.all(clients.splice(0).map((c) => c.close()));

  child.kill('SIGTERM');
  assert.equal(await within(exited, 'the gateway to exit'), 0);
  const lines = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { caller: string; item: string; outcome: string });
  assert.deepEqual(
    lines.map((l) => `${l.caller} ${l.item} ${l.outcome}`),
    ['alice one_echo ok', 'alice one_echo ok', 'alice one_echo refused', 'bob one_echo ok'],
  );
  assert.ok(!out.includes(ALICE_KEY) && !err.includes(ALICE_KEY));
});

test('a broken policy section, an unset key variable, or --api-key beside policy.auth: usage errors', async () => {
  const dir = tempDir('gateway-policy-cli');
  const write = (name: string, p: unknown) => {
    const f = join(dir, name);
    writeFileSync(f, JSON.stringify({ mcpServers: { one: gatewayBackend('cli-policy-bad') }, policy: p }));
    return f;
  };
  const broken = await mcpkit(['gateway', '--config', write('broken.json', { limits: { rules: [{ limit: 5 }] } }), '--port', '0'], { env: cleanEnv() });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /policy\.limits\.rules\[0\]\.windowMs: must be a positive number/);
  const unset = await mcpkit(['gateway', '--config', write('unset.json', policy(join(dir, 'x.jsonl'))), '--port', '0'], { env: cleanEnv() });
  assert.equal(unset.code, 2);
  assert.match(unset.stderr, /environment variable GW_ALICE_KEY, which is not set/);
  const both = await mcpkit(['gateway', '--config', write('both.json', policy(join(dir, 'y.jsonl'))), '--port', '0', '--api-key', 'k'], {
    env: cleanEnv({ GW_ALICE_KEY: ALICE_KEY }),
  });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--api-key cannot be combined with the config's "policy.auth"/);
});
