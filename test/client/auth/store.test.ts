// OAuthStore: registrations kept per issuer, tokens per issuer + resource (MCP authorization §4.3
// item 17); a second client with the same store signs in without the user; credentials of one
// authorization server are never used with another; a registration the AS forgot is dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import { MemoryOAuthStore, type OAuthStore, type StoredTokens } from '../../../src/client/auth/store.js';
import type { ClientRegistration } from '../../../src/client/auth/token-endpoint.js';
import { authorizations, browser, REDIRECT_URI, rpc, setup, tokenRequests } from './fixture.js';

/** A store that records every call (and keeps copies, as a store over a file would). */
class RecordingStore implements OAuthStore {
  readonly calls: string[] = [];
  readonly clients = new Map<string, ClientRegistration>();
  readonly tokens = new Map<string, StoredTokens>();
  async getClient(issuer: string) {
    this.calls.push(`getClient ${issuer}`);
    const c = this.clients.get(issuer);
    return c && structuredClone(c);
  }
  async saveClient(issuer: string, client: ClientRegistration) {
    this.calls.push(`saveClient ${issuer} ${client.client_id}`);
    this.clients.set(issuer, structuredClone(client));
  }
  async getTokens(issuer: string, resource: string) {
    this.calls.push(`getTokens ${issuer} ${resource}`);
    const t = this.tokens.get(`${issuer} ${resource}`);
    return t && structuredClone(t);
  }
  async saveTokens(issuer: string, resource: string, tokens: StoredTokens) {
    this.calls.push(`saveTokens ${issuer} ${resource} ${tokens.tokens.access_token}`);
    this.tokens.set(`${issuer} ${resource}`, structuredClone(tokens));
  }
  async clear(issuer: string, resource?: string, client?: boolean) {
    this.calls.push(`clear ${issuer} ${resource ?? '*'}${client ? ' +client' : ''}`);
    for (const k of [...this.tokens.keys()]) if (k === `${issuer} ${resource}` || (resource === undefined && k.startsWith(`${issuer} `))) this.tokens.delete(k);
    if (client) this.clients.delete(issuer);
  }
}

async function status(f: typeof fetch, url: string): Promise<number> {
  const res = await rpc(f, url, 'tools/list');
  await res.body?.cancel();
  return res.status;
}

test('a custom store sees saveClient and saveTokens, keyed by issuer (and resource)', async () => {
  const s = await setup({}, { scopesSupported: ['mcp:basic'] });
  try {
    const store = new RecordingStore();
    const auth = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store });
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    const resource = `${s.rs.origin}/mcp`;
    assert.ok(store.calls.includes(`saveClient ${s.as.issuer} client-1`), store.calls.join('\n'));
    assert.ok(store.calls.includes(`saveTokens ${s.as.issuer} ${resource} ${auth.tokens!.access_token}`), store.calls.join('\n'));
    const saved = store.tokens.get(`${s.as.issuer} ${resource}`)!;
    assert.equal(saved.requestedScope, 'mcp:basic');
    assert.equal(saved.tokens.refresh_token, auth.tokens!.refresh_token);
    assert.ok(saved.tokens.expires_at! > Date.now());
  } finally {
    await s.close();
  }
});

test('a second OAuthClientAuth with the same store uses the stored tokens: no registration, no authorization', async () => {
  const s = await setup();
  try {
    const store = new RecordingStore();
    const first = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store });
    assert.equal(await status(first.fetch, s.rs.url), 200);
    const b = browser();
    const second = new OAuthClientAuth(s.rs.url, { authorize: b.authorize, redirectUri: REDIRECT_URI, store });
    const before = s.rs.mcpRequests().length;
    assert.equal(await status(second.fetch, s.rs.url), 200);
    assert.equal(b.calls.length, 0);
    assert.equal(authorizations(s.as).length, 1);
    assert.equal(s.as.requests.filter((r) => r.path === '/register').length, 1);
    assert.equal(second.tokens!.access_token, first.tokens!.access_token);
    // One unauthenticated try (the store key needs discovery), then the stored token.
    assert.deepEqual(
      s.rs
        .mcpRequests()
        .slice(before)
        .map((r) => r.status),
      [401, 200],
    );
  } finally {
    await s.close();
  }
});

test('stored tokens that have expired are refreshed with the stored registration, not signed in again', async () => {
  const s = await setup();
  try {
    const store = new MemoryOAuthStore();
    const first = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store });
    assert.equal(await status(first.fetch, s.rs.url), 200);
    first.tokens!.expires_at = Date.now() - 1000; // the stored object (MemoryOAuthStore keeps references)
    s.as.expireAll();
    const second = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store });
    assert.equal(await status(second.fetch, s.rs.url), 200);
    assert.equal(authorizations(s.as).length, 1);
    assert.deepEqual(
      tokenRequests(s.as).map((r) => r.form!.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
  } finally {
    await s.close();
  }
});

test('tokens and registrations of another authorization server are never used', async () => {
  const s = await setup();
  try {
    const store = new RecordingStore();
    const resource = `${s.rs.origin}/mcp`;
    store.clients.set('https://other-as.example.com', { client_id: 'other-client' });
    store.tokens.set(`https://other-as.example.com ${resource}`, { tokens: { access_token: 'other-token', token_type: 'Bearer' } });
    const auth = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store });
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.ok(!s.rs.requests.some((r) => r.authorization === 'Bearer other-token'));
    assert.equal(authorizations(s.as)[0]!.query.get('client_id'), 'client-1');
  } finally {
    await s.close();
  }
});

test('a stored registration the AS rejects (invalid_client) is forgotten; the next attempt registers anew', async () => {
  const s = await setup();
  try {
    const store = new RecordingStore();
    store.clients.set(s.as.issuer, { client_id: 'forgotten', client_secret: 'x', token_endpoint_auth_method: 'client_secret_basic' });
    const auth = new OAuthClientAuth(s.rs.url, { grant: 'client_credentials', store });
    await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: OAuthFlowError) => err instanceof OAuthFlowError && err.code === 'invalid_client');
    assert.ok(store.calls.includes(`clear ${s.as.issuer} * +client`), store.calls.join('\n'));
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(s.as.requests.filter((r) => r.path === '/register').length, 1);
    assert.equal(store.clients.get(s.as.issuer)!.client_id, 'client-1');
  } finally {
    await s.close();
  }
});

test('logout() forgets the tokens here and in the store, keeps the registration', async () => {
  const s = await setup();
  try {
    const store = new RecordingStore();
    const auth = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store });
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    await auth.logout();
    assert.equal(auth.tokens, undefined);
    assert.equal(store.tokens.size, 0);
    assert.equal(store.clients.size, 1);
  } finally {
    await s.close();
  }
});

test('MemoryOAuthStore: tokens per issuer and resource; clear by resource, by issuer, and the client', () => {
  const m = new MemoryOAuthStore();
  const t = (access_token: string): StoredTokens => ({ tokens: { access_token, token_type: 'Bearer' } });
  m.saveClient('https://a', { client_id: 'ca' });
  m.saveTokens('https://a', 'https://r1', t('1'));
  m.saveTokens('https://a', 'https://r2', t('2'));
  m.saveTokens('https://b', 'https://r1', t('3'));
  assert.equal(m.getTokens('https://a', 'https://r1')!.tokens.access_token, '1');
  m.clear('https://a', 'https://r1');
  assert.equal(m.getTokens('https://a', 'https://r1'), undefined);
  assert.equal(m.getTokens('https://a', 'https://r2')!.tokens.access_token, '2');
  m.clear('https://a');
  assert.equal(m.getTokens('https://a', 'https://r2'), undefined);
  assert.equal(m.getClient('https://a')!.client_id, 'ca');
  m.clear('https://a', undefined, true);
  assert.equal(m.getClient('https://a'), undefined);
  assert.equal(m.getTokens('https://b', 'https://r1')!.tokens.access_token, '3');
});
