import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrame, DEFAULT_LIMITS, exceedsDepth, handOff } from '../../src/jsonrpc/codec.js';

const nest = (n: number): unknown => (n === 0 ? 1 : { a: nest(n - 1) });

test('handOff: the next decode of the same value reuses the result, once', () => {
  const value = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const first = decodeFrame(value);
  handOff(value, first, DEFAULT_LIMITS.maxDepth);
  assert.equal(decodeFrame(value), first);
  assert.notEqual(decodeFrame(value), first, 'used up');
});

test('handOff: another value, or a stricter depth limit, decodes afresh', () => {
  const value = { jsonrpc: '2.0', id: 1, method: 'x', params: nest(10) as object };
  const first = decodeFrame(value);
  assert.equal(first.messages.length, 1);
  handOff(value, first, DEFAULT_LIMITS.maxDepth);
  const other = { jsonrpc: '2.0', id: 2, method: 'ping' };
  assert.equal(decodeFrame(other).messages[0], other);
  assert.notEqual(decodeFrame(value), first, 'the slot was cleared by the other decode');
  handOff(value, first, DEFAULT_LIMITS.maxDepth);
  const strict = decodeFrame(value, { ...DEFAULT_LIMITS, maxDepth: 5 });
  assert.equal(strict.messages.length, 0);
  assert.match(strict.errors[0].error.message, /nested deeper/);
});

test('exceedsDepth: the recursive and iterative walks agree at the boundary', () => {
  for (const limit of [3, 64, 256, 300]) {
    assert.equal(exceedsDepth(nest(limit), limit), false, `${limit} levels within ${limit}`);
    assert.equal(exceedsDepth(nest(limit + 1), limit), true, `${limit + 1} levels over ${limit}`);
    assert.equal(exceedsDepth([[nest(limit - 2)]], limit), false);
    assert.equal(exceedsDepth([[nest(limit - 1)]], limit), true);
  }
});
