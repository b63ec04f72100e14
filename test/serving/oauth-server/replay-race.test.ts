// The attack on rotation: one refresh token (or one code) sent many times at once, over real
// HTTP, against the in-memory store and a real Redis. Exactly one request may win; every other
// one is a reuse and must revoke the whole sign-in, including what the winner was just given.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisAuthorizationStore } from '../../../src/serving/oauth-server/redis-store.js';
import type { AuthorizationStore } from '../../../src/serving/oauth-server/store.js';
import { cleanup, connectRedis, PREFIX } from '../../state/redis/helpers.js';
import { code, pkce, REDIRECT, startAs, token } from './helpers.js';

after(cleanup);

const PUBLIC = { client_id: 'app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' as const };
const N = 20;
const ROUNDS = 5;

async function signIn(issuer: string): Promise<{ form: Record<string, string>; first?: Record<string, string> }> {
  const p = pkce();
  const c = await code(issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
  return { form: { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: 'app' } };
}

/** N identical token requests at once: the answers, split into winners and the rest. */
async function race(issuer: string, form: Record<string, string>) {
  const all = await Promise.all(Array.from({ length: N }, () => token(issuer, form)));
  return { won: all.filter((r) => r.status === 200), lost: all.filter((r) => r.status !== 200) };
}

const stores: Array<[string, () => Promise<AuthorizationStore | undefined>]> = [
  ['in memory', async () => undefined],
  ['Redis', async () => new RedisAuthorizationStore({ client: await connectRedis(), keyPrefix: PREFIX })],
];

for (const [name, makeStore] of stores) {
  test(`${name}: ${N} concurrent uses of one refresh token: exactly one wins, and the reuse revokes the family, winner included`, async () => {
    const store = await makeStore();
    const as = await startAs({ clients: [PUBLIC], ...(store ? { store } : {}) });
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const { form } = await signIn(as.issuer);
        const t0 = await token(as.issuer, form);
        assert.equal(t0.status, 200, JSON.stringify(t0.body));
        const { won, lost } = await race(as.issuer, { grant_type: 'refresh_token', refresh_token: t0.body.refresh_token!, client_id: 'app' });
        assert.equal(won.length, 1, `round ${round}: exactly one refresh succeeds (${won.length} did)`);
        for (const r of lost) {
          assert.equal(r.status, 400);
          assert.equal(r.body.error, 'invalid_grant');
        }
        assert.ok(
          lost.some((r) => /already used/.test(r.body.error_description!)),
          `round ${round}: the losers are told it was a reuse: ${lost.map((r) => r.body.error_description).join(' | ')}`,
        );
        const winner = won[0]!.body.refresh_token!;
        assert.ok(winner);
        const next = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: winner, client_id: 'app' });
        assert.equal(next.body.error, 'invalid_grant', `round ${round}: the winner's new refresh token is revoked with its family`);
      }
    } finally {
      await as.close();
    }
  });

  test(`${name}: ${N} concurrent redemptions of one code: exactly one wins, and its refresh token is revoked`, async () => {
    const store = await makeStore();
    const as = await startAs({ clients: [PUBLIC], ...(store ? { store } : {}) });
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const { form } = await signIn(as.issuer);
        const { won, lost } = await race(as.issuer, form);
        assert.equal(won.length, 1, `round ${round}: exactly one redemption succeeds (${won.length} did)`);
        assert.ok(lost.every((r) => r.body.error === 'invalid_grant'));
        assert.ok(
          lost.some((r) => /already used/.test(r.body.error_description!)),
          lost.map((r) => r.body.error_description).join(' | '),
        );
        const next = await token(as.issuer, { grant_type: 'refresh_token', refresh_token: won[0]!.body.refresh_token!, client_id: 'app' });
        assert.equal(next.body.error, 'invalid_grant', `round ${round}: the winner's refresh token is revoked`);
      }
    } finally {
      await as.close();
    }
  });
}
