// `mcpkit studio` as a user runs it: the address it prints (loopback, with a token), the servers
// it connects, the warning when bound elsewhere, and a clean stop on Ctrl-C.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer } from '../../src/serving/node.js';
import { run } from '../../src/cli/run.js';
import { cleanEnv, mcpkit, testIo } from '../cli/helpers.js';
import { startDemoHttp, tempDir, waitFor } from '../support/index.js';
import { apiCall, raw, studioAssets, type Session } from './helpers.js';

describe('mcpkit studio', () => {
  let demo: RunningServer;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    demo = await startDemoHttp();
    env = cleanEnv({ MCPKIT_STUDIO_ASSETS: (await studioAssets()).dir });
  });
  after(() => demo?.close());

  test('--help says what it does and how it is protected', async () => {
    const r = await mcpkit(['studio', '--help'], { env });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /127\.0\.0\.1/);
    assert.match(r.stdout, /access token/);
    assert.match(r.stdout, /confirm/);
  });

  test('prints a loopback address with a token, connects its targets, stops on Ctrl-C', async () => {
    const io = testIo({ env });
    const done = run(['studio', '--no-open', demo.url], io);
    const url = await waitFor(() => /mcpkit studio: (http:\/\/\S+)/.exec(io.out())?.[1], 'the address');
    const u = new URL(url);
    assert.equal(u.hostname, '127.0.0.1');
    assert.ok((u.searchParams.get('token') ?? '').length >= 22);
    assert.equal((await raw(url)).status, 303);
    await waitFor(() => /✓ .*: connected \(2026-07-28\)/.test(io.err()), 'the demo server connected');
    io.signal('SIGINT');
    assert.equal(await done, 0);
    await assert.rejects(raw(url), /ECONNREFUSED/);
  });

  test('a target that cannot start is diagnosed by the connection doctor, step by step', async () => {
    const io = testIo({ env });
    const done = run(['studio', '--no-open', 'mcpkit-studio-cli-no-such-command --flag'], io);
    const url = await waitFor(() => /mcpkit studio: (http:\/\/\S+)/.exec(io.out())?.[1], 'the address');
    const first = await raw(url);
    const cookie = String([first.headers['set-cookie']].flat()[0]).split(';')[0]!;
    const origin = new URL(url).origin;
    const page = await raw(`${origin}/`, { headers: { Cookie: cookie } });
    const key = /name="mcpkit-studio-key" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const session: Session = { cookie, key, origin, host: new URL(origin).host };
    type State = { servers: Array<{ diagnosis?: { by: string; step: string; problem: string; fix?: string } }> };
    const diagnosis = await waitFor(async () => {
      const r = await apiCall(session, '/api/state');
      return (JSON.parse(r.body) as State).servers.find((x) => x.diagnosis?.by === 'doctor')?.diagnosis;
    }, "the doctor's diagnosis");
    assert.match(diagnosis.problem, /mcpkit-studio-cli-no-such-command/);
    assert.match(diagnosis.fix ?? '', /PATH/);
    io.signal('SIGINT');
    assert.equal(await done, 0);
  });

  test('bound to another address, it warns that the token is all that protects it', async () => {
    const io = testIo({ env });
    const done = run(['studio', '--no-open', '--host', '0.0.0.0'], io);
    await waitFor(() => io.out().includes('mcpkit studio: '), 'the address');
    assert.match(io.err(), /other machines can reach the studio/);
    io.signal('SIGINT');
    assert.equal(await done, 0);
  });

  test('--model gives the chat panel a model; its key is read from the environment, never shown', async () => {
    const dir = tempDir('studio-cli-model');
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {}, model: { provider: 'anthropic', model: 'claude-test', apiKeyEnv: 'MY_MODEL_KEY' } }));
    const io = testIo({ env: { ...env, MY_MODEL_KEY: 'sk-cli-SECRET' } });
    const done = run(['studio', '--no-open', '--config', config], io);
    const url = await waitFor(() => /mcpkit studio: (http:\/\/\S+)/.exec(io.out())?.[1], 'the address');
    const first = await raw(url);
    const cookie = String([first.headers['set-cookie']].flat()[0]).split(';')[0]!;
    const origin = new URL(url).origin;
    const key = /name="mcpkit-studio-key" content="([^"]+)"/.exec((await raw(`${origin}/`, { headers: { Cookie: cookie } })).body)?.[1] ?? '';
    const r = await apiCall({ cookie, key, origin, host: new URL(origin).host }, '/api/chat');
    const info = JSON.parse(r.body);
    assert.equal(info.configured, true);
    assert.equal(info.provider, 'anthropic');
    assert.equal(info.model, 'claude-test');
    assert.doesNotMatch(r.body, /SECRET/);
    io.signal('SIGINT');
    assert.equal(await done, 0);
    // On the command line, --model wins over the file; a variable that is not set is a usage mistake.
    const bad = await mcpkit(['studio', '--no-open', '--model', 'gpt-x', '--api-key-env', 'NOT_SET_ANYWHERE'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /NOT_SET_ANYWHERE/);
  });

  test('a usage mistake is exit code 2', async () => {
    const r = await mcpkit(['studio', '--bogus'], { env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /studio: Unknown option '--bogus'/);
  });
});
