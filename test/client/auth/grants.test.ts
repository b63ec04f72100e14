// The authorization code grant (MCP authorization §4.3 items 14, 15, 18, 20): PKCE S256 (and
// the refusal without it), state and RFC 9207 iss checks, the resource indicator on both
// requests, and which scope is asked for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import type { OAuthOptions } from '../../../src/client/auth/options.js';
import type { MockAsOptions } from '../../fixtures/oauth/authorization-server.js';
import { authorizations, browser, REDIRECT_URI, rpc, tokenRequests, type Setup, withSetup } from './fixture.js';

/** One request through a fresh OAuthClientAuth; resolves its HTTP status. */
async function signIn(s: Setup, options: Partial<OAuthOptions> = {}, method = 'tools/list') {
  const b = browser();
  const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI, ...options });
  const res = await rpc(auth.fetch, s.rs.url, method);
  await res.body?.cancel();
  return { auth, status: res.status, calls: b.calls };
}

test('PKCE S256: the challenge goes to /authorize, the verifier to /token, and the mock checks they match', () =>
  withSetup({}, {}, async (s) => {
    const { status, auth } = await signIn(s);
    assert.equal(status, 200);
    const [authz] = authorizations(s.as);
    const [tok] = tokenRequests(s.as);
    assert.equal(authz!.query.get('code_challenge_method'), 'S256');
    assert.equal(authz!.query.get('response_type'), 'code');
    assert.equal(authz!.query.get('redirect_uri'), REDIRECT_URI);
    assert.match(authz!.query.get('state') ?? '', /^[A-Za-z0-9_-]{16,}$/);
    const verifier = tok!.form!.get('code_verifier')!;
    assert.match(verifier, /^[A-Za-z0-9_-]{43,128}$/);
    assert.equal(createHash('sha256').update(verifier).digest('base64url'), authz!.query.get('code_challenge'));
    assert.equal(tok!.form!.get('grant_type'), 'authorization_code');
    assert.equal(tok!.form!.get('redirect_uri'), REDIRECT_URI);
    // The token the mock issued is the one sent to the MCP server.
    assert.equal(s.rs.mcpRequests().at(-1)!.authorization, `Bearer ${auth.tokens!.access_token}`);
    assert.ok(s.as.check(auth.tokens!.access_token));
  }));

test('metadata without S256 in code_challenge_methods_supported: refused before any authorization request', async () => {
  for (const methods of [['plain'], null, []]) {
    await withSetup({ codeChallengeMethods: methods }, {}, async (s) => {
      const b = browser();
      const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
      await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && /S256/.test(err.message));
      assert.equal(b.calls.length, 0, JSON.stringify(methods));
      assert.equal(authorizations(s.as).length, 0);
    });
  }
});

test('a callback with the wrong state, or none, is discarded: no token request', async () => {
  for (const rewrite of [(u: URL) => u.searchParams.set('state', 'forged'), (u: URL) => u.searchParams.delete('state')]) {
    await withSetup({}, {}, async (s) => {
      const b = browser(rewrite);
      const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
      await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && /state/.test(err.message));
      assert.equal(tokenRequests(s.as).length, 0);
    });
  }
});

test('RFC 9207: the right iss passes; a wrong one, or a missing one the AS promised, is discarded', async () => {
  await withSetup({ issParameter: true }, {}, async (s) => {
    const { status } = await signIn(s);
    assert.equal(status, 200);
    assert.equal(tokenRequests(s.as).length, 1);
  });
  const cases: Array<[MockAsOptions, (u: URL) => void, RegExp]> = [
    [{ issParameter: true }, (u) => u.searchParams.set('iss', 'https://attacker.example.com'), /attacker/],
    [{ issParameter: true }, (u) => u.searchParams.delete('iss'), /no iss parameter/],
    // Present but not advertised: it must still match.
    [{}, (u) => u.searchParams.set('iss', 'https://attacker.example.com'), /attacker/],
    // The iss check comes before an error in the response is believed (mix-up attacks forge them).
    [{ issParameter: true }, (u) => (u.searchParams.set('iss', 'https://attacker.example.com'), u.searchParams.set('error', 'access_denied')), /attacker/],
  ];
  for (const [asOptions, rewrite, expected] of cases) {
    await withSetup(asOptions, {}, async (s) => {
      const b = browser(rewrite);
      const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
      await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && expected.test(err.message));
      assert.equal(tokenRequests(s.as).length, 0);
    });
  }
});

test('an error in the callback becomes an OAuthFlowError with its code; a bare code is accepted as is', async () => {
  await withSetup({}, {}, async (s) => {
    const b = browser((u, req) => {
      u.searchParams.delete('code');
      u.searchParams.set('error', 'access_denied');
      u.searchParams.set('error_description', 'the user said no');
      u.searchParams.set('state', req.state);
    });
    const auth = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI });
    await assert.rejects(
      rpc(auth.fetch, s.rs.url, 'tools/list'),
      (err: OAuthFlowError) => err.code === 'access_denied' && /the user said no/.test(err.message),
    );
  });
  await withSetup({}, {}, async (s) => {
    const b = browser();
    const bare = async (req: Parameters<typeof b.authorize>[0]) => new URL(await b.authorize(req)).searchParams.get('code')!;
    const { status } = await signIn(s, { authorize: bare });
    assert.equal(status, 200);
  });
});

test('the resource parameter is the canonical server URI, identical in the authorization and token requests', () =>
  withSetup({}, {}, async (s) => {
    const { auth } = await signIn(s);
    const a = authorizations(s.as)[0]!.query.get('resource');
    const t = tokenRequests(s.as)[0]!.form!.get('resource');
    assert.equal(a, `${s.rs.origin}/mcp`);
    assert.equal(t, a);
    assert.ok(!a!.includes('#'));
    // The token the AS issued is bound to that resource, and the MCP server saw it.
    assert.equal(s.as.check(auth.tokens!.access_token)!.resource, a);
    assert.equal(s.rs.mcpRequests().at(-1)!.tokenResource, a);
  }));

test('an upper-case scheme and host in the server URL still give the canonical resource', () =>
  withSetup({}, {}, async (s) => {
    const shouting = s.rs.url.replace('http://', 'HTTP://');
    const b = browser();
    const auth = new OAuthClientAuth(shouting, { authorize: b.authorize, redirectUri: REDIRECT_URI });
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    assert.equal(authorizations(s.as)[0]!.query.get('resource'), `${s.rs.origin}/mcp`);
  }));

test('scope: the challenge scope first', () =>
  withSetup({}, { challengeScope: 'mcp:basic', scopesSupported: ['mcp:basic', 'mcp:read', 'mcp:write'] }, async (s) => {
    await signIn(s);
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'mcp:basic');
  }));

test('scope: else all of the PRM scopes_supported', () =>
  withSetup({}, { scopesSupported: ['mcp:basic', 'mcp:read', 'mcp:write'] }, async (s) => {
    await signIn(s);
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'mcp:basic mcp:read mcp:write');
  }));

test('scope: else omitted', () =>
  withSetup({}, {}, async (s) => {
    await signIn(s);
    assert.equal(authorizations(s.as)[0]!.query.has('scope'), false);
  }));

test('scope: offline_access is added only when the AS lists it (and not when turned off)', async () => {
  await withSetup({ scopesSupported: ['mcp:basic', 'offline_access'] }, { scopesSupported: ['mcp:basic'] }, async (s) => {
    await signIn(s);
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'mcp:basic offline_access');
  });
  await withSetup({ scopesSupported: ['mcp:basic', 'offline_access'] }, {}, async (s) => {
    await signIn(s);
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'offline_access');
  });
  await withSetup({ scopesSupported: ['mcp:basic', 'mcp:read'] }, { scopesSupported: ['mcp:basic'] }, async (s) => {
    await signIn(s);
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'mcp:basic');
  });
  await withSetup({ scopesSupported: ['mcp:basic', 'offline_access'] }, { scopesSupported: ['mcp:basic'] }, async (s) => {
    await signIn(s, { offlineAccess: false });
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'mcp:basic');
  });
});

test('scope: OAuthOptions.scope is asked for, with the challenge scope added', () =>
  withSetup({}, { challengeScope: 'mcp:basic' }, async (s) => {
    await signIn(s, { scope: 'profile mcp:basic' });
    assert.equal(authorizations(s.as)[0]!.query.get('scope'), 'profile mcp:basic');
  }));

test('no authorize callback: the authorization code grant cannot run, with a clear error', () =>
  withSetup({}, {}, async (s) => {
    const auth = new OAuthClientAuth(s.rs.url, { grant: 'authorization_code', redirectUri: REDIRECT_URI });
    await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && /authorize/.test(err.message));
    const noRedirect = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize });
    await assert.rejects(rpc(noRedirect.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && /redirectUri/.test(err.message));
  }));

test('the authorization request names the issuer, the redirect URI and the state in the URL', () =>
  withSetup({ issuerPath: '/tenant1' }, {}, async (s) => {
    const { calls } = await signIn(s);
    const [req] = calls;
    assert.equal(req!.issuer, s.as.issuer);
    assert.equal(req!.redirectUri, REDIRECT_URI);
    assert.equal(req!.url.searchParams.get('state'), req!.state);
    assert.equal(req!.url.href.startsWith(`${s.as.issuer}/authorize?`), true);
  }));
