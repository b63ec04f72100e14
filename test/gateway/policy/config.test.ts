// The policy section's check: every mistake is refused at startup with the field's path, and a
// raw API key pasted where a reference belongs is refused without being echoed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPolicyConfig, PolicyConfigError } from '../../../src/gateway/policy/config.js';

function refused(config: unknown, pattern: RegExp): void {
  assert.throws(
    () => checkPolicyConfig(config),
    (e: unknown) => {
      assert.ok(e instanceof PolicyConfigError, String(e));
      assert.match(e.message, pattern);
      return true;
    },
  );
}

test('a full config passes and comes back as it was', () => {
  const config = {
    auth: { apiKeys: { 'env:ALICE_KEY': { id: 'alice', groups: ['dev'] }, [`sha256:${'ab'.repeat(32)}`]: { id: 'bob' } }, anonymous: false },
    visibility: { default: 'deny', rules: [{ when: { group: 'dev' }, allow: ['github_*'] }, { deny: ['*_delete*'] }] },
    limits: {
      store: { redis: 'redis://127.0.0.1:6379', keyPrefix: 'gw:', onError: 'closed', timeoutMs: 200 },
      rules: [
        { name: 'per-user', limit: 60, windowMs: 60000 },
        { name: 'smooth', per: 'caller-item', items: ['github_*'], tokenBucket: { capacity: 5, refillPerSecond: 1 } },
      ],
    },
    callLog: { to: 'stderr', arguments: 'keys' },
  };
  assert.equal(checkPolicyConfig(config), config);
  // The visibility shorthand: a bare list of rules.
  assert.doesNotThrow(() => checkPolicyConfig({ visibility: [{ allow: ['*'] }] }));
  assert.doesNotThrow(() => checkPolicyConfig({}));
});

test('mistakes name the field', () => {
  refused([], /^policy: must be an object/);
  refused({ auht: {} }, /^policy: unknown field "auht" \(did you mean "auth"\? expected /);
  refused({ visibility: [{ when: { scopes: 'x' }, allow: ['*'] }] }, /rules\[0\]\.when: unknown field "scopes" \(did you mean "scope"\? expected /);
  refused({ zzz: {} }, /^policy: unknown field "zzz" \(expected /);
  refused({ visibility: { rules: [{ when: { group: 'dev' } }] } }, /policy\.visibility\.rules\[0\]: needs "allow" or "deny"/);
  refused({ visibility: [{ allow: 'github_*' }] }, /policy\.visibility\.rules\[0\]\.allow: must be an array/);
  refused({ visibility: [{ kinds: ['tools'], allow: ['*'] }] }, /rules\[0\]\.kinds: "tools" is not a kind/);
  refused({ visibility: { default: 'hide', rules: [] } }, /policy\.visibility\.default: must be "allow" or "deny"/);
  refused({ visibility: [{ when: { groups: 'dev' }, allow: ['*'] }] }, /rules\[0\]\.when: unknown field "groups"/);
  refused({ limits: { rules: [{ limit: 10 }] } }, /policy\.limits\.rules\[0\]\.windowMs: must be a positive number/);
  refused({ limits: { rules: [{ limit: 1.5, windowMs: 10 }] } }, /rules\[0\]\.limit: must be a whole number/);
  refused({ limits: { rules: [{ limit: 1, windowMs: 10, tokenBucket: { capacity: 1, refillPerSecond: 1 } }] } }, /either "limit" with "windowMs"/);
  refused({ limits: { rules: [{}] } }, /either "limit" with "windowMs"/);
  refused({ limits: { rules: [{ tokenBucket: { capacity: 0, refillPerSecond: 1 } }] } }, /tokenBucket\.capacity: must be a positive number/);
  refused(
    {
      limits: {
        rules: [
          { name: 'a', limit: 1, windowMs: 1 },
          { name: 'a', limit: 1, windowMs: 1 },
        ],
      },
    },
    /rules\[1\]\.name: "a" names two rules/,
  );
  refused({ limits: { rules: [{ name: 'a b', limit: 1, windowMs: 1 }] } }, /rules\[0\]\.name: must be 1-64 letters/);
  refused({ limits: { store: { redis: 'localhost:6379' }, rules: [] } }, /policy\.limits\.store\.redis: must be a redis:\/\//);
  refused({ limits: { store: { redis: 'redis://x', onError: 'retry' }, rules: [] } }, /store\.onError: must be "open" or "closed"/);
  refused({ callLog: { to: '' } }, /policy\.callLog\.to/);
  refused({ callLog: { to: 'stderr', arguments: 'all' } }, /policy\.callLog\.arguments: must be true, false or "keys"/);
  refused({ auth: { apiKeys: { 'env:K': { groups: ['x'] } } } }, /apiKeys\[\?\]\.id: must be a non-empty string/);
  refused({ auth: { apiKeys: { 'env:A': { id: 'x' }, 'env:B': { id: 'x' } } } }, /two keys have the id "x"/);
  refused({ auth: { apiKeys: { 'env:A': { id: 'anonymous' } } } }, /"anonymous" is reserved/);
  refused({ auth: { oauth: { audience: 'x' } } }, /policy\.auth\.oauth\.issuer: must be the issuer URL/);
});

test('a raw key in place of a reference is refused, and the message does not repeat it', () => {
  const secret = 'sk-live-0123456789abcdef';
  assert.throws(
    () => checkPolicyConfig({ auth: { apiKeys: { [secret]: { id: 'alice' } } } }),
    (e: unknown) => {
      assert.ok(e instanceof PolicyConfigError);
      assert.match(e.message, /"env:VARIABLE" or "sha256:<64 hex digits>"/);
      assert.ok(!e.message.includes(secret), e.message);
      return true;
    },
  );
  // A digest of the wrong length is not a digest.
  refused({ auth: { apiKeys: { 'sha256:abcd': { id: 'alice' } } } }, /"sha256:<64 hex digits>"/);
});
