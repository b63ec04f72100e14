import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { LineWriter, EARLY_LINES } from '../../../src/transports/stdio/line-writer.js';

/** A stream that records each write() call; `full` makes write() return false until drained. */
function sink(): { stream: Writable; writes: string[]; setFull(v: boolean): void } {
  const writes: string[] = [];
  let full = false;
  const stream = new Writable({
    write(_chunk: Buffer, _enc, cb) {
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
  // Without earlyLines (the server's writer), a long tick still leaves in one write.
  const many = Array.from({ length: EARLY_LINES * 3 }, (_, i) => w.write(`${i}\n`));
  assert.equal(writes.length, 2);
  await Promise.all(many);
  assert.equal(writes.length, 3);
});

test('the first lines of a tick leave at once, so the peer can start; the rest at its end', async () => {
  const { stream, writes } = sink();
  const w = new LineWriter(stream, undefined, EARLY_LINES);
  const n = EARLY_LINES * 2 + 3;
  const lines = Array.from({ length: n }, (_, i) => `${i}\n`);
  const done: Promise<void>[] = [];
  for (let i = 0; i < EARLY_LINES - 1; i++) done.push(w.write(lines[i]!));
  assert.deepEqual(writes, [], 'not full yet: held');
  done.push(w.write(lines[EARLY_LINES - 1]!));
  assert.deepEqual(writes, [lines.slice(0, EARLY_LINES).join('')], 'early batch full: handed over at once');
  for (let i = EARLY_LINES; i < n; i++) done.push(w.write(lines[i]!));
  assert.equal(writes.length, 1, 'one early batch per tick: the rest waits for the tick to end');
  await Promise.all(done);
  assert.deepEqual(writes, [lines.slice(0, EARLY_LINES).join(''), lines.slice(EARLY_LINES).join('')]);
  // A new tick has its own early batch.
  const next = Array.from({ length: EARLY_LINES }, (_, i) => w.write(`n${i}\n`));
  assert.equal(writes.length, 3);
  await Promise.all(next);
});

test('an early batch behind a drain wait stays queued, in order', async () => {
  const { stream, writes, setFull } = sink();
  const w = new LineWriter(stream, undefined, EARLY_LINES);
  setFull(true);
  const first = w.write('x\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, ['x\n'], 'taken, but the stream is full: waiting for drain');
  const rest = Array.from({ length: EARLY_LINES * 2 + 1 }, (_, i) => w.write(`${i}\n`));
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 1, 'waiting for drain');
  setFull(false);
  stream.emit('drain');
  await Promise.all([first, ...rest]);
  assert.equal(writes.join(''), 'x\n' + Array.from({ length: EARLY_LINES * 2 + 1 }, (_, i) => `${i}\n`).join(''));
  assert.equal(writes.length, 3, 'the early batch and the rest, each queued in order behind the drain');
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
