import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestEra } from '../../src/protocol/era.js';

const ENVELOPE = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };

test('requestEra: the envelope, a modern version header, or a modern-only method make a request modern', () => {
  assert.equal(requestEra('tools/call', ENVELOPE), 'modern');
  assert.equal(requestEra('tools/call', ENVELOPE, '2025-06-18'), 'modern', 'the envelope decides; the header check reports the mismatch');
  assert.equal(requestEra('tools/call', undefined, '2026-07-28'), 'modern');
  assert.equal(requestEra('server/discover', undefined), 'modern');
  assert.equal(requestEra('subscriptions/listen', {}), 'modern');
  assert.equal(requestEra(undefined, undefined, '2026-07-28'), 'modern', 'a response goes by the header');
});

test('requestEra: everything else is the handshake era', () => {
  assert.equal(requestEra('tools/call', undefined), 'handshake');
  assert.equal(requestEra('tools/call', { _meta: { progressToken: 1 } }, '2025-11-25'), 'handshake');
  assert.equal(requestEra('initialize', {}, '2099-01-01'), 'handshake', 'an unknown header version is not modern by itself');
  assert.equal(requestEra('tools/call', { _meta: null as never }), 'handshake');
  assert.equal(requestEra(undefined, undefined, '2025-11-25'), 'handshake');
  assert.equal(requestEra(undefined, undefined), 'handshake');
});
