// Rate limits and quotas counted in memory, with time moved by hand: fixed windows, token
// buckets, per caller and per caller and item, which rules apply, and what a refusal says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Limits, MemoryCounter } from '../../../src/gateway/policy/limits.js';
import { ManualClock } from '../../support/index.js';
import { caller, tool } from './helpers.js';

const alice = caller('alice', ['dev']);
const bob = caller('bob', ['ops']);

async function outcomes(limits: Limits, who = alice, name = 'github_search', n = 1): Promise<Array<true | number>> {
  const out: Array<true | number> = [];
  for (let i = 0; i < n; i++) {
    const a = await limits.admit(who, tool(name));
    out.push(a.ok ? true : a.retryAfterMs);
  }
  return out;
}

test('fixed window: limit calls per window, retryAfterMs until the window ends, then a fresh window', async () => {
  const clock = new ManualClock(1_000_000);
  const limits = new Limits([{ name: 'per-user', limit: 3, windowMs: 60_000 }], new MemoryCounter({ clock }));
  assert.deepEqual(await outcomes(limits, alice, 'github_search', 3), [true, true, true]);
  clock.advance(20_000);
  const refused = await limits.admit(alice, tool('github_search'));
  assert.deepEqual(refused, { ok: false, retryAfterMs: 40_000, reason: 'Rate limit "per-user" reached (3 calls per 60s); retry in 40s' });
  // Per caller: bob has his own count.
  assert.deepEqual(await outcomes(limits, bob, 'github_search', 3), [true, true, true]);
  clock.advance(39_999);
  assert.deepEqual(await outcomes(limits), [1]);
  clock.advance(1);
  assert.deepEqual(await outcomes(limits, alice, 'github_search', 4), [true, true, true, 60_000]);
});

test('a zero limit refuses every call (a block with a reason)', async () => {
  const clock = new ManualClock(0);
  const limits = new Limits([{ name: 'off', limit: 0, windowMs: 1000, items: ['jira_*'] }], new MemoryCounter({ clock }));
  assert.deepEqual(await outcomes(limits, alice, 'jira_create', 2), [1000, 1000]);
  assert.deepEqual(await outcomes(limits, alice, 'github_search', 2), [true, true]);
});

test('token bucket: a burst of capacity, then one call per refill interval, with retryAfterMs to the next token', async () => {
  const clock = new ManualClock(0);
  const limits = new Limits([{ name: 'smooth', tokenBucket: { capacity: 3, refillPerSecond: 2 } }], new MemoryCounter({ clock }));
  assert.deepEqual(await outcomes(limits, alice, 'x_y', 4), [true, true, true, 500]);
  clock.advance(200);
  assert.deepEqual(await outcomes(limits, alice, 'x_y'), [300]);
  clock.advance(300);
  assert.deepEqual(await outcomes(limits, alice, 'x_y', 2), [true, 500]);
  // Refills stop at capacity however long the pause.
  clock.advance(3_600_000);
  assert.deepEqual(await outcomes(limits, alice, 'x_y', 4), [true, true, true, 500]);
  const refused = await limits.admit(alice, tool('x_y'));
  assert.equal(!refused.ok && refused.reason, 'Rate limit "smooth" reached (bursts of 3, 2 a second); retry in 1s');
});

test('per caller-item: each item has its own count; items, kinds and when choose the calls a rule counts', async () => {
  const clock = new ManualClock(0);
  const limits = new Limits(
    [
      { name: 'each-tool', per: 'caller-item', items: ['github_*'], limit: 1, windowMs: 1000 },
      { name: 'ops-prompts', when: { group: 'ops' }, kinds: ['prompt'], limit: 1, windowMs: 1000 },
    ],
    new MemoryCounter({ clock }),
  );
  assert.deepEqual(await outcomes(limits, alice, 'github_search', 2), [true, 1000]);
  assert.deepEqual(await outcomes(limits, alice, 'github_issues', 2), [true, 1000]);
  assert.deepEqual(await outcomes(limits, alice, 'jira_create', 3), [true, true, true]);
  const refused = await limits.admit(alice, tool('github_search'));
  assert.match(!refused.ok ? refused.reason : '', /"each-tool" reached for github_search/);
  const prompt = { kind: 'prompt', name: 'jira_summary', server: 'jira', original: 'summary' } as const;
  assert.equal((await limits.admit(alice, prompt)).ok, true);
  assert.equal((await limits.admit(alice, prompt)).ok, true);
  assert.equal((await limits.admit(bob, prompt)).ok, true);
  assert.equal((await limits.admit(bob, prompt)).ok, false);
});

test('per item: one counter for every caller, to spare a backend', async () => {
  const limits = new Limits([{ name: 'backend', per: 'item', items: ['jira_*'], limit: 2, windowMs: 1000 }], new MemoryCounter({ clock: new ManualClock(0) }));
  assert.deepEqual(await outcomes(limits, alice, 'jira_create'), [true]);
  assert.deepEqual(await outcomes(limits, bob, 'jira_create', 2), [true, 1000]);
  assert.deepEqual(await outcomes(limits, bob, 'jira_search'), [true]);
  const refused = await limits.admit(alice, tool('jira_create'));
  assert.match(!refused.ok ? refused.reason : '', /"backend" reached for jira_create \(all callers\)/);
});

test('every applicable rule must pass: a quota and a rate limit together', async () => {
  const clock = new ManualClock(0);
  const limits = new Limits(
    [
      { name: 'rate', tokenBucket: { capacity: 2, refillPerSecond: 1 } },
      { name: 'daily', limit: 3, windowMs: 86_400_000 },
    ],
    new MemoryCounter({ clock }),
  );
  assert.deepEqual(await outcomes(limits, alice, 'a_b', 3), [true, true, 1000]);
  clock.advance(2000);
  assert.deepEqual(await outcomes(limits, alice, 'a_b', 2), [true, 86_398_000]);
});

test('ids holding ":" cannot reach another caller\'s counter', async () => {
  const counter = new MemoryCounter({ clock: new ManualClock(0) });
  const limits = new Limits([{ name: 'r', per: 'caller-item', limit: 1, windowMs: 1000 }], counter);
  // Unescaped, "a:tool:b_c" + "x" and "a" + "b_c:tool:x"-style parts could build the same key.
  assert.equal((await limits.admit(caller('a:tool:b_c'), tool('x_y'))).ok, true);
  assert.equal((await limits.admit(caller('a'), tool('b_c:tool:x_y'))).ok, true);
  assert.equal(counter.size, 2);
});

test('spent windows are dropped as calls come, so many callers do not grow memory for ever', async () => {
  const clock = new ManualClock(0);
  const counter = new MemoryCounter({ clock });
  const limits = new Limits([{ limit: 5, windowMs: 1000 }], counter);
  for (let i = 0; i < 1000; i++) await limits.admit(caller(`user${i}`), tool('a_b'));
  assert.equal(counter.size, 1000);
  clock.advance(1000);
  for (let i = 0; i < 24; i++) await limits.admit(alice, tool('a_b'));
  assert.equal(counter.size, 1);
});
