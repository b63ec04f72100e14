// `mcpkit studio` as a user runs it: the address it prints (loopback, with a token), the servers
// it connects, the warning when bound elsewhere, and a clean stop on Ctrl-C.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningServer } from '../../src/hosting/node.js';
import { run } from '../../src/cli/run.js';
import { cleanEnv, mcpkit, testIo } from '../cli/helpers.js';
import { startDemoHttp, waitFor } from '../support/index.js';
import { raw, studioAssets } from './helpers.js';

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

  test('bound to another address, it warns that the token is all that protects it', async () => {
    const io = testIo({ env });
    const done = run(['studio', '--no-open', '--host', '0.0.0.0'], io);
    await waitFor(() => io.out().includes('mcpkit studio: '), 'the address');
    assert.match(io.err(), /other machines can reach the studio/);
    io.signal('SIGINT');
    assert.equal(await done, 0);
  });

  test('a usage mistake is exit code 2', async () => {
    const r = await mcpkit(['studio', '--bogus'], { env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /studio: Unknown option '--bogus'/);
  });
});
