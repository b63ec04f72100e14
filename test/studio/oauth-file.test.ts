// `mcpkit studio --oauth-file FILE`, run twice as a user runs it, against an mcpkit server guarded
// by mcpkit's own authorization server. The first run signs in (the person's browser is played by
// plain HTTP: the authorization URL the page shows, its redirect to the studio's callback); the
// file is written for the user only (0600). The second run reuses the kept client and tokens: the
// server connects with no sign-in (the authorization server sees no second login, no second
// registration), and the Sign-in panel says where the token came from, without showing it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/cli/run.js';
import { jwtAccessTokens } from '../../src/serving/http/jwt-access-token.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { serveAuthorizationServer, type RunningAuthorizationServer } from '../../src/serving/oauth-server/node.js';
import type { AuthorizationServerOptions } from '../../src/serving/oauth-server/options.js';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RunningStudio } from '../../src/studio/http.js';
import type { OAuthView } from '../../src/studio/oauth-steps.js';
import { cleanEnv, mcpkit, testIo } from '../cli/helpers.js';
import { tempDir, waitFor } from '../support/index.js';
import { apiCall, raw, signIn, studioAssets, type Session } from './helpers.js';

describe('mcpkit studio --oauth-file', () => {
  let as: RunningAuthorizationServer;
  let mcp: RunningServer;
  let env: NodeJS.ProcessEnv;
  let logins = 0;
  const tokensSeen: string[] = [];

  before(async () => {
    as = await serveAuthorizationServer(
      {
        login: () => {
          logins++;
          return { subject: 'alice' };
        },
        onError: () => {},
        scopesSupported: ['mcp:tools', 'offline_access'],
      } as AuthorizationServerOptions,
      { port: 0 },
    );
    const verify = jwtAccessTokens({ issuer: as.issuer });
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.tool('whoami', { description: 'Who signed in' }, (_args, ctx) => `you are ${ctx.authInfo?.principal}`);
    mcp = await serve(server, {
      port: 0,
      oauth: {
        authorizationServers: [as.issuer],
        scopesSupported: ['mcp:tools'],
        requiredScopes: ['mcp:tools'],
        verifyToken: (token, req, resource) => {
          tokensSeen.push(token);
          return verify(token, req, resource);
        },
      },
    });
    env = cleanEnv({ MCPKIT_STUDIO_ASSETS: (await studioAssets()).dir });
  });
  after(async () => {
    await mcp?.close();
    await as?.close();
  });

  /** Starts `mcpkit studio`, signs in to its page's API; `stop()` is Ctrl-C. */
  async function startCli(args: string[]): Promise<{ s: Session; stop(): Promise<number>; err(): string }> {
    const io = testIo({ env });
    const done = run(['studio', '--no-open', ...args], io);
    const url = await waitFor(() => /mcpkit studio: (http:\/\/\S+)/.exec(io.out())?.[1], 'the address');
    const s = await signIn({ url, origin: new URL(url).origin } as RunningStudio);
    return {
      s,
      err: () => io.err(),
      stop: async () => {
        io.signal('SIGINT');
        return done;
      },
    };
  }

  // The studio names a URL target after it: its one server is the first of the state.
  const servers = async (s: Session) => (JSON.parse((await apiCall(s, '/api/state')).body) as { servers: Array<{ name: string; state: string }> }).servers;
  const path = async (s: Session, what: string) => `/api/servers/${encodeURIComponent((await servers(s))[0]!.name)}/${what}`;
  const oauthView = async (s: Session): Promise<OAuthView> => JSON.parse((await apiCall(s, await path(s, 'oauth'))).body) as OAuthView;
  const whoami = async (s: Session): Promise<string> => {
    const r = await apiCall(s, await path(s, 'call'), { name: 'whoami', arguments: {} });
    return JSON.stringify(JSON.parse(r.body).result?.content);
  };
  const connected = (s: Session) => waitFor(async () => (await servers(s))[0]?.state === 'connected', 'the protected server connected');

  test('the first run signs in and keeps the tokens in a 0600 file; the second signs in without you', async () => {
    const file = join(tempDir('studio-oauth-file'), 'sub', 'tokens.json');
    const first = await startCli(['--oauth-file', file, mcp.url]);
    try {
      const waiting = await waitFor(async () => (await oauthView(first.s)).waiting, 'a sign-in waiting for the browser');
      // The person's browser: the authorization server signs alice in and sends it back to the studio.
      const authorize = await fetch(waiting.url, { redirect: 'manual' });
      assert.equal(authorize.status, 302, await authorize.text());
      const back = new URL(authorize.headers.get('location')!);
      assert.equal(back.pathname, '/oauth/callback');
      const callback = await raw(back.href);
      assert.equal(callback.status, 200, callback.body);
      await connected(first.s);
      assert.match(await whoami(first.s), /you are alice/);
      const view = await oauthView(first.s);
      assert.equal(view.registration, 'dynamic registration');
      assert.equal(view.steps.filter((x) => x.kind === 'registration').length, 1);
    } finally {
      assert.equal(await first.stop(), 0);
    }
    assert.equal(logins, 1);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the file is the user’s only');
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { clients: Record<string, unknown>; tokens: Record<string, unknown> };
    assert.deepEqual(Object.keys(kept.clients), [as.issuer]);
    assert.equal(Object.keys(kept.tokens).length, 1);

    const second = await startCli(['--oauth-file', file, mcp.url]);
    try {
      await connected(second.s);
      assert.match(await whoami(second.s), /you are alice/);
      const view = await oauthView(second.s);
      assert.equal(view.signedIn, true);
      const kinds = view.steps.map((x) => x.kind);
      assert.ok(!kinds.includes('authorization'), `no sign-in: ${kinds.join(', ')}`);
      assert.ok(!kinds.includes('registration'), `no new registration: ${kinds.join(', ')}`);
      const step = view.steps.find((x) => x.title === 'Tokens kept from an earlier run');
      assert.ok(step, `a step says where the token came from: ${kinds.join(', ')}`);
      assert.ok(step.detail.includes(file), step.detail);
      assert.ok(kinds.includes('authorized'), 'the request went through with the kept token');
      // What the page reads never carries a token.
      for (const p of [await path(second.s, 'oauth'), '/api/state', '/api/timeline']) {
        const body = (await apiCall(second.s, p)).body;
        for (const t of tokensSeen) assert.ok(!body.includes(t), `${p} carries a token`);
      }
    } finally {
      assert.equal(await second.stop(), 0);
    }
    assert.equal(logins, 1, 'no second sign-in');
  });

  test('--oauth-file with --no-oauth is a usage mistake', async () => {
    const r = await mcpkit(['studio', '--no-open', '--no-oauth', '--oauth-file', 'x.json', mcp.url], { env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /contradict/);
  });
});
