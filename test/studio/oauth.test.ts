// OAuth sign-in in the studio, end to end in headless Chromium: an mcpkit server whose resource
// guard verifies the JWTs of mcpkit's own authorization server. The page shows each step (the 401,
// both metadata documents, the dynamic registration, PKCE and the authorization URL); the sign-in
// happens in a browser tab that the authorization server sends back to the studio's callback; the
// token, then a refresh after the server refuses the first token. Tokens never reach the page.
// Then with a pre-registered client; and the callback attacked (a wrong state, a foreign Host).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { jwtAccessTokens } from '../../src/serving/http/jwt-access-token.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { serveAuthorizationServer, type RunningAuthorizationServer } from '../../src/serving/oauth-server/node.js';
import type { AuthorizationServerOptions } from '../../src/serving/oauth-server/options.js';
import { autoApprove } from '../../src/serving/oauth-server/server.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RunningStudio } from '../../src/studio/http.js';
import type { OAuthView } from '../../src/studio/oauth-steps.js';
import { ROOT } from '../cli/helpers.js';
import { waitFor } from '../support/index.js';
import { apiCall, connectedIn, launchChromium, raw, signIn, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');

describe('OAuth sign-in in the studio', () => {
  let as: RunningAuthorizationServer;
  let mcp: RunningServer;
  let browser: Browser;
  /** Tokens the server saw, and the ones it now refuses. */
  const seen: string[] = [];
  const revoked = new Set<string>();
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    as = await serveAuthorizationServer(
      {
        login: autoApprove('alice'),
        onError: () => {},
        scopesSupported: ['mcp:tools', 'offline_access'],
        clients: [{ client_id: 'studio-pre-registered', redirect_uris: ['http://127.0.0.1/oauth/callback'] }],
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
          seen.push(token);
          return revoked.has(token) ? undefined : verify(token, req, resource);
        },
      },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await mcp?.close();
    await as?.close();
  });

  async function open(studio: RunningStudio): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
    await page.goto(studio.url);
    await page.click('[data-server="protected"]');
    await page.click('[data-tab="auth"]');
    return page;
  }

  /** The person clicks the link; the new tab goes to the authorization server and comes back to the studio. */
  async function signInInTab(page: Page): Promise<string> {
    const [tab] = await Promise.all([page.context().waitForEvent('page'), page.click('[data-testid="sign-in-link"]')]);
    await tab.waitForLoadState();
    await tab.waitForURL(/\/oauth\/callback\?/);
    const text = (await tab.textContent('body')) ?? '';
    await tab.close();
    return text;
  }

  const view = (studio: RunningStudio): OAuthView => studio.hub.auth.view('protected');

  test('dynamic registration: every step shown, the sign-in in a tab, a token, then a refresh', async () => {
    const studio = await startTestStudio({ servers: [{ name: 'protected', origin: 'command-line', target: resolveTarget(mcp.url) }] });
    try {
      const page = await open(studio);
      await page.waitForSelector('[data-testid="sign-in-link"]');
      for (const kind of ['challenge', 'resource-metadata', 'server-metadata', 'registration']) await page.waitForSelector(`.auth-step[data-step="${kind}"]`);
      assert.equal(await page.getAttribute('.auth-step[data-step="registration"]', 'data-status'), 'ok');
      const auth = await page.waitForSelector('.auth-step[data-step="authorization"][data-status="waiting"]');
      assert.match((await auth.textContent()) ?? '', /code_challenge_methodS256/);
      // An exchange opened: the registration, as sent and answered.
      await page.click('.auth-step[data-step="registration"] button.link');
      await page.waitForSelector('.auth-step[data-step="registration"] .exchange:has-text("redirect_uris")');
      await page.screenshot({ path: join(SHOTS, 'oauth-steps.png'), fullPage: true });

      assert.match(await signInInTab(page), /Signed in for protected/);
      await page.waitForSelector('[data-testid="auth-state"]:has-text("signed in")');
      await page.waitForSelector('.auth-step[data-step="callback"][data-status="ok"]');
      const token = await page.waitForSelector('.auth-step[data-step="token"][data-status="ok"]');
      const tokenText = (await token.textContent()) ?? '';
      assert.match(tokenText, /BASE64URL\(SHA256\(code_verifier\)\) = code_challenge ✓/);
      assert.match(tokenText, /refresh_tokenissued/);
      await page.waitForSelector('.auth-step[data-step="authorized"]');
      assert.equal(await page.textContent('[data-testid="auth-registration"]'), 'dynamic registration');
      await connectedIn(page, studio, 'protected');
      const first = await studio.hub.client('protected')!.callTool('whoami', {});
      assert.deepEqual(first.content, [{ type: 'text', text: 'you are alice' }]);

      // The server stops taking the token: the client refreshes it, without the browser.
      const steps = view(studio).steps.length;
      for (const t of seen) revoked.add(t);
      const again = await studio.hub.client('protected')!.callTool('whoami', {});
      assert.deepEqual(again.content, [{ type: 'text', text: 'you are alice' }]);
      await page.waitForSelector('.auth-step[data-step="refresh"][data-status="ok"]');
      assert.ok(
        view(studio)
          .steps.slice(steps)
          .some((s) => s.kind === 'authorized'),
      );
      await page.screenshot({ path: join(SHOTS, 'oauth-refreshed.png'), fullPage: true });

      // No token, refresh token or code in clear, anywhere the page reads.
      const tokens = (
        studio.hub.auth as unknown as { servers: Map<string, { auth: { tokens?: { access_token: string; refresh_token?: string } } }> }
      ).servers.get('protected')!.auth.tokens!;
      const secrets = [...seen, tokens.access_token, tokens.refresh_token!];
      const s = await signIn(studio);
      for (const path of ['/api/servers/protected/oauth', '/api/timeline', '/api/state']) {
        const body = (await apiCall(s, path)).body;
        for (const secret of secrets) assert.ok(!body.includes(secret), `${path} carries a token`);
      }
      const html = await page.content();
      for (const secret of secrets) assert.ok(!html.includes(secret), 'the page shows a token');
      // Signed out: the tokens are forgotten, and said so.
      await page.click('button:has-text("Sign out")');
      await page.waitForSelector('.auth-step[data-step="signed-out"]');
      await page.waitForSelector('[data-testid="auth-state"]:has-text("not signed in")');
      await page.close();
    } finally {
      await studio.close();
    }
  });

  test('a pre-registered client: no registration, said so', async () => {
    const studio = await startTestStudio({
      servers: [{ name: 'protected', origin: 'command-line', target: resolveTarget(mcp.url) }],
      oauth: { clientId: 'studio-pre-registered' },
    });
    try {
      const page = await open(studio);
      await page.waitForSelector('.auth-step[data-step="client"]:has-text("pre-registered")');
      await page.waitForSelector('[data-testid="sign-in-link"]');
      assert.match(await signInInTab(page), /Signed in/);
      await page.waitForSelector('.auth-step[data-step="token"][data-status="ok"]');
      assert.equal(await page.textContent('[data-testid="auth-registration"]'), 'pre-registered');
      assert.equal(await page.$('.auth-step[data-step="registration"]'), null);
      await page.close();
    } finally {
      await studio.close();
    }
  });

  test('the callback: a wrong or missing state does nothing; a foreign Host is refused even with the right one', async () => {
    const studio = await startTestStudio({ servers: [{ name: 'protected', origin: 'command-line', target: resolveTarget(mcp.url) }] });
    try {
      const waiting = await waitFor(() => view(studio).waiting, 'a sign-in waiting for the browser');
      const state = new URL(waiting.url).searchParams.get('state')!;
      const steps = view(studio).steps.length;
      for (const query of ['?code=stolen&state=guessed', '?code=stolen', `?error=access_denied&state=${state}x`]) {
        const r = await raw(`${studio.origin}/oauth/callback${query}`);
        assert.equal(r.status, 400, query);
        assert.match(r.body, /No sign-in of this studio waits/);
      }
      const rebound = await raw(`${studio.origin}/oauth/callback?code=stolen&state=${state}`, { headers: { Host: `evil.example:${studio.port}` } });
      assert.equal(rebound.status, 403);
      assert.ok(view(studio).waiting, 'the sign-in still waits');
      assert.equal(view(studio).steps.length, steps, 'no step was taken');
      // Cancelled from the page's API: the sign-in gives up.
      const s = await signIn(studio);
      assert.equal(JSON.parse((await apiCall(s, '/api/servers/protected/oauth/cancel', {})).body).cancelled, true);
      await waitFor(() => view(studio).waiting === undefined, 'the sign-in to give up');
    } finally {
      await studio.close();
    }
  });

  test('no error in the pages', () => {
    assert.deepEqual(pageErrors, []);
  });
});
