// DPoP (RFC 9449, SEP-1932): proofs at the token endpoint and on every MCP request, the DPoP
// authorization scheme, nonces from the authorization server and the resource server, when
// DPoP is used at all, and tokens bound to a key the client no longer holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import type { OAuthOptions } from '../../../src/client/auth/options.js';
import { MemoryOAuthStore } from '../../../src/client/auth/store.js';
import { AS_DPOP_NONCE } from '../../fixtures/oauth/authorization-server.js';
import { checkProof, decodeProof, jwkThumbprint } from '../../fixtures/oauth/dpop.js';
import { authorizations, browser, REDIRECT_URI, setup, tokenRequests, type Setup, withAuth, status } from './fixture.js';

const proofsAt = (s: Setup) => tokenRequests(s.as).map((r) => r.headers.dpop as string | undefined);
const statuses = (s: Setup) => s.rs.mcpRequests().map((r) => r.status);
const nonceOf = (proof: string | undefined) => (proof ? decodeProof(proof).claims.nonce : undefined);

test('the token request carries a proof, the token comes back bound, and every MCP request presents it as DPoP with a fresh proof', () =>
  withAuth({ dpop: {} }, { dpop: true }, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(await status(auth.fetch, `${s.rs.url}?tenant=1`, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), 200);
    const proof = checkProof(proofsAt(s)[0], 'POST', `${s.as.issuer}/token`);
    assert.ok(proof.ok, !proof.ok ? proof.error : '');
    assert.equal(proof.header['alg'], 'ES256');
    assert.deepEqual(Object.keys(proof.header['jwk'] as object).sort(), ['crv', 'kty', 'x', 'y'], 'the public key only');
    assert.equal(proof.claims.ath, undefined);
    // The code is bound to the same key (RFC 9449 §10), and so is the token.
    assert.equal(authorizations(s.as)[0]!.query.get('dpop_jkt'), proof.jkt);
    const token = auth.tokens!.access_token;
    assert.equal(auth.tokens!.token_type, 'DPoP');
    assert.equal(s.as.check(token)!.jkt, proof.jkt);
    // The resource server checked htm, htu (no query), ath, the key and jti reuse for each.
    const sent = s.rs.mcpRequests().slice(1);
    assert.deepEqual(
      sent.map((r) => [r.status, r.authorization, r.dpopError]),
      [
        [200, `DPoP ${token}`, undefined],
        [200, `DPoP ${token}`, undefined],
      ],
    );
    assert.equal(s.rs.mcpRequests()[0]!.dpop, undefined, 'no proof without a token');
    const claims = sent.map((r) => decodeProof(r.dpop!).claims);
    assert.equal(claims[1]!.htu, s.rs.url);
    assert.notEqual(claims[0]!.jti, claims[1]!.jti);
  }));

test('a GET or DELETE gets a proof naming its method', () =>
  withAuth({ dpop: {} }, { dpop: true }, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    for (const method of ['GET', 'DELETE']) {
      const res = await auth.fetch(s.rs.url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } });
      await res.body?.cancel();
      const rec = s.rs.mcpRequests().at(-1)!;
      assert.notEqual(rec.status, 401, rec.dpopError);
      assert.equal(decodeProof(rec.dpop!).claims.htm, method);
    }
    assert.equal(authorizations(s.as).length, 1);
  }));

test('nonces: the token request is retried with the AS nonce, the MCP request with the RS nonce, and neither is a new authorization', () =>
  withAuth({ dpop: { requireNonce: true } }, { dpop: { nonce: 'static' } }, { maxAuthorizations: 1 }, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(proofsAt(s).map(nonceOf), [undefined, AS_DPOP_NONCE]);
    assert.equal(authorizations(s.as).length, 1, 'the code survived the use_dpop_nonce answer');
    assert.deepEqual(statuses(s), [401, 401, 200]);
    assert.deepEqual(
      s.rs.mcpRequests().map((r) => nonceOf(r.dpop)),
      [undefined, undefined, 'rs-nonce-1'],
    );
    // Later requests carry the nonce at once.
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(statuses(s), [401, 401, 200, 200]);
  }));

test('nonces: a new nonce in any response is used from the next request on', () =>
  withAuth({ dpop: {} }, { dpop: { nonce: 'rotate' } }, {}, async (s, auth) => {
    for (let i = 0; i < 3; i++) assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(statuses(s), [401, 401, 200, 200, 200]);
    assert.deepEqual(
      s.rs
        .mcpRequests()
        .slice(2)
        .map((r) => nonceOf(r.dpop)),
      ['rs-nonce-1', 'rs-nonce-2', 'rs-nonce-3'],
    );
  }));

test('nonces: a server that keeps asking for a nonce gets a bounded number of retries, and no new authorization', () =>
  withAuth({ dpop: {} }, { dpop: { nonce: 'static' } }, {}, async (s, auth) => {
    let n = 0;
    // Every RS nonce is replaced by a new bogus one, so every proof carries the wrong nonce.
    auth.wrap(async (input, init) => {
      const res = await fetch(input, init);
      if (!res.headers.has('dpop-nonce') || !String(input).startsWith(s.rs.origin)) return res;
      const headers = new Headers(res.headers);
      headers.set('dpop-nonce', `bogus-${++n}`);
      return new Response(res.body, { status: res.status, headers });
    });
    assert.equal(await status(auth.fetch, s.rs.url), 401);
    assert.equal(authorizations(s.as).length, 1);
    assert.ok(s.rs.mcpRequests().length <= 4, `${s.rs.mcpRequests().length} MCP requests`);
  }));

test('DPoP is used only when the AS metadata lists ES256, or dpop is true; dpop: false turns it off', async () => {
  await withAuth({ dpop: { advertise: false } }, {}, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(proofsAt(s), [undefined]);
    assert.equal(authorizations(s.as)[0]!.query.get('dpop_jkt'), null);
    assert.equal(auth.tokens!.token_type, 'Bearer');
    assert.ok(s.rs.mcpRequests().at(-1)!.authorization!.startsWith('Bearer '));
    assert.equal(s.rs.mcpRequests().at(-1)!.dpop, undefined);
  });
  await withAuth({ dpop: {} }, {}, { dpop: false }, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(proofsAt(s), [undefined]);
    assert.equal(auth.tokens!.token_type, 'Bearer');
  });
  await withAuth({ dpop: { advertise: false } }, { dpop: true }, { dpop: true }, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.ok(checkProof(proofsAt(s)[0], 'POST', `${s.as.issuer}/token`).ok);
    assert.equal(auth.tokens!.token_type, 'DPoP');
  });
});

test('a DPoP token type when no proof was sent is refused (it could not be presented)', () =>
  withAuth(
    {},
    {},
    {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!String(input).endsWith('/token')) return res;
        return Response.json({ ...((await res.json()) as object), token_type: 'DPoP' }, { status: res.status });
      },
    },
    async (s, auth) => {
      await assert.rejects(status(auth.fetch, s.rs.url), (err: Error) => err instanceof OAuthFlowError && /"DPoP" token/.test(err.message));
    },
  ));

test('an expired bound token is refreshed with a proof of the same key (the AS checks it)', () =>
  withAuth({ dpop: {} }, { dpop: true }, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    s.as.expireAll();
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.deepEqual(
      tokenRequests(s.as).map((r) => r.form!.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
    const [first, refresh] = proofsAt(s).map((p) => checkProof(p, 'POST', `${s.as.issuer}/token`));
    assert.ok(first!.ok && refresh!.ok && first.jkt === refresh.jkt);
    assert.equal(auth.tokens!.token_type, 'DPoP');
    assert.equal(authorizations(s.as).length, 1);
  }));

test('step-up on a DPoP challenge: 403 insufficient_scope re-authorizes with the union of the scopes', () =>
  withAuth({ dpop: {} }, { dpop: true, scopes: { 'tools/list': 'mcp:basic', 'tools/call:admin': 'mcp:write' } }, {}, async (s, auth) => {
    assert.equal(await status(auth.fetch, s.rs.url), 200);
    assert.equal(await status(auth.fetch, s.rs.url, 'tools/call', { name: 'admin', arguments: {} }), 200);
    assert.deepEqual(
      authorizations(s.as).map((r) => r.query.get('scope')),
      ['mcp:basic', 'mcp:basic mcp:write'],
    );
    assert.deepEqual(statuses(s), [401, 200, 403, 200]);
  }));

test('the application key: its thumbprint is stored with the tokens; stored bound tokens are used only with that key', async () => {
  const s = await setup({ dpop: {} }, { dpop: true });
  try {
    const store = new MemoryOAuthStore();
    const keyPair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const jkt = jwkThumbprint((await crypto.subtle.exportKey('jwk', keyPair.publicKey)) as Record<string, unknown>);
    const client = (dpop: OAuthOptions['dpop']) => new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, store, dpop });

    assert.equal(await status(client({ keyPair }).fetch, s.rs.url), 200);
    const stored = store.getTokens(s.as.issuer, `${s.rs.origin}/mcp`)!;
    assert.equal(stored.dpopJkt, jkt);
    assert.equal(s.as.check(stored.tokens.access_token)!.jkt, jkt);

    // The same key (as after a restart, with a kept key): the stored token works, no sign-in.
    assert.equal(await status(client({ keyPair }).fetch, s.rs.url), 200);
    assert.equal(authorizations(s.as).length, 1);

    // Another key: the stored tokens (refresh token included) cannot be used; a new sign-in.
    const other = client(undefined);
    assert.equal(await status(other.fetch, s.rs.url), 200);
    assert.equal(authorizations(s.as).length, 2);
    assert.notEqual(s.as.check(other.tokens!.access_token)!.jkt, jkt);
    assert.equal(tokenRequests(s.as).filter((r) => r.form!.get('grant_type') === 'refresh_token').length, 0);

    // DPoP turned off: bound tokens are no use either.
    const plain = client(false);
    assert.equal(await status(plain.fetch, s.rs.url), 200);
    assert.equal(authorizations(s.as).length, 3);
    assert.equal(plain.tokens!.token_type, 'Bearer');
  } finally {
    await s.close();
  }
});

test('a key DPoP cannot sign with is refused at once', async () => {
  const keyPair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-521' }, false, ['sign', 'verify']);
  assert.throws(
    () => new OAuthClientAuth('https://mcp.example.com/mcp', { dpop: { keyPair } }),
    (err: Error) => err instanceof OAuthFlowError && /DPoP key/.test(err.message),
  );
});
