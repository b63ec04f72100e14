// Dynamic client registration (RFC 7591) under attack, over real HTTP: anonymous floods of large
// registrations, one address registering in a loop, many addresses filling the store. What must
// hold: bodies and fields are capped, unknown metadata is dropped, one address is rate limited
// (429 with Retry-After), the store never holds more than maxClients, registrations nobody uses
// expire (ManualClock) while used ones are kept, and an initial access token can be required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressKey } from '../../../src/serving/oauth-server/registration.js';
import { InMemoryAuthorizationStore } from '../../../src/serving/oauth-server/store.js';
import { ManualClock } from '../../support/index.js';
import { authorizeUrl, browse, code, pkce, REDIRECT, startAs, token } from './helpers.js';

async function register(
  issuer: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const r = await fetch(`${issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown>, headers: r.headers };
}

const PUBLIC_REG = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] };
/** A registration of about 60 KB, its bulk in a field RFC 7591 does not define. */
const BIG = { ...PUBLIC_REG, client_name: 'flood', padding: 'x'.repeat(60_000) };

/** A whole sign-in of a registered public client: its first tokens. */
async function signIn(issuer: string, clientId: string): Promise<Record<string, string>> {
  const p = pkce();
  const c = await code(issuer, { client_id: clientId, redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
  const t = await token(issuer, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: clientId });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  return t.body;
}

test('the attack: a flood of 60 KB anonymous registrations is refused (413, then 429) and nothing is stored', async () => {
  const store = new InMemoryAuthorizationStore();
  const as = await startAs({ store });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await register(as.issuer, BIG)).status);
    assert.equal(store.size, 0, 'nothing kept');
    assert.deepEqual([...new Set(statuses)], [413, 429], 'too large, then too many from this address');
    assert.equal(statuses.filter((s) => s === 413).length, 20, 'the default rate limit: 20 an hour per address');
    const big = await register(as.issuer, BIG);
    assert.equal(big.body.error, 'temporarily_unavailable');
    assert.match(String(big.body.error_description), /too many registrations from this address/);
  } finally {
    await as.close();
  }
});

test('the attack from many addresses: the store stops at maxClients with "registration store full", and takes new ones once unused ones expire', async () => {
  const clock = new ManualClock();
  const store = new InMemoryAuthorizationStore({ clock });
  const as = await startAs({
    clock,
    store,
    // Each request counts against its own address, as if from 200 hosts.
    dynamicRegistration: { maxClients: 50, unusedTtlSec: 600, rateLimit: { key: (req) => req.header('x-test-address') } },
  });
  try {
    const answers = [];
    for (let i = 0; i < 200; i++)
      answers.push(await register(as.issuer, { ...PUBLIC_REG, client_name: `c${i}` }, { 'x-test-address': `10.0.${i >> 8}.${i & 255}` }));
    assert.equal(answers.filter((a) => a.status === 201).length, 50);
    const full = answers.filter((a) => a.status !== 201);
    assert.equal(full.length, 150);
    for (const a of full) {
      assert.equal(a.status, 503);
      assert.equal(a.body.error, 'temporarily_unavailable');
      assert.match(String(a.body.error_description), /^registration store full: 50 clients/);
    }
    assert.equal(store.reserved('clients'), 50);
    assert.equal(store.size, 50, 'one record per accepted registration, nothing for refused ones');
    clock.advance(600_000);
    const again = await register(as.issuer, PUBLIC_REG, { 'x-test-address': '10.9.9.9' });
    assert.equal(again.status, 201, 'the unused registrations expired and made room');
    assert.equal(store.reserved('clients'), 1);
  } finally {
    await as.close();
  }
});

test('only RFC 7591 metadata is kept: unknown fields dropped, duplicates merged, types and sizes checked', async () => {
  const store = new InMemoryAuthorizationStore();
  const as = await startAs({ store, dynamicRegistration: { rateLimit: false } });
  try {
    const r = await register(as.issuer, {
      ...PUBLIC_REG,
      redirect_uris: [REDIRECT, REDIRECT],
      grant_types: ['authorization_code', 'refresh_token', 'authorization_code'],
      client_name: 'Editor',
      'client_name#fr': 'Éditeur',
      client_uri: 'https://editor.example.com',
      contacts: ['ops@editor.example.com'],
      software_id: 'editor',
      application_type: 'native',
      padding: 'x'.repeat(4000),
      nested: { deep: [1, 2, 3] },
      jwks: { keys: [] },
      client_secret: 'chosen-by-the-client',
      client_id: 'chosen-too',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const id = r.body.client_id as string;
    assert.notEqual(id, 'chosen-too');
    const expected = {
      client_id: id,
      client_id_issued_at: r.body.client_id_issued_at,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'Editor',
      client_uri: 'https://editor.example.com',
      contacts: ['ops@editor.example.com'],
      software_id: 'editor',
      application_type: 'native',
    };
    assert.deepEqual(r.body, expected);
    assert.deepEqual(store.get(`client:${id}`), expected, 'the store keeps exactly what was answered');

    const refused: Array<[unknown, string, RegExp]> = [
      [{ ...PUBLIC_REG, client_name: 5 }, 'invalid_client_metadata', /client_name must be a string/],
      [{ ...PUBLIC_REG, client_name: 'n'.repeat(257) }, 'invalid_client_metadata', /client_name is longer than 256/],
      [{ ...PUBLIC_REG, client_uri: 'javascript:alert(1)' }, 'invalid_client_metadata', /client_uri must be an absolute https/],
      [{ ...PUBLIC_REG, logo_uri: 'data:image/png;base64,AAAA' }, 'invalid_client_metadata', /logo_uri/],
      [{ ...PUBLIC_REG, contacts: 'ops@example.com' }, 'invalid_client_metadata', /contacts must be an array/],
      [{ ...PUBLIC_REG, contacts: Array.from({ length: 11 }, (_, i) => `c${i}@example.com`) }, 'invalid_client_metadata', /at most 10/],
      [{ ...PUBLIC_REG, scope: 'x'.repeat(1025) }, 'invalid_client_metadata', /scope is longer/],
      [{ ...PUBLIC_REG, application_type: 'desktop' }, 'invalid_client_metadata', /application_type/],
      [{ ...PUBLIC_REG, grant_types: 'authorization_code' }, 'invalid_client_metadata', /grant_types must be an array/],
      [{ ...PUBLIC_REG, redirect_uris: Array.from({ length: 11 }, (_, i) => `${REDIRECT}/${i}`) }, 'invalid_redirect_uri', /at most 10/],
      [{ ...PUBLIC_REG, redirect_uris: [`https://app.example.com/${'p'.repeat(2100)}`] }, 'invalid_redirect_uri', /longer than 2048/],
    ];
    for (const [body, error, description] of refused) {
      const bad = await register(as.issuer, body);
      assert.equal(bad.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(bad.body.error, error);
      assert.match(String(bad.body.error_description), description);
    }
    const big = await register(as.issuer, { ...PUBLIC_REG, padding: 'x'.repeat(8200) });
    assert.equal(big.status, 413);
    assert.match(String(big.body.error_description), /larger than 8192 bytes/);
    assert.equal(store.size, 1, 'no refused registration left anything');
  } finally {
    await as.close();
  }
});

test('rate limit per address: 429 with Retry-After, counted on the injected clock', async () => {
  const clock = new ManualClock();
  const as = await startAs({ clock, dynamicRegistration: { rateLimit: { requests: 3, windowSec: 60 } } });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await register(as.issuer, PUBLIC_REG)).status, 201);
    const limited = await register(as.issuer, PUBLIC_REG);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '20');
    assert.equal(limited.body.error, 'temporarily_unavailable');
    assert.equal(limited.headers.get('cache-control'), 'no-store');
    clock.advance(19_000);
    const still = await register(as.issuer, PUBLIC_REG);
    assert.equal(still.status, 429);
    assert.equal(still.headers.get('retry-after'), '1');
    clock.advance(1000);
    assert.equal((await register(as.issuer, PUBLIC_REG)).status, 201, 'one more after a third of the window');
    assert.equal((await register(as.issuer, PUBLIC_REG)).status, 429);
    // Bad requests count too: the limit is on attempts, not on successes.
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) assert.equal((await register(as.issuer, '{')).status, 400);
    assert.equal((await register(as.issuer, PUBLIC_REG)).status, 429);
  } finally {
    await as.close();
  }
});

test('addresses: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('2001:0db8:0000:0000::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey(undefined), '');
});

test('expiry: a registration never used is gone after unusedTtlSec; a used one lives idleTtlSec past its last use', async () => {
  const clock = new ManualClock();
  const store = new InMemoryAuthorizationStore({ clock });
  const as = await startAs({ clock, store, refreshTokenTtlSec: 7200, dynamicRegistration: { unusedTtlSec: 600, idleTtlSec: 3600, rateLimit: false } });
  try {
    const unused = (await register(as.issuer, PUBLIC_REG)).body.client_id as string;
    const used = (await register(as.issuer, PUBLIC_REG)).body.client_id as string;
    const t0 = await signIn(as.issuer, used);
    clock.advance(599_000);
    assert.ok(store.get(`client:${unused}`), 'still there just before its time');
    clock.advance(1000);
    assert.equal(store.get(`client:${unused}`), undefined);
    const p = pkce();
    const page = await browse(authorizeUrl(as.issuer, { client_id: unused, redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' }));
    assert.equal(page.status, 400);
    assert.match(page.body, /unknown client/);

    const t1 = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t0.refresh_token!, client_id: used });
    assert.equal(t1.status, 200, 'the used client outlived the unused TTL');
    clock.advance(3_599_000);
    const t2 = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t1.body.refresh_token!, client_id: used });
    assert.equal(t2.status, 200, 'each use extends it');
    clock.advance(3_600_000);
    const gone = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t2.body.refresh_token!, client_id: used });
    assert.equal(gone.status, 401, 'idle for idleTtlSec: removed');
    assert.equal(gone.body.error, 'invalid_client');
    assert.equal(store.reserved('clients'), 0);
  } finally {
    await as.close();
  }
});

test('initial access token (RFC 7591 §3): required when configured, 401 without it or with a wrong one', async () => {
  const TOKEN = 'iat-0123456789abcdef';
  for (const initialAccessToken of [TOKEN, ['another-token-0123456789', TOKEN], (t: string) => t === TOKEN]) {
    const as = await startAs({ dynamicRegistration: { initialAccessToken } });
    try {
      const none = await register(as.issuer, PUBLIC_REG);
      assert.equal(none.status, 401);
      assert.equal(none.body.error, 'invalid_token');
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="register"');
      const wrong = await register(as.issuer, PUBLIC_REG, { authorization: 'Bearer iat-0123456789abcdeX' });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="register", error="invalid_token"');
      const basic = await register(as.issuer, PUBLIC_REG, { authorization: `Basic ${btoa(`x:${TOKEN}`)}` });
      assert.equal(basic.status, 401);
      const ok = await register(as.issuer, PUBLIC_REG, { authorization: `Bearer ${TOKEN}` });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      await signIn(as.issuer, ok.body.client_id as string);
    } finally {
      await as.close();
    }
  }
});

test('registration options are checked when the server is built', async () => {
  const { createAuthorizationServer, autoApprove } = await import('../../../src/serving/oauth-server/server.js');
  const build = (dynamicRegistration: unknown) => () => createAuthorizationServer({ login: autoApprove(), dynamicRegistration } as never);
  assert.throws(build({ maxClients: 0 }), /maxClients must be a positive whole number/);
  assert.throws(build({ unusedTtlSec: -1 }), /unusedTtlSec/);
  assert.throws(build({ rateLimit: { requests: 1.5 } }), /rateLimit.requests/);
  assert.throws(build({ rateLimit: 'lots' }), /rateLimit must be false/);
  assert.throws(build({ initialAccessToken: 'short' }), /at least 16 characters/);
  assert.throws(build({ initialAccessToken: [] }), /initialAccessToken/);
  assert.throws(build('yes'), /dynamicRegistration must be a boolean or an object/);
  const off = await startAs({ dynamicRegistration: false });
  try {
    assert.equal((await fetch(`${off.issuer}/register`, { method: 'POST' })).status, 404);
  } finally {
    await off.close();
  }
});

test('a store failing to extend a used registration costs the client nothing: the tokens are answered, the failure reported', async () => {
  const store = new InMemoryAuthorizationStore();
  let calls = 0;
  const flaky = Object.assign(Object.create(store) as InMemoryAuthorizationStore, {
    reserve: (set: string, member: string, ttlMs: number, max: number) => {
      if (++calls > 1) throw new Error('store down');
      return store.reserve(set, member, ttlMs, max);
    },
  });
  const errors: string[] = [];
  const as = await startAs({ store: flaky, onError: (e) => errors.push(e.message) });
  try {
    const id = (await register(as.issuer, PUBLIC_REG)).body.client_id as string;
    const tokens = await signIn(as.issuer, id);
    assert.ok(tokens.refresh_token);
    assert.deepEqual(errors, ['store down']);
  } finally {
    await as.close();
  }
});
