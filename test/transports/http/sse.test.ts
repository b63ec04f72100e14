import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeComment, encodeEvent, readSseStream, SseParseError, SseParser, type SseEvent } from '../../../src/transports/http/sse.js';

function parseAll(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  return chunks.flatMap((c) => p.feed(c));
}

/** Every way of cutting `text` in two, plus one character at a time. */
function splits(text: string): string[][] {
  const out: string[][] = [[...text]];
  for (let i = 0; i <= text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

function stream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(ch);
      c.close();
    },
  });
}

async function collect(it: AsyncIterable<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

test('basic fields, default event type, data joined with \\n', () => {
  const evs = parseAll(['id: 1\nevent: ping\ndata: a\ndata: b\n\ndata: plain\n\n']);
  assert.deepEqual(evs, [
    { id: '1', event: 'ping', data: 'a\nb' },
    { event: 'message', data: 'plain' },
  ]);
});

test('CRLF, LF and CR line endings, mixed', () => {
  const evs = parseAll(['data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n']);
  assert.deepEqual(
    evs.map((e) => e.data),
    ['a', 'b', 'c', 'd'],
  );
});

test('chunks split anywhere (including between CR and LF) give the same events', () => {
  const text = '\uFEFFid: 7\r\nevent: x\r\ndata: one\r\ndata:two\r\n\r\n: note\r\ndata: three\r\rretry: 250\ndata\n\n';
  const expected = parseAll([text]);
  assert.equal(expected.length, 3);
  assert.deepEqual(expected[0], { id: '7', event: 'x', data: 'one\ntwo' });
  assert.deepEqual(expected[1], { event: 'message', data: 'three' });
  assert.deepEqual(expected[2], { event: 'message', data: '', retry: 250 });
  for (const chunks of splits(text)) assert.deepEqual(parseAll(chunks), expected, JSON.stringify(chunks));
});

test('a CR ending one chunk and an LF starting the next is one line break', () => {
  const p = new SseParser();
  assert.deepEqual(p.feed('data: a\r'), []);
  assert.deepEqual(p.feed('\n'), []);
  assert.deepEqual(p.feed('\r\n'), [{ event: 'message', data: 'a' }]);
});

test('value: one leading space removed, no colon means empty value, colons kept in values', () => {
  const evs = parseAll(['data:  two spaces\ndata\ndata:x:y\n\n']);
  assert.equal(evs[0].data, ' two spaces\n\nx:y');
});

test('ids containing NUL are ignored; lastEventId persists; an empty id resets it', () => {
  const p = new SseParser();
  assert.deepEqual(p.feed('id: a\ndata: 1\n\n'), [{ id: 'a', event: 'message', data: '1' }]);
  assert.deepEqual(p.feed('id: b\0c\ndata: 2\n\n'), [{ event: 'message', data: '2' }]);
  assert.equal(p.lastEventId, 'a');
  assert.deepEqual(p.feed('id\ndata: 3\n\n'), [{ id: '', event: 'message', data: '3' }]);
  assert.equal(p.lastEventId, '');
});

test('retry accepts only ASCII digits', () => {
  const p = new SseParser();
  assert.deepEqual(p.feed('retry: 1500\ndata: a\n\n'), [{ event: 'message', data: 'a', retry: 1500 }]);
  for (const bad of ['1.5', '-1', ' 10', '10ms', '']) {
    assert.deepEqual(p.feed(`retry: ${bad}\ndata: b\n\n`), [{ event: 'message', data: 'b' }], bad);
  }
  assert.equal(p.retry, 1500);
});

test('comments are reported and never dispatch; unknown fields ignored; blank lines alone emit nothing', () => {
  const comments: string[] = [];
  const p = new SseParser({ onComment: (c) => comments.push(c) });
  assert.deepEqual(p.feed(': keepalive\n\n:raw\n\nfoo: bar\n\n\n\n'), []);
  assert.deepEqual(comments, ['keepalive', 'raw']);
});

test('a priming block (id, empty data) is emitted so its id is learned', () => {
  assert.deepEqual(parseAll(['id: s1_0\nretry: 50\ndata: \n\n']), [{ id: 's1_0', event: 'message', data: '', retry: 50 }]);
});

test('BOM only stripped at stream start; an empty event type means message', () => {
  assert.deepEqual(parseAll(['\uFEFFdata: a\n\n', '\uFEFFdata: b\n\n']), [
    { event: 'message', data: 'a' },
    // A BOM later on is part of the field name, so the line is an unknown field.
  ]);
  assert.deepEqual(parseAll(['event:\ndata: x\n\n']), [{ event: 'message', data: 'x' }]);
});

test('an incomplete block at end of input is not emitted; reset() drops it', () => {
  const p = new SseParser();
  assert.deepEqual(p.feed('data: partial\n'), []);
  p.reset();
  assert.deepEqual(p.feed('\n'), []);
});

test('events larger than maxEventSize throw', () => {
  const p = new SseParser({ maxEventSize: 10 });
  assert.throws(() => p.feed('data: 0123456789abc'), SseParseError);
  const q = new SseParser({ maxEventSize: 10 });
  assert.throws(() => q.feed('data: 01234\ndata: 56789\n'), SseParseError);
});

test('encodeEvent: field order, multi-line data, retry and validation', () => {
  assert.equal(encodeEvent({ data: 'x' }), 'data: x\n\n');
  assert.equal(
    encodeEvent({ id: '1', event: 'message', retry: 10, data: 'a\r\nb\nc\rd' }),
    'id: 1\nevent: message\nretry: 10\ndata: a\ndata: b\ndata: c\ndata: d\n\n',
  );
  assert.equal(encodeEvent({ id: 'p', data: '' }), 'id: p\ndata: \n\n');
  assert.throws(() => encodeEvent({ id: 'a\nb', data: '' }), TypeError);
  assert.throws(() => encodeEvent({ event: 'x\0', data: '' }), TypeError);
  assert.throws(() => encodeEvent({ retry: 1.5, data: '' }), TypeError);
  assert.equal(encodeComment(), ': keepalive\n\n');
  assert.equal(encodeComment('a\nb'), ': a\n: b\n\n');
});

test('encode/parse round trip, with comments interleaved', () => {
  const events: SseEvent[] = [
    { id: '1', event: 'message', data: '{"jsonrpc":"2.0","method":"x"}' },
    { event: 'endpoint', data: '/messages?sessionId=abc' },
    { id: '3', event: 'message', data: 'line1\nline2\n\nline4', retry: 3000 },
    { event: 'message', data: ' leading space and trailing ' },
    { event: 'message', data: 'ünïcødé ✓ 🎉' },
  ];
  const text = events.map((e) => encodeEvent(e) + encodeComment()).join('');
  assert.deepEqual(parseAll([text]), events);
  for (const chunks of splits(text).slice(0, 40)) assert.deepEqual(parseAll(chunks), events);
});

test('readSseStream decodes UTF-8 split across chunks, byte by byte', async () => {
  const text = 'data: héllo wörld €💡\n\nid: ü\ndata: 日本語\n\n';
  const bytes = new TextEncoder().encode(text);
  const chunks = [...bytes].map((b) => Uint8Array.of(b));
  const evs = await collect(readSseStream(stream(chunks)));
  assert.deepEqual(evs, [
    { event: 'message', data: 'héllo wörld €💡' },
    { id: 'ü', event: 'message', data: '日本語' },
  ]);
});

test('readSseStream strips a UTF-8 BOM and drops an unterminated final block', async () => {
  const bytes = new TextEncoder().encode('\uFEFFdata: a\n\ndata: unterminated');
  const evs = await collect(readSseStream(stream([bytes.slice(0, 2), bytes.slice(2)])));
  assert.deepEqual(evs, [{ event: 'message', data: 'a' }]);
});

test('readSseStream: aborting the signal ends the iteration and cancels the stream', async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('data: first\n\n'));
    },
    cancel() {
      cancelled = true;
    },
  });
  const ac = new AbortController();
  const seen: string[] = [];
  for await (const e of readSseStream(body, { signal: ac.signal })) {
    seen.push(e.data);
    setTimeout(() => ac.abort(), 5);
  }
  assert.deepEqual(seen, ['first']);
  assert.ok(cancelled);
});

test('readSseStream: a read error is thrown from the iterator', async () => {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('data: ok\n\n'));
      c.error(new Error('connection reset'));
    },
  });
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const e of readSseStream(body)) seen.push(e.data);
  }, /connection reset/);
  // The queued chunk may or may not be read before the error surfaces.
  assert.ok(seen.length <= 1);
});
