import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MAX_LINE_LENGTH, LineReader } from '../../../src/transports/stdio/line-reader.js';

function collector(maxLineLength?: number): { reader: LineReader; lines: string[]; oversize: number[] } {
  const lines: string[] = [];
  const oversize: number[] = [];
  const reader = new LineReader({ maxLineLength, onLine: (l) => lines.push(l), onOversize: (n) => oversize.push(n) });
  return { reader, lines, oversize };
}

test('splits lines within one chunk and keeps a partial line for later', () => {
  const { reader, lines } = collector();
  reader.push(Buffer.from('{"a":1}\n{"b":2}\n{"c":'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  assert.equal(reader.bufferedBytes, 5);
  reader.push(Buffer.from('3}\n'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.equal(reader.bufferedBytes, 0);
});

test('joins a line split across many chunks', () => {
  const { reader, lines } = collector();
  const text = '{"jsonrpc":"2.0","method":"x","params":{"v":"hello"}}\n';
  for (let i = 0; i < text.length; i += 3) reader.push(Buffer.from(text.slice(i, i + 3)));
  assert.deepEqual(lines, [text.slice(0, -1)]);
});

test('decodes multi-byte UTF-8 split across chunks', () => {
  const { reader, lines } = collector();
  const text = '{"s":"€ 日本 😀 é"}\n';
  const bytes = Buffer.from(text, 'utf8');
  // One byte at a time cuts through every multi-byte character.
  for (let i = 0; i < bytes.length; i++) reader.push(bytes.subarray(i, i + 1));
  assert.deepEqual(lines, [text.slice(0, -1)]);
});

test('strips CR of CRLF and skips empty and whitespace-only lines', () => {
  const { reader, lines } = collector();
  reader.push(Buffer.from('{"a":1}\r\n\r\n\n   \n\t \r\n{"b":2}\r'));
  reader.push(Buffer.from('\n'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
});

test('end() delivers a final line without newline', () => {
  const { reader, lines } = collector();
  reader.push(Buffer.from('{"a":1}\n{"b":2}'));
  reader.end();
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  reader.end();
  assert.equal(lines.length, 2);
});

test('an over-long line in one chunk is reported and the next line still arrives', () => {
  const { reader, lines, oversize } = collector(16);
  reader.push(Buffer.from('x'.repeat(40) + '\n{"ok":true}\n'));
  assert.deepEqual(oversize, [40]);
  assert.deepEqual(lines, ['{"ok":true}']);
});

test('a line of exactly the limit is accepted', () => {
  const { reader, lines, oversize } = collector(10);
  reader.push(Buffer.from('0123456789\n'));
  assert.deepEqual(lines, ['0123456789']);
  assert.deepEqual(oversize, []);
});

test('an over-long line across chunks is reported once and skipped to its newline', () => {
  const { reader, lines, oversize } = collector(16);
  reader.push(Buffer.from('{"first":1}\n' + 'y'.repeat(10)));
  reader.push(Buffer.from('y'.repeat(10)));
  assert.deepEqual(oversize, [20]);
  reader.push(Buffer.from('y'.repeat(100)));
  reader.push(Buffer.from('yyy\n{"after"'));
  reader.push(Buffer.from(':2}\n'));
  assert.deepEqual(oversize, [20]);
  assert.deepEqual(lines, ['{"first":1}', '{"after":2}']);
});

test('memory stays bounded while an endless line streams in', () => {
  const max = 1024 * 1024;
  const { reader, lines, oversize } = collector(max);
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let peak = 0;
  for (let i = 0; i < 160; i++) {
    // 10 MiB without a newline.
    reader.push(chunk);
    peak = Math.max(peak, reader.bufferedBytes);
  }
  assert.ok(peak <= max, `buffered ${peak} bytes, limit ${max}`);
  assert.equal(reader.bufferedBytes, 0);
  assert.equal(oversize.length, 1);
  assert.ok(oversize[0] > max);
  reader.push(Buffer.from('tail\n{"next":1}\n'));
  assert.deepEqual(lines, ['{"next":1}']);
  assert.equal(oversize.length, 1);
});

test('the default limit is 4 MiB and bad limits are refused', () => {
  assert.equal(DEFAULT_MAX_LINE_LENGTH, 4 * 1024 * 1024);
  assert.equal(new LineReader({ onLine: () => {} }).maxLineLength, DEFAULT_MAX_LINE_LENGTH);
  assert.throws(() => new LineReader({ onLine: () => {}, maxLineLength: 0 }), RangeError);
});

test('a throwing callback leaves the reader usable', () => {
  const lines: string[] = [];
  const reader = new LineReader({
    onLine: (l) => {
      if (l === 'boom') throw new Error('boom');
      lines.push(l);
    },
  });
  assert.throws(() => reader.push(Buffer.from('boom\n{"x":1}\n')), /boom/);
  reader.push(Buffer.from('{"y":2}\n'));
  assert.deepEqual(lines, ['{"y":2}']);
});
