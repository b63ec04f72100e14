// Dynamic registrations in a real Redis shared by two instances: one bound for both (the count is
// a sorted set kept by a Lua script), every key with a TTL (a registration nobody uses goes by
// itself), a used one extended, and the bounded set's contract at the store level.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { RedisAuthorizationStore } from '../../../src/serving/oauth-server/redis-store.js';
import type { PrivateJwk } from '../../../src/serving/oauth-server/signing.js';
import { cleanup, connectRedis, PREFIX } from '../../state/redis/helpers.js';
import { code, pkce, REDIRECT, startAs, token } from './helpers.js';

after(cleanup);

const PUBLIC_REG = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] };

async function register(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

test('reserve: at most max live members, a member extended but never shortened, expired members dropped, the set key expiring with its last member', async () => {
  const redis = await connectRedis();
  const store = new RedisAuthorizationStore({ client: redis, keyPrefix: `${PREFIX}reserve:` });
  const key = store.setKey('s');
  for (const m of ['a', 'b', 'c']) assert.equal(await store.reserve('s', m, 60_000, 3), true);
  assert.equal(await store.reserve('s', 'd', 60_000, 3), false, 'full');
  assert.equal(await redis.zcard(key), 3);
  const before = Number(await redis.zscore(key, 'a'));
  assert.equal(await store.reserve('s', 'a', 1000, 3), true, 'a member is always kept');
  assert.equal(Number(await redis.zscore(key, 'a')), before, 'never shortened');
  assert.equal(await store.reserve('s', 'a', 600_000, 3), true);
  const pttl = await redis.pttl(key);
  assert.ok(pttl > 590_000 && pttl <= 600_000, `the set expires with its latest member: PTTL ${pttl}`);
  // b's time is up (its score put in the past, as the clock would): it no longer counts.
  await redis.zadd(key, String(Date.now() - 1000), 'b');
  assert.equal(await store.reserve('s', 'd', 60_000, 3), true);
  assert.deepEqual((await redis.zrange(key, '0', '-1')).sort(), ['a', 'c', 'd']);
  await assert.rejects(async () => store.reserve('s', 'e', 60_000, 0), /max must be a positive whole number/);
});

test('two instances on one Redis: one registration bound for both, TTLs on every key, a used client kept longer', async () => {
  const redis = await connectRedis();
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const store = new RedisAuthorizationStore({ client: redis, keyPrefix: `${PREFIX}dcr:` });
  const common = {
    store,
    signingKeys: [{ algorithm: 'ES256' as const, privateJwk: privateKey.export({ format: 'jwk' }) as PrivateJwk }],
    dynamicRegistration: { maxClients: 3, unusedTtlSec: 600, idleTtlSec: 3600, rateLimit: false as const },
  };
  const a = await startAs(common);
  const b = await startAs(common);
  const urlA = `http://127.0.0.1:${a.port}`;
  const urlB = `http://127.0.0.1:${b.port}`;
  try {
    const big = await register(urlA, { ...PUBLIC_REG, padding: 'x'.repeat(60_000) });
    assert.equal(big.status, 413, 'a 60 KB registration is refused');
    const ids: string[] = [];
    for (const url of [urlA, urlB, urlA]) {
      const r = await register(url, PUBLIC_REG);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids.push(r.body.client_id as string);
    }
    for (const url of [urlB, urlA]) {
      const full = await register(url, PUBLIC_REG);
      assert.equal(full.status, 503);
      assert.match(String(full.body.error_description), /^registration store full/);
    }
    assert.equal(await redis.zcard(store.setKey('clients')), 3, 'the bound holds across instances');
    for (const id of ids) {
      const pttl = await redis.pttl(store.key(`client:${id}`));
      assert.ok(pttl > 590_000 && pttl <= 600_000, `an unused registration expires with unusedTtlSec: PTTL ${pttl}`);
    }
    const setTtl = await redis.pttl(store.setKey('clients'));
    assert.ok(setTtl > 0 && setTtl <= 600_000, `the count expires too: PTTL ${setTtl}`);
    const leftovers = await redis.keys(`${PREFIX}dcr:*`);
    assert.ok(
      leftovers.every((k) => k.startsWith(store.key('client:')) || k === store.setKey('clients')),
      leftovers.join(' '),
    );

    // The first client signs in (authorization at A, token at B): it is kept for idleTtlSec.
    const p = pkce();
    const c = await code(urlA, { client_id: ids[0]!, redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const t = await token(urlB, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: ids[0]! });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    const used = await redis.pttl(store.key(`client:${ids[0]}`));
    assert.ok(used > 3_590_000 && used <= 3_600_000, `a used registration: PTTL ${used}`);
    assert.ok((await redis.pttl(store.setKey('clients'))) > 3_590_000);
    for (const k of await redis.keys(`${PREFIX}dcr:*`)) assert.ok((await redis.pttl(k)) > 0, `${k} has a TTL`);

    // An unused one's time is up (as Redis's clock would have it): its place is free again.
    await redis.zadd(store.setKey('clients'), String(Date.now() - 1000), ids[1]!);
    await redis.del(store.key(`client:${ids[1]}`));
    assert.equal((await register(urlB, PUBLIC_REG)).status, 201);
    assert.equal((await register(urlA, PUBLIC_REG)).status, 503);
  } finally {
    await a.close();
    await b.close();
  }
});
