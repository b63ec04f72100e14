import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrame, encodeMessage, errorResponse, exceedsDepth, validateMessage } from '../../src/jsonrpc/codec.js';
import { ErrorCode, LocalError, McpError, toErrorObject } from '../../src/jsonrpc/errors.js';
import { isErrorResponse, isNotification, isRequest, isResponse } from '../../src/jsonrpc/messages.js';

const limits = { maxMessageSize: 1000, maxDepth: 8 };

test('decodes the three kinds of message and keeps unknown fields', () => {
  const frames = [
    { jsonrpc: '2.0', id: 1, method: 'm', params: { a: 1 }, extra: true },
    { jsonrpc: '2.0', method: 'n', vendor: { x: 1 } },
    { jsonrpc: '2.0', id: 'x', result: { ok: 1 }, extra: 'kept' },
    { jsonrpc: '2.0', id: 2, error: { code: -1, message: 'no', data: { why: 1 } }, extra: 1 },
  ];
  for (const f of frames) {
    const d = decodeFrame(JSON.stringify(f), limits);
    assert.deepEqual(d.errors, []);
    assert.deepEqual(d.badResponses, []);
    assert.equal(d.batch, false);
    assert.deepEqual(d.messages, [f]);
  }
  const [req, note, res, err] = frames.map((f) => decodeFrame(JSON.stringify(f), limits).messages[0]);
  assert.ok(isRequest(req) && !isNotification(req) && !isResponse(req));
  assert.ok(isNotification(note) && !isRequest(note));
  assert.ok(isResponse(res) && !isErrorResponse(res));
  assert.ok(isResponse(err) && isErrorResponse(err));
});

test('ids: strings and integers (including 0 and "0") are valid; null, floats, booleans, objects are not', () => {
  for (const id of [0, '0', -5, 2 ** 40, '', 'abc']) {
    const m = validateMessage({ jsonrpc: '2.0', id, method: 'ping' });
    assert.equal(typeof m, 'object', `id ${JSON.stringify(id)} should be accepted`);
    assert.equal((m as { id: unknown }).id, id);
  }
  for (const id of [null, 1.5, true, {}, []]) {
    const d = decodeFrame(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }), limits);
    assert.equal(d.messages.length, 0);
    assert.equal(d.errors[0].error.code, ErrorCode.InvalidRequest);
    assert.equal(d.errors[0].id, null, 'an unreadable id is answered with id null');
    assert.match(d.errors[0].error.message, /"id" must be a string or an integer/);
  }
});

test('parse error is -32700 with id null', () => {
  for (const text of ['{', '{"jsonrpc":"2.0",', 'nope', '']) {
    const d = decodeFrame(text, limits);
    assert.equal(d.errors.length, 1);
    assert.deepEqual(Object.keys(d.errors[0]).sort(), ['error', 'id', 'jsonrpc']);
    assert.equal(d.errors[0].id, null);
    assert.equal(d.errors[0].error.code, ErrorCode.ParseError);
    assert.match(d.errors[0].error.message, /^Parse error/);
  }
});

test('invalid request shapes are -32600 and keep the id when it can be read', () => {
  const cases: Array<[unknown, RegExp, unknown]> = [
    [42, /must be an object/, null],
    ['"str"', /must be an object/, null],
    [null, /must be an object/, null],
    [{ id: 1, method: 'ping' }, /"jsonrpc" must be "2.0"/, 1],
    [{ jsonrpc: '1.0', id: 'a', method: 'ping' }, /"jsonrpc" must be "2.0"/, 'a'],
    [{ jsonrpc: '2.0', id: 2, method: 7 }, /"method" must be a non-empty string/, 2],
    [{ jsonrpc: '2.0', id: 3, method: '' }, /"method" must be a non-empty string/, 3],
    [{ jsonrpc: '2.0', id: 4, method: 'x', params: [1, 2] }, /"params" must be an object/, 4],
    [{ jsonrpc: '2.0', id: 5, method: 'x', params: null }, /"params" must be an object/, 5],
    [{ jsonrpc: '2.0', method: 'x', params: 'p' }, /"params" must be an object/, null],
    [{ jsonrpc: '2.0', id: 6 }, /neither a request, a notification nor a response/, 6],
  ];
  for (const [value, message, id] of cases) {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const d = decodeFrame(text, limits);
    assert.equal(d.messages.length, 0, text);
    assert.equal(d.errors.length, 1, text);
    assert.equal(d.errors[0].error.code, ErrorCode.InvalidRequest, text);
    assert.match(d.errors[0].error.message, message, text);
    assert.equal(d.errors[0].id, id, text);
  }
});

test('malformed responses are reported, never answered with an error response', () => {
  const cases = [
    { jsonrpc: '2.0', id: 3, result: 'not an object' },
    { jsonrpc: '2.0', id: 3, result: null },
    { jsonrpc: '2.0', id: null, result: {} },
    { jsonrpc: '2.0', id: 3, error: { code: 'x', message: 'm' } },
    { jsonrpc: '2.0', id: 3, error: null },
    { jsonrpc: '1.0', id: 3, result: {} },
  ];
  for (const c of cases) {
    const d = decodeFrame(JSON.stringify(c), limits);
    assert.deepEqual(d.errors, [], JSON.stringify(c));
    assert.equal(d.messages.length, 0);
    assert.equal(d.badResponses.length, 1);
    assert.equal(d.badResponses[0].id, c.id === 3 ? 3 : null);
  }
  // An error response without an id (or with id null) is valid: the peer could not read ours.
  for (const c of [
    { jsonrpc: '2.0', error: { code: -32700, message: 'x' } },
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } },
  ]) {
    assert.equal(decodeFrame(JSON.stringify(c), limits).messages.length, 1);
  }
});

test('size limit: a frame over maxMessageSize is rejected with a clear -32600 before parsing', () => {
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { s: 'a'.repeat(2000) } });
  const d = decodeFrame(big, limits);
  assert.equal(d.errors[0].error.code, ErrorCode.InvalidRequest);
  assert.match(d.errors[0].error.message, /too large.*exceeds the limit of 1000/);
  assert.equal(d.errors[0].id, null);
  // Exactly at the limit is fine.
  const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { s: '' } });
  const exact = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { s: 'a'.repeat(1000 - base.length) } });
  assert.equal(exact.length, 1000);
  assert.equal(decodeFrame(exact, limits).messages.length, 1);
});

test('depth limit: deep params are rejected (id kept); the limit itself is accepted', () => {
  const nest = (n: number): unknown => (n === 0 ? 1 : { a: nest(n - 1) });
  // Message object is depth 1, params depth 2: maxDepth 8 allows params nesting 7 objects.
  const ok = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'x', params: nest(7) });
  assert.equal(decodeFrame(ok, limits).messages.length, 1);
  const deep = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'x', params: nest(8) });
  const d = decodeFrame(deep, limits);
  assert.equal(d.errors[0].error.code, ErrorCode.InvalidRequest);
  assert.match(d.errors[0].error.message, /nested deeper than the limit of 8/);
  assert.equal(d.errors[0].id, 9);
  // Already-parsed frames (in-process transports) are measured too.
  assert.match(decodeFrame({ jsonrpc: '2.0', id: 1, method: 'x', params: nest(20) }, limits).errors[0].error.message, /nested deeper/);
});

test('a 100k-deep array neither crashes the decoder nor the depth walk', () => {
  const n = 100_000;
  const text = '['.repeat(n) + ']'.repeat(n);
  const d = decodeFrame(text, { maxMessageSize: 1e7, maxDepth: 64 });
  assert.equal(d.errors.length, 1);
  assert.equal(d.errors[0].error.code, ErrorCode.InvalidRequest);
  assert.match(d.errors[0].error.message, /nested deeper/);
  let v: unknown[] = [];
  const root = v;
  for (let i = 0; i < n; i++) {
    const inner: unknown[] = [];
    v.push(inner);
    v = inner;
  }
  assert.equal(exceedsDepth(root, 64), true);
  assert.equal(exceedsDepth({ a: [{ b: 1 }] }, 3), false);
  assert.equal(exceedsDepth({ a: [{ b: {} }] }, 3), true);
});

test('batches: array frames decode item by item; an empty batch is -32600', () => {
  const d = decodeFrame(
    JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'a' }, { jsonrpc: '2.0', method: 'n' }, { jsonrpc: '2.0', id: 2, method: 5 }, 7]),
    limits,
  );
  assert.equal(d.batch, true);
  assert.equal(d.messages.length, 2);
  assert.deepEqual(
    d.errors.map((e) => [e.id, e.error.code]),
    [
      [2, -32600],
      [null, -32600],
    ],
  );
  const empty = decodeFrame('[]', limits);
  assert.equal(empty.messages.length, 0);
  assert.equal(empty.errors[0].error.code, ErrorCode.InvalidRequest);
  assert.match(empty.errors[0].error.message, /empty batch/);
});

test('errors: McpError round-trips; other throws become -32603 with their message', () => {
  const e = new McpError(-32602, 'bad', { field: 'x' });
  assert.deepEqual(e.toJSON(), { code: -32602, message: 'bad', data: { field: 'x' } });
  assert.deepEqual(toErrorObject(e), e.toJSON());
  assert.deepEqual(new McpError(-1, 'm').toJSON(), { code: -1, message: 'm' });
  const back = McpError.fromObject({ code: 5, message: 'five', data: [1] });
  assert.ok(back instanceof McpError);
  assert.deepEqual([back.code, back.message, back.data], [5, 'five', [1]]);
  assert.deepEqual(toErrorObject(new Error('plain')), { code: -32603, message: 'plain' });
  assert.deepEqual(toErrorObject('str'), { code: -32603, message: 'str' });
  assert.deepEqual(toErrorObject(new Error('')), { code: -32603, message: 'Internal error' });
  const local = new LocalError('timeout', 't');
  assert.ok(!(local instanceof McpError));
  assert.equal(local.kind, 'timeout');
  assert.deepEqual(errorResponse(undefined, -32600, 'x'), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'x' } });
  assert.deepEqual(errorResponse('0', -1, 'x', null), { jsonrpc: '2.0', id: '0', error: { code: -1, message: 'x', data: null } });
});

test('encodeMessage is compact JSON without newlines', () => {
  const text = encodeMessage({ jsonrpc: '2.0', id: 1, result: { s: 'a\nb', nested: { x: [1, 2] } } });
  assert.equal(text.includes('\n'), false);
  assert.deepEqual(JSON.parse(text), { jsonrpc: '2.0', id: 1, result: { s: 'a\nb', nested: { x: [1, 2] } } });
});
