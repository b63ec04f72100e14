import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrame, DEFAULT_LIMITS, exceedsDepth } from '../../src/jsonrpc/codec.js';

const nest = (n: number): unknown => (n === 0 ? 1 : { a: nest(n - 1) });

test('decodeFrame: a parsed value is checked against the depth limit it is given', () => {
  const value = { jsonrpc: '2.0', id: 1, method: 'x', params: nest(10) as object };
  assert.equal(decodeFrame(value, DEFAULT_LIMITS).messages[0], value);
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
