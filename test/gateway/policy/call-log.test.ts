// The call log: JSON lines written to a file and parsed back, arguments left out unless
// configured, record() that neither throws nor waits for a slow stream, and a broken file that
// is reported once while calls go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { CallLog, type CallLogLine } from '../../../src/gateway/policy/call-log.js';
import { createPolicy } from '../../../src/gateway/policy/create.js';
import type { CallRecord } from '../../../src/gateway/policy-types.js';
import { tempDir } from '../../support/index.js';
import { tool } from './helpers.js';

const ARGS = { repo: 'acme/api', token: 'ghp_secret' };

function entry(over: Partial<CallRecord> = {}): CallRecord {
  return {
    time: '2026-11-26T00:00:00.000Z',
    caller: 'alice',
    method: 'tools/call',
    item: tool('github_search'),
    durationMs: 12,
    outcome: 'ok',
    arguments: ARGS,
    ...over,
  };
}

const readLines = (file: string): CallLogLine[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CallLogLine);

test('lines in a file, parsed back: who, what, how long, how it ended; arguments left out by default', async () => {
  const file = join(tempDir('calllog'), 'calls.jsonl');
  const log = new CallLog({ to: file });
  log.record(entry());
  log.record(entry({ caller: 'bob', outcome: 'refused', error: 'Rate limit "r" reached', durationMs: 0, session: 's-1' }));
  log.record({ time: '2026-11-26T00:00:01.000Z', caller: 'anonymous', method: 'tools/list', durationMs: 3, outcome: 'ok' });
  await log.close();
  const lines = readLines(file);
  assert.deepEqual(lines, [
    {
      time: '2026-11-26T00:00:00.000Z',
      caller: 'alice',
      method: 'tools/call',
      kind: 'tool',
      item: 'github_search',
      server: 'github',
      original: 'search',
      durationMs: 12,
      outcome: 'ok',
    },
    {
      time: '2026-11-26T00:00:00.000Z',
      caller: 'bob',
      method: 'tools/call',
      kind: 'tool',
      item: 'github_search',
      server: 'github',
      original: 'search',
      durationMs: 0,
      outcome: 'refused',
      error: 'Rate limit "r" reached',
      session: 's-1',
    },
    { time: '2026-11-26T00:00:01.000Z', caller: 'anonymous', method: 'tools/list', durationMs: 3, outcome: 'ok' },
  ]);
  assert.ok(!readFileSync(file, 'utf8').includes('ghp_secret'));
  // A second log on the same file appends.
  const again = new CallLog({ to: file });
  again.record(entry({ caller: 'carol' }));
  await again.close();
  // After close, records are ignored (not written to an ended stream), and close again is harmless.
  again.record(entry({ caller: 'late' }));
  await again.close();
  assert.deepEqual(
    readLines(file).map((l) => l.caller),
    ['alice', 'bob', 'anonymous', 'carol'],
  );
});

test('arguments: "keys" logs their names, true logs them whole, and unserialisable ones do not lose the line', async () => {
  const file = join(tempDir('calllog'), 'calls.jsonl');
  const keys = new CallLog({ to: file, arguments: 'keys' });
  keys.record(entry());
  await keys.close();
  const whole = new CallLog({ to: file, arguments: true });
  whole.record(entry());
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.doesNotThrow(() => whole.record(entry({ arguments: cyclic, caller: 'cyclic' })));
  assert.doesNotThrow(() => whole.record(entry({ arguments: { n: 10n }, caller: 'bigint' })));
  await whole.close();
  const lines = readLines(file);
  assert.deepEqual(lines[0]!.arguments, ['repo', 'token']);
  assert.deepEqual(lines[1]!.arguments, ARGS);
  assert.deepEqual(
    lines.slice(2).map((l) => [l.caller, l.arguments]),
    [
      ['cyclic', ['(not serialisable)']],
      ['bigint', ['(not serialisable)']],
    ],
  );
});

test('record() returns at once while the stream is stuck; lines wait, beyond the cap they are dropped and counted', async () => {
  const written: string[] = [];
  let release: (() => void) | undefined;
  const stream = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, done) {
      written.push(chunk.toString());
      release = done;
    },
  });
  const warnings: string[] = [];
  const log = new CallLog({ to: 'unused', stream, maxBufferedLines: 3, warn: (l) => warnings.push(l) });
  log.record(entry({ caller: 'u0' }));
  await new Promise((resolve) => setImmediate(resolve));
  // The first chunk is being written and not done: the stream is full.
  assert.equal(written.length, 1);
  for (let i = 1; i <= 5; i++) log.record(entry({ caller: `u${i}` }));
  assert.equal(written.length, 1);
  release!();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /call log: 2 line\(s\) dropped while the log could not keep up/);
  const done = log.drained();
  release!();
  await done;
  assert.deepEqual(
    written
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as CallLogLine).caller),
    ['u0', 'u1', 'u2', 'u3'],
  );
});

test('a log file that cannot be written: reported once, records go on without throwing', async () => {
  const dir = tempDir('calllog');
  const warnings: string[] = [];
  let warned!: () => void;
  const firstWarning = new Promise<void>((resolve) => (warned = resolve));
  const log = new CallLog({ to: join(dir, 'missing-dir', 'calls.jsonl'), warn: (l) => (warnings.push(l), warned()) });
  log.record(entry());
  await firstWarning;
  for (let i = 0; i < 3; i++) assert.doesNotThrow(() => log.record(entry()));
  await log.close();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /call log: writing failed \(ENOENT.*\); no more calls are logged/);
});

test('createPolicy: callLog from the config, record() goes to it, close() flushes it', async () => {
  const file = join(tempDir('calllog'), 'policy.jsonl');
  const policy = createPolicy({ callLog: { to: file } });
  policy.record(entry());
  await policy.close();
  assert.deepEqual(
    readLines(file).map((l) => [l.caller, l.item, l.outcome, l.arguments]),
    [['alice', 'github_search', 'ok', undefined]],
  );
  // Without a callLog section, record() does nothing and never throws.
  assert.doesNotThrow(() => createPolicy({}).record(entry()));
});
