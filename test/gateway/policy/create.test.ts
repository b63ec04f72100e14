// createPolicy: the policy section composed into one GatewayPolicy, as the gateway calls it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPolicy } from '../../../src/gateway/policy/create.js';
import { PolicyConfigError } from '../../../src/gateway/policy/config.js';
import { ManualClock } from '../../support/index.js';
import { tool } from './helpers.js';

const config = {
  auth: { apiKeys: { 'env:GW_ALICE': { id: 'alice', groups: ['dev'] }, 'env:GW_BOB': { id: 'bob', groups: ['ops'] } } },
  visibility: [{ when: { group: 'dev' }, allow: ['github_*'] }, { when: { group: 'ops' }, allow: ['jira_*', 'github_search'] }, { deny: ['*_delete*'] }],
  limits: { rules: [{ name: 'per-user', limit: 2, windowMs: 1000 }] },
};
const env = { GW_ALICE: 'a-key', GW_BOB: 'b-key' };

test('identify, visible and admit together, on in-memory counters', async () => {
  const clock = new ManualClock(0);
  const policy = createPolicy(config, { env, clock });
  const alice = policy.identify({ principal: 'alice', extra: { claims: { groups: ['dev'] } } });
  const bob = policy.identify({ principal: 'bob', extra: { claims: { groups: ['ops'] } } });
  const names = ['github_search', 'github_delete_repo', 'jira_create'];
  assert.deepEqual(
    names.filter((n) => policy.visible(alice, tool(n))),
    ['github_search'],
  );
  assert.deepEqual(
    names.filter((n) => policy.visible(bob, tool(n))),
    ['github_search', 'jira_create'],
  );
  assert.deepEqual(await policy.admit(alice, tool('github_search')), { ok: true });
  assert.deepEqual(await policy.admit(alice, tool('github_search')), { ok: true });
  const refused = await policy.admit(alice, tool('github_search'));
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.retryAfterMs, 1000);
  assert.deepEqual(await policy.admit(bob, tool('jira_create')), { ok: true });
  clock.advance(1000);
  assert.deepEqual(await policy.admit(alice, tool('github_search')), { ok: true });
  await policy.close();
});

test('a caller without credentials where none are allowed sees nothing and is refused', async () => {
  const policy = createPolicy(config, { env });
  const nobody = policy.identify(undefined);
  assert.equal(nobody.id, 'anonymous');
  assert.equal(policy.visible(nobody, tool('github_search')), false);
  assert.deepEqual(await policy.admit(nobody, tool('github_search')), { ok: false, reason: 'Authentication required', retryAfterMs: 0 });
});

test('without limits admit answers ok; a bad config throws PolicyConfigError before anything starts', async () => {
  const policy = createPolicy({ visibility: [{ deny: ['x_*'] }] });
  const who = policy.identify(undefined);
  assert.deepEqual(await policy.admit(who, tool('x_y')), { ok: true });
  assert.equal(policy.visible(who, tool('x_y')), false);
  assert.equal(policy.visible(who, tool('y_z')), true);
  assert.throws(() => createPolicy({ limits: { rules: [{ limit: 1 }] } }), PolicyConfigError);
  assert.throws(() => createPolicy(config, { env: {} }), /environment variable GW_ALICE, which is not set/);
  await policy.close();
  await policy.close();
});
