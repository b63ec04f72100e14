// Discovery again when a token is refused with 401 (SEP-2352): the reason may be a new
// authorization server in the PRM, whose issuer then gets its own registration and tokens,
// while credentials of the previous one are never sent there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { MemoryOAuthStore } from '../../../src/client/auth/store.js';
import { startMockAs, type MockAs } from '../../fixtures/oauth/authorization-server.js';
import { authorizations, browser, REDIRECT_URI, startRs, tokenRequests, type Rs, type RsOptions, status } from './fixture.js';

interface Migration {
  as1: MockAs;
  as2: MockAs;
  rs: Rs;
  auth: OAuthClientAuth;
  store: MemoryOAuthStore;
}

async function migration(rsOptions: RsOptions, body: (m: Migration) => Promise<void>) {
  // A client pre-registered at as1 only shifts its dynamic ids, so ids at as1 and as2 differ.
  const as1 = await startMockAs({ preRegistered: { client_id: 'as1-only' } });
  const as2 = await startMockAs();
  const rs = await startRs(as1, rsOptions);
  const store = new MemoryOAuthStore();
  try {
    await body({ as1, as2, rs, store, auth: new OAuthClientAuth(rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store }) });
  } finally {
    await Promise.all([rs.close(), as1.close(), as2.close()]);
  }
}

const prmFetches = (rs: Rs) => rs.requests.filter((r) => r.path.startsWith('/.well-known/oauth-protected-resource')).length;
const everything = (as: MockAs) =>
  as.requests.map((r) => `${r.path} ${r.query} ${r.form ?? ''} ${JSON.stringify(r.json ?? {})} ${r.headers.authorization ?? ''}`).join('\n');

test('a token refused after the PRM moved to another AS: discovery again, a registration and tokens of its own there', () =>
  migration({}, async ({ as1, as2, rs, auth, store }) => {
    assert.equal(await status(auth.fetch, rs.url), 200);
    const as1Client = store.getClient(as1.issuer)!.client_id;
    const as1Tokens = auth.tokens!;
    assert.equal(as1Client, 'client-2');
    const as1Seen = as1.requests.length;

    rs.useAuthorizationServer(as2);
    assert.equal(await status(auth.fetch, rs.url), 200);
    assert.equal(auth.issuer, as2.issuer);
    assert.equal(prmFetches(rs), 2, 'the PRM was read again after the refusal');
    assert.deepEqual(
      as2.paths().filter((p) => !p.startsWith('/.well-known')),
      ['/register', '/authorize', '/token'],
    );
    assert.equal(authorizations(as2)[0]!.query.get('client_id'), 'client-1');
    // Nothing of as1 reaches as2 (its client id, its refresh token), and as1 is not asked to refresh.
    assert.ok(!everything(as2).includes(as1Client), everything(as2));
    assert.ok(!everything(as2).includes(as1Tokens.refresh_token!));
    assert.deepEqual(
      tokenRequests(as2).map((r) => r.form!.get('grant_type')),
      ['authorization_code'],
    );
    assert.equal(as1.requests.length, as1Seen);
    // Each issuer keeps its own registration and tokens.
    const resource = `${rs.origin}/mcp`;
    assert.equal(store.getClient(as2.issuer)!.client_id, 'client-1');
    assert.equal(store.getTokens(as1.issuer, resource)!.tokens.access_token, as1Tokens.access_token);
    assert.equal(store.getTokens(as2.issuer, resource)!.tokens.access_token, auth.tokens!.access_token);
    assert.equal(rs.mcpRequests().at(-1)!.authorization, `Bearer ${auth.tokens!.access_token}`);
    assert.ok(as2.check(auth.tokens!.access_token));
  }));

test('migrating back: the stored tokens of the first AS are taken up again, without a sign-in', () =>
  migration({}, async ({ as1, as2, rs, auth }) => {
    assert.equal(await status(auth.fetch, rs.url), 200);
    const first = auth.tokens!.access_token;
    rs.useAuthorizationServer(as2);
    assert.equal(await status(auth.fetch, rs.url), 200);
    rs.useAuthorizationServer(as1);
    assert.equal(await status(auth.fetch, rs.url), 200);
    assert.equal(auth.issuer, as1.issuer);
    assert.equal(auth.tokens!.access_token, first);
    assert.equal(authorizations(as1).length, 1);
    assert.equal(authorizations(as2).length, 1);
  }));

test('a token refused with the same AS in the PRM: discovery again, then the refresh token renews it', () =>
  migration({}, async ({ as1, rs, auth }) => {
    assert.equal(await status(auth.fetch, rs.url), 200);
    as1.expireAll();
    assert.equal(await status(auth.fetch, rs.url), 200);
    assert.equal(prmFetches(rs), 2);
    assert.deepEqual(
      tokenRequests(as1).map((r) => r.form!.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
    assert.equal(as1.requests.filter((r) => r.path === '/register').length, 1);
    assert.equal(authorizations(as1).length, 1);
  }));

test('a 403 insufficient_scope is a step-up, not a refusal: no discovery again', () =>
  migration({ scopes: { 'tools/list': 'mcp:basic', 'tools/call:admin': 'mcp:write' } }, async ({ as1, rs, auth }) => {
    assert.equal(await status(auth.fetch, rs.url), 200);
    assert.equal(await status(auth.fetch, rs.url, 'tools/call', { name: 'admin', arguments: {} }), 200);
    assert.equal(prmFetches(rs), 1);
    assert.equal(authorizations(as1).length, 2);
  }));
