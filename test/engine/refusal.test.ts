// The engine is the one home of the batch and reused-id checks; HTTP asks them before routing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrame } from '../../src/jsonrpc/codec.js';
import { Peer } from '../../src/engine/peer.js';
import { createLinkedPair } from '../../src/transports/memory/index.js';
import type { Transport } from '../../src/engine/transport.js';

test('Peer.refusal: a batch the handlers do not allow, and an id still in flight', async () => {
  const [a] = createLinkedPair();
  let release!: () => void;
  let batches = false;
  const peer = new Peer(a, {
    onrequest: () => new Promise((r) => (release = () => r({}))),
    allowBatch: () => batches,
  });
  await peer.start();
  const batch = decodeFrame([{ jsonrpc: '2.0', id: 1, method: 'x' }]);
  assert.match(peer.refusal(batch)?.error.message ?? '', /batches are only accepted with protocol version 2025-03-26/);
  batches = true;
  assert.equal(peer.refusal(batch), undefined);
  const one = decodeFrame({ jsonrpc: '2.0', id: 'a', method: 'x' });
  assert.equal(peer.refusal(one), undefined);
  (a as Transport).ondecoded!(one);
  const again = peer.refusal(one);
  assert.equal(again?.id, 'a');
  assert.equal(again?.error.code, -32600);
  assert.match(again?.error.message ?? '', /id "a" is already in use by a request in progress/);
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(peer.refusal(one), undefined, 'free again once answered');
  await peer.close();
});
