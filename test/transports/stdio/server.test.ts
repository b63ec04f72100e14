import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { flush } from '../../support/index.js';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { StdioServerTransport } from '../../../src/transports/stdio/server.js';

function setup(maxMessageSize?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout, maxMessageSize });
  const frames: unknown[] = [];
  const errors: Error[] = [];
  const closes: Array<Error | undefined> = [];
  transport.onmessage = (f) => frames.push(f);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = (r) => closes.push(r);
  let out = '';
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  return { stdin, stdout, transport, frames, errors, closes, output: () => out };
}

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { n } });

test('hands each line up as a raw string frame', async () => {
  const { stdin, transport, frames } = setup();
  await transport.start();
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0",');
  stdin.write('"method":"x"}\r\n\n');
  await flush(); // stream deliveries are tick-driven, not timed
  assert.deepEqual(frames, ['{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","method":"x"}']);
  assert.equal(typeof frames[0], 'string');
  await transport.close();
});

test('send writes one compact JSON line per message', async () => {
  const { transport, output } = setup();
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } });
  await transport.send([note(1), note(2)]);
  await flush(); // stream deliveries are tick-driven, not timed
  const lines = output().split('\n');
  assert.equal(lines.length, 3);
  assert.equal(lines[2], '');
  assert.deepEqual(JSON.parse(lines[0]), { jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } });
  assert.equal(JSON.parse(lines[1]).length, 2);
  await transport.close();
});

test('backpressure: waits for drain and never reorders messages', async () => {
  const written: string[] = [];
  let writesWhileFull = 0;
  let full = false;
  const stdout = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _enc, cb) {
      if (full) writesWhileFull++;
      written.push(chunk.toString('utf8'));
      // Accepts each write a turn of the event loop later (not a time), so the stream fills.
      setImmediate(cb);
    },
  });
  const origWrite = stdout.write.bind(stdout);
  let falseReturns = 0;
  stdout.write = ((...args: Parameters<Writable['write']>) => {
    const ok = origWrite(...args);
    if (!ok) falseReturns++;
    full = !ok;
    return ok;
  }) as Writable['write'];
  stdout.on('drain', () => (full = false));
  const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
  await transport.start();
  const sends = Array.from({ length: 40 }, (_, i) => transport.send(note(i)));
  await Promise.all(sends);
  await flush(); // stream deliveries are tick-driven, not timed
  assert.ok(falseReturns > 0, 'the stream should have pushed back');
  assert.equal(writesWhileFull, 0);
  const ns = written
    .join('')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { params: { n: number } }).params.n);
  assert.deepEqual(
    ns,
    Array.from({ length: 40 }, (_, i) => i),
  );
  await transport.close();
});

test('an over-long line gets an error frame with id null, and reading goes on', async () => {
  const { stdin, transport, frames, errors, output } = setup(100);
  await transport.start();
  stdin.write('{"jsonrpc":"2.0","id":7,"method":"big","params":{"x":"' + 'z'.repeat(300) + '"}}\n');
  stdin.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
  await flush(); // stream deliveries are tick-driven, not timed
  assert.deepEqual(frames, ['{"jsonrpc":"2.0","id":8,"method":"ping"}']);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /Message too large/);
  const reply = JSON.parse(output().trim()) as { jsonrpc: string; id: null; error: { code: number; message: string } };
  assert.equal(reply.jsonrpc, '2.0');
  assert.equal(reply.id, null);
  assert.equal(reply.error.code, -32600);
  assert.match(reply.error.message, /^Message too large: /);
  await transport.close();
});

test('stdin EOF closes once; later sends reject', async () => {
  const { stdin, transport, frames, closes } = setup();
  await transport.start();
  stdin.end('{"jsonrpc":"2.0","method":"last"}');
  await flush(); // stream deliveries are tick-driven, not timed
  assert.deepEqual(frames, ['{"jsonrpc":"2.0","method":"last"}']);
  assert.deepEqual(closes, [undefined]);
  await transport.close();
  assert.equal(closes.length, 1);
  await assert.rejects(transport.send(note(1)), /closed/);
});

test('close() stops reading, fires onclose once, and leaves stdout open', async () => {
  const { stdin, stdout, transport, frames, closes } = setup();
  await transport.start();
  await transport.close();
  await transport.close();
  assert.deepEqual(closes, [undefined]);
  stdin.write('{"jsonrpc":"2.0","method":"late"}\n');
  await flush(); // stream deliveries are tick-driven, not timed
  assert.deepEqual(frames, []);
  assert.equal(stdin.listenerCount('data'), 0);
  assert.equal(stdout.writableEnded, false);
  assert.equal(stdout.destroyed, false);
  await assert.rejects(transport.send(note(1)), /Cannot send: StdioServerTransport is closed/);
});

test('an EPIPE on stdout goes to onerror and closes the transport without crashing', async () => {
  const stdout = new Writable({
    write(_chunk, _enc, cb) {
      const err: NodeJS.ErrnoException = new Error('write EPIPE');
      err.code = 'EPIPE';
      cb(err);
    },
  });
  const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
  const errors: Error[] = [];
  const closes: Array<Error | undefined> = [];
  transport.onerror = (e) => errors.push(e);
  transport.onclose = (r) => closes.push(r);
  await transport.start();
  await transport.send(note(1)).catch(() => undefined);
  await flush(); // stream deliveries are tick-driven, not timed
  assert.equal(errors.length, 1);
  assert.equal((errors[0] as NodeJS.ErrnoException).code, 'EPIPE');
  assert.equal(closes.length, 1);
  await assert.rejects(transport.send(note(2)));
  // A late error on the stream after close must not become an uncaught exception.
  stdout.emit('error', new Error('late'));
});

test('a throwing onmessage is reported, not fatal', async () => {
  const { stdin, transport, errors } = setup();
  const seen: unknown[] = [];
  transport.onmessage = (f) => {
    seen.push(f);
    if (seen.length === 1) throw new Error('handler failed');
  };
  await transport.start();
  stdin.write('{"a":1}\n{"b":2}\n');
  await flush(); // stream deliveries are tick-driven, not timed
  assert.equal(seen.length, 2);
  assert.match(errors[0].message, /handler failed/);
  await transport.close();
});

test('a result right after its progress leaves in a later write; other lines are not held', async () => {
  const stdin = new PassThrough();
  const writes: string[] = [];
  const stdout = new Writable({
    write(chunk: Buffer, _enc, cb) {
      writes.push(chunk.toString('utf8'));
      cb();
    },
  });
  const transport = new StdioServerTransport({ stdin, stdout, progressGapMs: 5 });
  await transport.start();
  const progress: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } };
  const sent = [
    transport.send(progress, { relatedRequestId: 7 }),
    transport.send({ jsonrpc: '2.0', id: 7, result: {} }, { relatedRequestId: 7 }),
    transport.send({ jsonrpc: '2.0', id: 8, result: {} }, { relatedRequestId: 8 }),
  ];
  await sent[0];
  assert.equal(writes.length, 1, 'the tick wrote once');
  assert.match(writes[0], /notifications\/progress/);
  assert.match(writes[0], /"id":8/, 'a request without progress goes ahead');
  assert.doesNotMatch(writes[0], /"id":7/, 'the result of the request that reported progress is held');
  await sent[1];
  assert.deepEqual(writes.slice(1), ['{"jsonrpc":"2.0","id":7,"result":{}}\n']);
  await transport.close();
});
