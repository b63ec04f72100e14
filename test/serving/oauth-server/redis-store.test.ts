// The authorization server's state in a real Redis: the store contract (TTL, atomic take), and
// two server instances sharing a store and a signing key, as behind a load balancer: a code
// issued by one is redeemed at the other, a refresh token rotated at one is detected as reused
// at the other.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { RedisAuthorizationStore } from '../../../src/serving/oauth-server/redis-store.js';
import type { PrivateJwk } from '../../../src/serving/oauth-server/signing.js';
import { cleanup, connectRedis, PREFIX } from '../../state/redis/helpers.js';
import { payload, pkce, REDIRECT, startAs, token } from './helpers.js';

after(cleanup);

test('put/get/take/delete with TTLs; of two concurrent takes only one gets the value', async () => {
  const redis = await connectRedis();
  const store = new RedisAuthorizationStore({ client: redis, keyPrefix: PREFIX });
  await store.put('code:x', { a: 1 }, 60_000);
  assert.deepEqual(await store.get('code:x'), { a: 1 });
  const ttl = await redis.pttl(store.key('code:x'));
  assert.ok(ttl > 59_000 && ttl <= 60_000, `PTTL ${ttl}`);
  const takes = await Promise.all([store.take('code:x'), store.take('code:x'), store.take('code:x')]);
  assert.deepEqual(
    takes.filter((t) => t !== undefined),
    [{ a: 1 }],
  );
  await store.put('client:c', { id: 'c' });
  assert.equal(await redis.pttl(store.key('client:c')), -1, 'no TTL: kept until deleted');
  await store.delete('client:c');
  assert.equal(await store.get('client:c'), undefined);
  await redis.set(store.key('junk'), 'not json');
  assert.equal(await store.get('junk'), undefined);
});

test('two instances on one Redis and one key: a code from one redeems at the other; refresh reuse is caught across them', async () => {
  const redis = await connectRedis();
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingKeys = [{ algorithm: 'ES256' as const, privateJwk: privateKey.export({ format: 'jwk' }) as PrivateJwk }];
  const common = {
    store: new RedisAuthorizationStore({ client: redis, keyPrefix: PREFIX }),
    signingKeys,
    clients: [{ client_id: 'app', redirect_uris: [REDIRECT] }],
  };
  const a = await startAs({ ...common, issuer: 'http://as.example.test' });
  const b = await startAs({ ...common, issuer: 'http://as.example.test' });
  const urlA = `http://127.0.0.1:${a.port}`;
  const urlB = `http://127.0.0.1:${b.port}`;
  try {
    const p = pkce();
    // The issuer is configured: the redirect carries it, whichever instance answered.
    const r = await fetch(
      `${urlA}/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'app', redirect_uri: REDIRECT, code_challenge: p.challenge, code_challenge_method: 'S256' })}`,
      { redirect: 'manual' },
    );
    const back = new URL(r.headers.get('location')!).searchParams;
    assert.equal(back.get('iss'), 'http://as.example.test');
    const t = await token(urlB, {
      grant_type: 'authorization_code',
      code: back.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
      client_id: 'app',
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(payload(t.body.access_token!).iss, 'http://as.example.test');
    const jwksA = await (await fetch(`${urlA}/jwks.json`)).json();
    assert.deepEqual(await (await fetch(`${urlB}/jwks.json`)).json(), jwksA, 'one key, published alike');
    const rotated = await token(urlA, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token!, client_id: 'app' });
    assert.equal(rotated.status, 200);
    const reuse = await token(urlB, { grant_type: 'refresh_token', refresh_token: t.body.refresh_token!, client_id: 'app' });
    assert.match(reuse.body.error_description!, /already used/);
    const dead = await token(urlA, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token!, client_id: 'app' });
    assert.equal(dead.body.error, 'invalid_grant');
  } finally {
    await a.close();
    await b.close();
  }
});
