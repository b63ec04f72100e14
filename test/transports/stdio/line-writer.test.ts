import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { LineWriter } from '../../../src/transports/stdio/line-writer.js';

/** A stream that records each write() call; `full` makes write() return false until drained. */
function sink(): { stream: Writable; writes: string[]; setFull(v: boolean): void } {
  const writes: string[] = [];
  let full = false;
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      cb();
    },
  });
  const original = stream.write.bind(stream);
  stream.write = ((chunk: string, cb?: (e?: Error | null) => void) => {
    writes.push(chunk);
    original(chunk, cb);
    return !full;
  }) as typeof stream.write;
  return { stream, writes, setFull: (v) => (full = v) };
}

test('lines written in one tick leave in one write, in order', async () => {
  const { stream, writes } = sink();
  const w = new LineWriter(stream);
  const done = [w.write('a\n'), w.write('b\n'), w.write('c\n')];
  assert.deepEqual(writes, [], 'held until the end of the tick');
  await Promise.all(done);
  assert.deepEqual(writes, ['a\nb\nc\n']);
  await w.write('d\n');
  assert.deepEqual(writes, ['a\nb\nc\n', 'd\n']);
});

test('a full stream holds the next batch until drain, which collects what comes meanwhile', async () => {
  const { stream, writes, setFull } = sink();
  const w = new LineWriter(stream);
  setFull(true);
  let firstDone = false;
  const first = w.write('1\n').then(() => (firstDone = true));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, ['1\n']);
  assert.equal(firstDone, false, 'waits for drain');
  setFull(false);
  const second = w.write('2\n');
  await new Promise((r) => setImmediate(r));
  const third = w.write('3\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, ['1\n'], 'nothing more before drain');
  stream.emit('drain');
  await Promise.all([first, second, third]);
  assert.deepEqual(writes, ['1\n', '2\n', '3\n']);
});

test('flushNow writes the open batch at once (before an end), and a failure rejects queued lines', async () => {
  const { stream, writes } = sink();
  const w = new LineWriter(stream);
  const p = w.write('x\n');
  w.flushNow();
  assert.deepEqual(writes, ['x\n']);
  await p;
  const q = w.write('y\n');
  w.fail(new Error('gone'));
  await assert.rejects(q, /gone/);
  await assert.rejects(w.write('z\n'), /gone/);
  assert.equal(w.error?.message, 'gone');
});
