// The 2026-07-28 envelope written as text made once (src/protocol/envelope-text.ts): whatever the
// request, the JSON that goes out must say what JSON.stringify of the message says, and a request
// whose envelope keys were changed after it was made must go out as changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENVELOPE_TEXT, encodeWithEnvelope, envelopeText } from '../../src/protocol/envelope-text.js';
import type { JsonObject, JsonRpcMessage } from '../../src/jsonrpc/messages.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true }, elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'client "quoted"', version: '1.0.0' },
};

interface Req {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params: JsonObject & { _meta: JsonObject };
}

/** A request as ModernSession makes it: the envelope's keys copied into `_meta`, its text beside. */
function request(params: JsonObject | undefined, id: string | number = 7): Req {
  const env = envelopeText(ENVELOPE);
  const given = params?._meta as JsonObject | undefined;
  const out = Object.assign({}, params) as JsonObject & { [ENVELOPE_TEXT]?: unknown };
  out._meta = Object.assign({}, given, env.meta);
  out[ENVELOPE_TEXT] = env;
  return { jsonrpc: '2.0', id, method: 'tools/call', params: out as Req['params'] };
}

const encode = (m: Req | JsonRpcMessage) => encodeWithEnvelope(m as JsonRpcMessage);
const same = (m: Req) => assert.deepEqual(JSON.parse(encode(m)), JSON.parse(JSON.stringify(m)));

test('the text says what JSON.stringify says: no params, arguments of every kind, other _meta keys, string ids', () => {
  same(request(undefined));
  same(request({}));
  same(request({ name: 'echo', arguments: { message: 'hello', n: 1.5, list: [1, 'two', null], nested: { deep: { deeper: true } } } }));
  same(request({ name: 'x', _meta: { progressToken: 3, 'vendor/key': 'v' } }, 'req-1'));
  same(request({ name: 'line\nbreak "and quotes" \u2028 and \u00e9', arguments: {} }));
});

test('values JSON leaves out or converts are left out and converted as JSON.stringify does', () => {
  const when = new Date(0);
  same(request({ name: 'x', skipped: undefined, fn: (() => 1) as unknown as JsonObject, arguments: { when: when as unknown as JsonObject } }));
  same(request({ name: 'x', _meta: { progressToken: undefined as unknown as JsonObject } }));
  // params or _meta that convert themselves are encoded the ordinary way
  const m = request({ name: 'x' });
  m.params.toJSON = (() => ({ replaced: true })) as unknown as JsonObject;
  assert.deepEqual(JSON.parse(encode(m)).params, { replaced: true });
});

test('an envelope key changed after the request was made (by middleware) goes out as changed', () => {
  const m = request({ name: 'echo' });
  m.params._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
  assert.equal(JSON.parse(encode(m)).params._meta['io.modelcontextprotocol/protocolVersion'], '2099-01-01');
  const dropped = request({ name: 'echo' });
  delete dropped.params._meta['io.modelcontextprotocol/clientInfo'];
  assert.equal('io.modelcontextprotocol/clientInfo' in JSON.parse(encode(dropped)).params._meta, false);
  const replaced = request({ name: 'echo' });
  replaced.params._meta = { only: 1 };
  assert.deepEqual(JSON.parse(encode(replaced)).params._meta, { only: 1 });
});

test('the envelope is a copy: an options object changed in place later cannot make the text and the keys disagree', () => {
  const caps: JsonObject = { roots: { listChanged: true } };
  const env = envelopeText({ 'io.modelcontextprotocol/clientCapabilities': caps });
  (caps.roots as JsonObject).listChanged = false;
  assert.equal(env.text, '"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}');
  assert.deepEqual(env.meta, { 'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true } } });
});

test('a message without the envelope text is JSON.stringify exactly', () => {
  const plain = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { a: 1 } } } as JsonRpcMessage;
  assert.equal(encodeWithEnvelope(plain), JSON.stringify(plain));
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' } as JsonRpcMessage;
  assert.equal(encodeWithEnvelope(note), JSON.stringify(note));
});

test('params encoded in place are left as they were; odd shapes (meta not last, a key after params, frozen or accessor params) are encoded as JSON.stringify does', () => {
  const m = request({ name: 'echo', arguments: { a: 1 }, _meta: { progressToken: 4 } });
  const meta = m.params._meta;
  const before = JSON.stringify(m);
  same(m);
  assert.equal(m.params._meta, meta, 'the same _meta object is back in place');
  assert.equal(JSON.stringify(m), before);
  // _meta given first by the caller: not the last key of params.
  same(request({ _meta: { progressToken: 1 }, name: 'x', arguments: { b: 2 } }));
  // A key after params: the envelope must not be written into it.
  const extra = request({ name: 'x' }) as Req & { extra?: JsonObject };
  extra.extra = { _meta: {} };
  same(extra);
  assert.deepEqual(JSON.parse(encode(extra)).extra, { _meta: {} });
  // Frozen params: encoded, not thrown.
  const frozen = request({ name: 'x' });
  Object.freeze(frozen.params);
  same(frozen);
  // An accessor _meta whose setter ignores what it is given.
  const odd = request({ name: 'x' });
  const kept = odd.params._meta;
  delete (odd.params as Partial<Req['params']>)._meta;
  Object.defineProperty(odd.params, '_meta', { get: () => kept, set: () => {}, enumerable: true, configurable: true });
  same(odd);
  assert.equal(encode(odd).split('io.modelcontextprotocol/protocolVersion').length, 2, 'each envelope key once');
  assert.equal(odd.params._meta, kept);
});
