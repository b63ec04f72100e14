// The authorization server over real HTTP, driven the way a client and a browser drive it:
// metadata, PKCE (S256 only, a wrong verifier refused), redirect URI checks (errors shown, never
// redirected), expired and replayed codes, refresh rotation with reuse detection, dynamic
// registration, resource indicators and scopes, revocation, and the JWTs verified by mcpkit's
// own resource-server verifier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jwtAccessTokens } from '../../../src/serving/http/jwt-access-token.js';
import { autoApprove, createAuthorizationServer } from '../../../src/serving/oauth-server/server.js';
import { InMemoryAuthorizationStore } from '../../../src/serving/oauth-server/store.js';
import { ManualClock } from '../../support/index.js';
import { authorizeUrl, browse, code, payload, pkce, REDIRECT, register, startAs, token } from './helpers.js';

const PUBLIC = { client_id: 'app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' as const };
const RESOURCE = 'http://127.0.0.1:9/mcp';

test('metadata (RFC 8414) names the endpoints and what is supported; JWKS serves the signing key', async () => {
  const as = await startAs({ clients: [PUBLIC], scopesSupported: ['mcp:read'] });
  try {
    const r = await fetch(`${as.issuer}/.well-known/oauth-authorization-server`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    const m = (await r.json()) as Record<string, unknown>;
    assert.equal(m.issuer, as.issuer);
    assert.equal(m.token_endpoint, `${as.issuer}/token`);
    assert.deepEqual(m.code_challenge_methods_supported, ['S256']);
    assert.equal(m.client_id_metadata_document_supported, true);
    assert.equal(m.authorization_response_iss_parameter_supported, true);
    assert.deepEqual(m.scopes_supported, ['mcp:read']);
    const jwks = (await (await fetch(m.jwks_uri as string)).json()) as { keys: Record<string, string>[] };
    assert.equal(jwks.keys.length, 1);
    assert.equal(jwks.keys[0]!.alg, 'ES256');
    assert.equal(jwks.keys[0]!.d, undefined, 'no private key material');
    assert.equal((await fetch(`${as.issuer}/token`)).status, 405);
  } finally {
    await as.close();
  }
});

test('a sign-in: code → JWT access token that jwtAccessTokens verifies for the resource, refresh token, no-store', async () => {
  const as = await startAs({ clients: [PUBLIC], scopesSupported: ['mcp:read', 'mcp:write'] });
  try {
    const p = pkce();
    const c = await code(as.issuer, {
      client_id: 'app',
      redirect_uri: REDIRECT,
      challenge: p.challenge,
      method: 'S256',
      scope: 'mcp:read',
      resource: RESOURCE,
    });
    const t = await token(as.issuer, {
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
      client_id: 'app',
      resource: RESOURCE,
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(t.headers.get('cache-control'), 'no-store');
    assert.equal(t.body.token_type, 'Bearer');
    assert.equal(t.body.scope, 'mcp:read');
    assert.ok(t.body.refresh_token);
    const claims = payload(t.body.access_token!);
    assert.equal(claims.aud, RESOURCE);
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.client_id, 'app');
    const verify = jwtAccessTokens({ issuer: as.issuer, onError: (e) => assert.fail(e) });
    const info = await verify(t.body.access_token!, undefined, RESOURCE);
    assert.equal(info?.principal, 'alice');
    assert.deepEqual(info?.scopes, ['mcp:read']);
    assert.equal(await verify(t.body.access_token!, undefined, 'http://127.0.0.1:9/other'), undefined, 'another audience is refused');
  } finally {
    await as.close();
  }
});

test('PKCE: plain and a missing challenge are refused at /authorize; a wrong verifier at /token', async () => {
  const as = await startAs({ clients: [PUBLIC] });
  try {
    const p = pkce();
    for (const method of ['plain', undefined]) {
      const r = await browse(authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.verifier, method }));
      assert.equal(r.status, 302);
      assert.equal(r.location!.searchParams.get('error'), 'invalid_request');
      assert.match(r.location!.searchParams.get('error_description')!, /S256.*plain/);
      assert.equal(r.location!.searchParams.get('state'), 'st-1');
    }
    const none = await browse(authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT }));
    assert.match(none.location!.searchParams.get('error_description')!, /code_challenge is required/);
    const c = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const bad = await token(as.issuer, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: pkce().verifier, client_id: 'app' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_grant');
    assert.match(bad.body.error_description!, /PKCE/);
  } finally {
    await as.close();
  }
});

test('a redirect URI not registered is shown as an error page, never redirected to; loopback ports may vary', async () => {
  const as = await startAs({ clients: [PUBLIC] });
  try {
    const p = pkce();
    const evil = await browse(authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: 'https://evil.example/cb', challenge: p.challenge, method: 'S256' }));
    assert.equal(evil.status, 400);
    assert.equal(evil.location, undefined);
    assert.match(evil.body, /not registered/);
    const unknown = await browse(authorizeUrl(as.issuer, { client_id: 'nobody', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' }));
    assert.equal(unknown.status, 400);
    assert.match(unknown.body, /unknown client/);
    // RFC 8252 §7.3: the same loopback URI on another port.
    await code(as.issuer, { client_id: 'app', redirect_uri: 'http://127.0.0.1:45678/callback', challenge: p.challenge, method: 'S256' });
    const otherPath = await browse(
      authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: 'http://127.0.0.1:45678/other', challenge: p.challenge, method: 'S256' }),
    );
    assert.equal(otherPath.status, 400);
    // The token request must name the same redirect URI.
    const c = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const t = await token(as.issuer, {
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: 'http://127.0.0.1:7777/other',
      code_verifier: p.verifier,
      client_id: 'app',
    });
    assert.equal(t.body.error, 'invalid_grant');
  } finally {
    await as.close();
  }
});

test('an expired code (ManualClock) and a replayed one are refused; the replay revokes what the first use got', async () => {
  const clock = new ManualClock();
  const as = await startAs({ clients: [PUBLIC], clock, codeTtlSec: 60 });
  try {
    const p = pkce();
    const old = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    clock.advance(61_000);
    const late = await token(as.issuer, { grant_type: 'authorization_code', code: old, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: 'app' });
    assert.equal(late.body.error, 'invalid_grant');
    assert.match(late.body.error_description!, /expired/);

    const c = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const form = { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: 'app' };
    const first = await token(as.issuer, form);
    assert.equal(first.status, 200);
    const again = await token(as.issuer, form);
    assert.equal(again.body.error, 'invalid_grant');
    assert.match(again.body.error_description!, /already used/);
    const refreshed = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: 'app' });
    assert.equal(refreshed.body.error, 'invalid_grant', 'the first redemption’s refresh token is revoked');
  } finally {
    await as.close();
  }
});

test('refresh tokens rotate; reusing a rotated one revokes the whole family', async () => {
  const as = await startAs({ clients: [PUBLIC], scopesSupported: ['a', 'b'] });
  try {
    const p = pkce();
    const c = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256', scope: 'a b', resource: RESOURCE });
    const t0 = await token(as.issuer, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: 'app' });
    const t1 = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t0.body.refresh_token!, client_id: 'app', scope: 'a' });
    assert.equal(t1.status, 200, JSON.stringify(t1.body));
    assert.notEqual(t1.body.refresh_token, t0.body.refresh_token);
    assert.equal(t1.body.scope, 'a', 'narrowed on request');
    assert.equal(payload(t1.body.access_token!).aud, RESOURCE, 'the granted audience carries over');
    const wider = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t1.body.refresh_token!, client_id: 'app', scope: 'a b c' });
    assert.equal(wider.body.error, 'invalid_scope');
    // A refused request does not spend the token: t1's is still good after it.
    const t2 = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t1.body.refresh_token!, client_id: 'app' });
    assert.equal(t2.status, 200, JSON.stringify(t2.body));
    assert.equal(t2.body.scope, 'a b', 'the grant keeps its scopes');
    const reuse = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t0.body.refresh_token!, client_id: 'app' });
    assert.equal(reuse.body.error, 'invalid_grant');
    assert.match(reuse.body.error_description!, /already used/);
    const after = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t2.body.refresh_token!, client_id: 'app' });
    assert.equal(after.body.error, 'invalid_grant', 'the family is revoked: the newest token is dead too');
  } finally {
    await as.close();
  }
});

test('dynamic registration (RFC 7591): public and confidential clients, bad metadata refused, secrets checked', async () => {
  const store = new InMemoryAuthorizationStore();
  const as = await startAs({ store });
  try {
    const bad = await register(as.issuer, { redirect_uris: ['http://evil.example/cb'] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_redirect_uri');
    assert.equal((await register(as.issuer, { redirect_uris: ['javascript:alert(1)'] })).body.error, 'invalid_redirect_uri');
    assert.equal((await register(as.issuer, { redirect_uris: [REDIRECT], grant_types: ['password'] })).body.error, 'invalid_client_metadata');
    const pub = await register(as.issuer, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'x',
    });
    assert.equal(pub.status, 201);
    assert.equal(pub.body.client_secret, undefined);
    assert.equal(pub.body.client_name, 'x');
    const conf = await register(as.issuer, { redirect_uris: [REDIRECT], grant_types: ['authorization_code'] });
    assert.equal(conf.body.token_endpoint_auth_method, 'client_secret_basic');
    const id = conf.body.client_id as string;
    const secret = conf.body.client_secret as string;
    assert.ok(secret);
    const stored = store.get(`client:${id}`) as Record<string, unknown>;
    assert.equal(stored.client_secret, undefined, 'the store keeps no secret');
    assert.equal(typeof stored.client_secret_sha256, 'string');
    const p = pkce();
    const c = await code(as.issuer, { client_id: id, redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const form = { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier };
    const wrong = await token(as.issuer, form, { authorization: `Basic ${btoa(`${id}:nope`)}` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'invalid_client');
    const c2 = await code(as.issuer, { client_id: id, redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const ok = await token(as.issuer, { ...form, code: c2 }, { authorization: `Basic ${btoa(`${id}:${secret}`)}` });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.refresh_token, undefined, 'registered without the refresh_token grant');
  } finally {
    await as.close();
  }
});

test('resource indicators: unknown resources and scopes refused, the token request may narrow but not widen', async () => {
  const other = 'http://127.0.0.1:9/other';
  const as = await startAs({ clients: [PUBLIC], resources: [RESOURCE, other], scopesSupported: ['mcp:read'] });
  try {
    const p = pkce();
    const r = await browse(
      authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256', resource: 'https://elsewhere.example/mcp' }),
    );
    assert.equal(r.location!.searchParams.get('error'), 'invalid_target');
    const s = await browse(authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256', scope: 'admin' }));
    assert.equal(s.location!.searchParams.get('error'), 'invalid_scope');
    const c = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256', resource: RESOURCE });
    const widened = await token(as.issuer, {
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
      client_id: 'app',
      resource: other,
    });
    assert.equal(widened.body.error, 'invalid_target');
    const both = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256', resource: [RESOURCE, other] });
    const t = await token(as.issuer, {
      grant_type: 'authorization_code',
      code: both,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
      client_id: 'app',
      resource: other,
    });
    assert.equal(payload(t.body.access_token!).aud, other);
    const verify = jwtAccessTokens({ issuer: as.issuer });
    assert.equal(await verify(t.body.access_token!, undefined, RESOURCE), undefined, 'a token for one resource is not good at another');
    assert.ok(await verify(t.body.access_token!, undefined, other));
  } finally {
    await as.close();
  }
});

test('revocation (RFC 7009) ends the sign-in; a login step that denies sends access_denied', async () => {
  let deny = false;
  const as = await startAs({ clients: [PUBLIC], login: () => (deny ? { deny: true, description: 'no thanks' } : { subject: 'bob' }) });
  try {
    const p = pkce();
    const c = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const t = await token(as.issuer, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: 'app' });
    const r = await fetch(`${as.issuer}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t.body.refresh_token!, client_id: 'app' }),
    });
    assert.equal(r.status, 200);
    const after = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token!, client_id: 'app' });
    assert.equal(after.body.error, 'invalid_grant');
    deny = true;
    const d = await browse(authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' }));
    assert.equal(d.location!.searchParams.get('error'), 'access_denied');
    assert.equal(d.location!.searchParams.get('error_description'), 'no thanks');
  } finally {
    await as.close();
  }
});

test('malformed requests get OAuth errors, not crashes', async () => {
  const as = await startAs({ clients: [PUBLIC] });
  try {
    const json = await fetch(`${as.issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(json.status, 400);
    assert.equal(((await json.json()) as { error: string }).error, 'invalid_request');
    assert.equal((await token(as.issuer, { grant_type: 'password', client_id: 'app' })).body.error, 'unsupported_grant_type');
    assert.equal((await token(as.issuer, { grant_type: 'authorization_code', client_id: 'app', code: ['a', 'b'] })).body.error, 'invalid_request');
    assert.equal((await token(as.issuer, { grant_type: 'authorization_code', client_id: 'nobody', code: 'x' })).status, 401);
    const big = await fetch(`${as.issuer}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(70_000) });
    assert.equal(big.status, 413);
    const notJson = await fetch(`${as.issuer}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[' });
    assert.equal(((await notJson.json()) as { error: string }).error, 'invalid_client_metadata');
  } finally {
    await as.close();
  }
});

test('a login page of the application: shown first, then the form posted back to the authorization URL signs in', async () => {
  const as = await startAs({
    clients: [PUBLIC],
    login: ({ form }) =>
      form?.get('user') === 'carol' && form.get('password') === 'pw'
        ? { subject: 'carol', claims: { email: 'carol@example.test' } }
        : { respond: { status: 200, body: '<form method="post"><input name="user"><input name="password"></form>' } },
  });
  try {
    const p = pkce();
    const url = authorizeUrl(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const page = await browse(url);
    assert.equal(page.status, 200);
    assert.match(page.body, /<form method="post">/);
    const posted = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user: 'carol', password: 'pw' }),
    });
    assert.equal(posted.status, 302);
    const c = new URL(posted.headers.get('location')!).searchParams.get('code')!;
    const t = await token(as.issuer, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: 'app' });
    assert.equal(payload(t.body.access_token!).sub, 'carol');
    assert.equal(payload(t.body.access_token!).email, 'carol@example.test');
  } finally {
    await as.close();
  }
});

test('the fetch handler (any runtime): a whole sign-in through Request/Response, 404 for other paths', async () => {
  const server = createAuthorizationServer({ issuer: 'https://auth.example.test', login: autoApprove('dana'), clients: [PUBLIC] });
  const p = pkce();
  const meta = await server.fetch(new Request('https://auth.example.test/.well-known/oauth-authorization-server'));
  assert.equal(((await meta.json()) as { issuer: string }).issuer, 'https://auth.example.test');
  const r = await server.fetch(
    new Request(authorizeUrl('https://auth.example.test', { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' })),
  );
  assert.equal(r.status, 302);
  const back = new URL(r.headers.get('location')!).searchParams;
  assert.equal(back.get('iss'), 'https://auth.example.test');
  const t = await server.fetch(
    new Request('https://auth.example.test/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: p.verifier,
        client_id: 'app',
      }),
    }),
  );
  assert.equal(t.status, 200);
  assert.equal(payload(((await t.json()) as { access_token: string }).access_token).sub, 'dana');
  assert.equal((await server.fetch(new Request('https://auth.example.test/mcp'))).status, 404);
});
