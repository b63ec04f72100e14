// Signing in from the CLI: a URL target whose server wants OAuth. The real CLI runs as a child
// process; this test plays the user's browser (it follows the sign-in URL the CLI prints to the
// authorization server, whose redirect lands on the CLI's 127.0.0.1 listener).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { startMockAs, type MockAs } from '../fixtures/oauth/authorization-server.js';
import { CLI, cleanEnv, mcpkit, ROOT, withBrowser } from './helpers.js';
import { patient } from '../support/index.js';

let as: MockAs;
let running: RunningServer;

before(async () => {
  as = await startMockAs({ scopesSupported: ['mcp:read'] });
  const mcp = new McpServer({ name: 'oauth-cli', version: '1.0.0' });
  mcp.tool('whoami', (_a, ctx) => `you are ${ctx.authInfo?.principal}`);
  running = await serve(mcp, {
    port: 0,
    oauth: {
      authorizationServers: [as.issuer],
      verifyToken: (token) => as.verifyToken(token),
      requiredScopes: ['mcp:read'],
    },
  });
});
after(async () => {
  await running?.close();
  await as?.close();
});

describe('mcpkit against an OAuth-protected server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-oauth-'));
  const file = join(dir, 'tokens.json');

  test('--no-oauth: the 401 is reported with what to do about it', async () => {
    const r = await mcpkit(['tools', running.url, '--no-oauth']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /needs authorization \(HTTP 401\)/);
  });

  test('without a terminal and without stored tokens, no sign-in is started', async () => {
    const before = as.requests.length;
    const r = await mcpkit(['tools', running.url, '--oauth-file', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /needs authorization/);
    assert.equal(as.requests.length, before, 'the authorization server was not contacted');
  });

  test('--oauth signs in through the browser and keeps the tokens in a user-only file', async () => {
    const r = await withBrowser(['call', running.url, 'whoami', '--oauth', '--no-browser', '--oauth-file', file], cleanEnv());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.signIns, 1);
    assert.match(r.stdout, /you are client-\d+/);
    assert.ok(existsSync(file));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as {
      clients: Record<string, unknown>;
      tokens: Record<string, { tokens: { access_token: string } }>;
      dpopKey?: unknown;
    };
    assert.ok(kept.clients[as.issuer], 'the registration is kept under the issuer');
    assert.equal(Object.keys(kept.tokens).length, 1);
    assert.equal(kept.dpopKey, undefined, 'bearer tokens: no DPoP key is written');
    const authorize = as.requests.filter((q) => q.path === '/authorize');
    assert.equal(authorize.length, 1);
    assert.equal(authorize[0]!.query.get('resource'), running.url);
    assert.match(authorize[0]!.query.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  });

  test('the next command uses the kept token: no sign-in, even without a terminal', async () => {
    const authorizeBefore = as.requests.filter((q) => q.path === '/authorize').length;
    const r = await mcpkit(['call', running.url, 'whoami', '--oauth-file', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /you are client-\d+/);
    assert.equal(as.requests.filter((q) => q.path === '/authorize').length, authorizeBefore);
  });

  test('an expired token is refreshed without asking the user', async () => {
    as.expireAll();
    const authorizeBefore = as.requests.filter((q) => q.path === '/authorize').length;
    const r = await mcpkit(['call', running.url, 'whoami', '--oauth-file', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(as.requests.filter((q) => q.path === '/authorize').length, authorizeBefore);
    assert.ok(as.requests.some((q) => q.path === '/token' && q.form?.get('grant_type') === 'refresh_token'));
  });

  test('--client-credentials with a registered client, no browser', async () => {
    as.clients.set('ci-bot', { client_id: 'ci-bot', client_secret: 's3cret', method: 'client_secret_basic' });
    const r = await mcpkit(['call', running.url, 'whoami', '--client-credentials', '--client-id', 'ci-bot', '--oauth-file', join(dir, 'bot.json')], {
      env: cleanEnv({ MCPKIT_CLIENT_SECRET: 's3cret' }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /you are ci-bot/);
  });

  test('bridge --stdio-to-http signs in through the browser by default, without a terminal', async () => {
    const env = cleanEnv();
    const child = spawn(process.execPath, [...CLI, 'bridge', '--stdio-to-http', running.url, '--no-browser', '--oauth-file', join(dir, 'bridge.json')], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signedIn = false;
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
      const m = /visit:\s*\n\s*(http\S+)/.exec(stderr);
      if (m && !signedIn) {
        signedIn = true;
        void (async () => {
          const res = await fetch(m[1]!, { redirect: 'manual' });
          await fetch(res.headers.get('location')!);
        })();
      }
    });
    const lines: Array<{ id?: number; result?: { content?: Array<{ text?: string }> } }> = [];
    const answered = (id: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${id}\nstdout: ${stdout}\nstderr: ${stderr}`)), patient(20_000));
        const check = () => {
          if (lines.some((l) => l.id === id)) {
            clearTimeout(timer);
            resolve();
          } else setTimeout(check, 20);
        };
        check();
      });
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
      const parts = stdout.split('\n');
      stdout = parts.pop()!;
      for (const p of parts) if (p.trim()) lines.push(JSON.parse(p));
    });
    try {
      const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
      });
      await answered(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
      await answered(2);
      assert.ok(signedIn, stderr);
      assert.match(lines.find((l) => l.id === 2)?.result?.content?.[0]?.text ?? '', /you are client-\d+/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
