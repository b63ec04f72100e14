import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../support/index.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { ProgressGap } from '../../src/transports/progress-gap.js';

const progress = (token: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
const result = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, result: {} });

test('a result waits out the gap after its own request last reported progress, once', () => {
  const clock = new ManualClock(0);
  const gap = new ProgressGap(10, clock);
  assert.equal(gap.delay(result(1), 1), 0, 'no progress: no wait');
  assert.equal(gap.delay(progress(2), 2), 0, 'notifications never wait');
  clock.advance(4);
  assert.equal(gap.delay(result(3), 3), 0, 'another request is not held');
  assert.equal(gap.delay(result(2), 2), 6, 'the rest of the gap');
  assert.equal(gap.delay(result(2), 2), 0, 'forgotten once answered');
});

test('a result long after the last progress does not wait; gap 0 never waits', () => {
  const clock = new ManualClock(0);
  const gap = new ProgressGap(10, clock);
  gap.delay(progress(1), 1);
  clock.advance(25);
  assert.equal(gap.delay(result(1), 1), 0);
  const none = new ProgressGap(0, clock);
  none.delay(progress(1), 1);
  assert.equal(none.delay(result(1), 1), 0);
  assert.throws(() => new ProgressGap(-1), /progressGapMs must be 0 or more/);
});

test('requests that reported progress and were never answered are forgotten', () => {
  const clock = new ManualClock(0);
  const gap = new ProgressGap(10, clock);
  for (let id = 0; id < 64; id++) gap.delay(progress(id), id);
  clock.advance(20);
  gap.delay(progress(100), 100); // the 65th prunes the stale ones
  assert.equal((gap as unknown as { last: Map<number, number> }).last.size, 1);
  assert.equal(gap.delay(result(100), 100), 10);
});
