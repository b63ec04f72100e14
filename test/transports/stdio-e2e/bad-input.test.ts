// Bad input over a real stdio child: examples/stdio-server.ts is spawned with raw pipes (no
// client library); we write raw lines and read raw response lines. After every bad input the
// server must keep serving (a ping still gets its answer).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { patient, within } from '../../support/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Generous: only a failing test waits this long (a loaded machine may take seconds to start tsx). */
const WAIT_MS = patient(20_000);

type Msg = { jsonrpc?: string; id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown }; method?: string };

/** A raw newline-delimited JSON-RPC connection to a child process. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Parsed lines not yet claimed by a waiter, in arrival order. */
  readonly inbox: unknown[] = [];
  private waiters: Array<() => void> = [];
  private buf = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextPing = 1000;

  constructor() {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'examples/stdio-server.ts'], { cwd: ROOT, stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.buf += d;
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        // Every stdout line must be one JSON value: nothing else may be written there.
        this.inbox.push(JSON.parse(line));
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.child.stdin.on('error', () => {}); // EPIPE if the child died: the test reports it.
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  send(line: string | object): void {
    this.child.stdin.write((typeof line === 'string' ? line : JSON.stringify(line)) + '\n');
  }

  /** Waits for (and removes) the first received value matching `pred`. */
  async take<T = Msg>(what: string, pred: (m: unknown) => boolean): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const i = this.inbox.findIndex(pred);
      if (i >= 0) return this.inbox.splice(i, 1)[0] as T;
      const left = deadline - Date.now();
      if (left <= 0 || this.child.exitCode !== null) {
        throw new Error(`no ${what} (exit ${this.child.exitCode}); unclaimed: ${JSON.stringify(this.inbox).slice(0, 500)}; stderr: ${this.stderr.slice(-500)}`);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  response(id: unknown): Promise<Msg> {
    return this.take(`response to id ${JSON.stringify(id)}`, (m) => isObj(m) && m.id === id && ('result' in m || 'error' in m));
  }

  /** An error response with this id and code. */
  async error(id: unknown, code: number): Promise<Msg> {
    const m = await this.take<Msg>(`error ${code} for id ${JSON.stringify(id)}`, (x) => isObj(x) && x.id === id && isObj(x.error) && x.error.code === code);
    assert.equal(m.jsonrpc, '2.0');
    assert.equal(typeof m.error!.message, 'string');
    assert.equal('result' in m, false);
    return m;
  }

  /** The server still answers: a ping round-trips. */
  async alive(): Promise<void> {
    const id = this.nextPing++;
    this.send({ jsonrpc: '2.0', id, method: 'ping' });
    const r = await this.response(id);
    assert.deepEqual(r, { jsonrpc: '2.0', id, result: {} });
  }

  async initialize(protocolVersion: string): Promise<Msg> {
    this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    const r = await this.response('init');
    assert.equal(r.result?.protocolVersion, protocolVersion);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  /**
   * Closes stdin: the server must exit by itself, with code 0. How it exited is the proof (a
   * server that had to be killed shows a signal); the safety net only turns a hang into a failure.
   */
  async closeAndExpectCleanExit(): Promise<void> {
    this.child.stdin.end();
    const outcome = await within(this.exited, 'the server to exit after stdin EOF');
    assert.deepEqual(outcome, { code: 0, signal: null });
    assert.deepEqual(this.inbox, [], 'no unexpected messages');
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

function isObj(v: unknown): v is Record<string, any> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// ------------------------------------------------------------------ a 2025-11-25 session

let s: RawServer;
/** A second child for the 2025-03-26 session, spawned up front so its start-up overlaps. */
let old: RawServer;
before(() => {
  s = new RawServer();
  old = new RawServer();
});
after(() => {
  s.kill();
  old.kill();
});

test('a request before initialize gets -32600; the connection still initializes afterwards', async () => {
  s.send({ jsonrpc: '2.0', id: 'early', method: 'tools/list' });
  await s.error('early', -32600);
  await s.initialize('2025-11-25');
  await s.alive();
});

test('garbage text: -32700 with id null', async () => {
  s.send('this is not json {');
  await s.error(null, -32700);
  await s.alive();
});

test('a JSON array (batch) under 2025-11-25: -32600', async () => {
  s.send([
    { jsonrpc: '2.0', id: 'b1', method: 'ping' },
    { jsonrpc: '2.0', id: 'b2', method: 'ping' },
  ]);
  await s.error(null, -32600);
  await s.alive();
  // Neither batched ping may have been executed.
  assert.equal(
    s.inbox.some((m) => isObj(m) && (m.id === 'b1' || m.id === 'b2')),
    false,
  );
});

test('"id": null on a request: -32600', async () => {
  s.send('{"jsonrpc":"2.0","id":null,"method":"ping"}');
  await s.error(null, -32600);
  await s.alive();
});

test('wrong types: method 5, params "x", jsonrpc "1.0" each get -32600 echoing the id', async () => {
  s.send('{"jsonrpc":"2.0","id":31,"method":5}');
  await s.error(31, -32600);
  await s.alive();
  s.send('{"jsonrpc":"2.0","id":32,"method":"ping","params":"x"}');
  await s.error(32, -32600);
  await s.alive();
  s.send('{"jsonrpc":"1.0","id":33,"method":"ping"}');
  await s.error(33, -32600);
  await s.alive();
  s.send('{"jsonrpc":"2.0","id":34,"method":"ping","params":[]}');
  await s.error(34, -32600);
  await s.alive();
});

test('JSON values that are not messages (5, "hello", null, {}, {"jsonrpc":"2.0"}): -32600 with id null', async () => {
  for (const line of ['5', '"hello"', 'null', '{}', '{"jsonrpc":"2.0"}']) {
    s.send(line);
    await s.error(null, -32600);
    await s.alive();
  }
});

test('unknown method: -32601 echoing the id (string and number ids)', async () => {
  s.send({ jsonrpc: '2.0', id: 41, method: 'no/such/method' });
  await s.error(41, -32601);
  s.send({ jsonrpc: '2.0', id: 'forty-two', method: 'no/such/method', params: {} });
  await s.error('forty-two', -32601);
  await s.alive();
});

test('responses from the client (unknown id, malformed) are never answered', async () => {
  // An error reply would carry an id of the *client's* choosing back as if answering its request.
  s.send('{"jsonrpc":"2.0","id":99,"result":{}}');
  s.send('{"jsonrpc":"2.0","id":98,"result":"not an object"}');
  s.send('{"jsonrpc":"2.0","id":97,"error":{"code":"bad"}}');
  // The ping after them is answered in order: a reply to any of them would have come first.
  await s.alive();
  assert.equal(
    s.inbox.some((x) => isObj(x) && [97, 98, 99].includes(x.id)),
    false,
    JSON.stringify(s.inbox),
  );
  await s.alive();
});

test('a 5 MiB line: -32600 "too large", and the line after it is read normally', async () => {
  const big = 'x'.repeat(5 * 1024 * 1024);
  s.send(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${big}"}}`);
  const m = await s.take<Msg>('too-large error', (x) => isObj(x) && isObj(x.error) && x.error.code === -32600 && /too large/i.test(x.error.message));
  assert.ok(m.id === null || m.id === 'big', `id must be null or the request's id, got ${JSON.stringify(m.id)}`);
  await s.alive();
});

test('params nested 10 000 deep: -32600', async () => {
  const depth = 10_000;
  s.send(`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
  const m = await s.take<Msg>('depth error', (x) => isObj(x) && (x.id === 'deep' || x.id === null) && isObj(x.error) && x.error.code === -32600);
  assert.ok(m.error);
  await s.alive();
});

test('two in-flight requests with the same id: one -32600 duplicate error, one success', async () => {
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'count', arguments: { n: 20 } } };
  s.send(call);
  s.send(call);
  const dup = await s.error(7, -32600);
  assert.match(dup.error!.message, /in use|duplicate|already/i);
  // The ping is answered while the first count is still running.
  await s.alive();
  const ok = await s.take<Msg>('count result', (x) => isObj(x) && x.id === 7 && 'result' in x);
  assert.deepEqual(ok.result, { content: [{ type: 'text', text: 'counted to 20' }] });
  // Exactly one error and one result for id 7: nothing else.
  assert.equal(
    s.inbox.some((x) => isObj(x) && x.id === 7),
    false,
  );
  await s.alive();
});

test('notifications/cancelled for an in-flight request: no response for it, server keeps serving', async () => {
  s.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'count', arguments: { n: 10 } } });
  s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'test' } });
  await s.alive();
  // The same tool, started later and asked to count further: its answer comes after the moment
  // c1's handler finished, so a (wrong) answer to c1 would already be in.
  s.send({ jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'count', arguments: { n: 20 } } });
  await s.response('c2');
  assert.equal(
    s.inbox.some((x) => isObj(x) && x.id === 'c1'),
    false,
    'a cancelled request must not be answered',
  );
  await s.alive();
});

test('completion/complete for argument names that are Object.prototype keys: an empty string[] result', async () => {
  // The greet prompt has a completer for "name" only; any other argument has no completions.
  for (const [i, arg] of ['other', 'constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'].entries()) {
    const id = `cmp${i}`;
    s.send({ jsonrpc: '2.0', id, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: arg, value: '' } } });
    const r = await s.response(id);
    assert.equal(r.error, undefined, `argument "${arg}": unexpected error ${JSON.stringify(r.error)}`);
    assert.deepEqual(r.result, { completion: { values: [], total: 0, hasMore: false } }, `argument "${arg}"`);
  }
  await s.alive();
});

test('a progressToken that is neither string nor number is never echoed in notifications/progress', async () => {
  for (const [i, token] of [null, { a: 1 }, [1], true].entries()) {
    const id = `pt${i}`;
    s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'count', arguments: { n: 2 }, _meta: { progressToken: token } } });
    const r = await s.response(id);
    // Rejecting the request (-32602/-32600) or running it without progress are both fine.
    if (r.error) assert.ok([-32602, -32600].includes(r.error.code), `unexpected code ${r.error.code}`);
    else assert.deepEqual(r.result, { content: [{ type: 'text', text: 'counted to 2' }] });
  }
  const bad = s.inbox.filter((x) => isObj(x) && x.method === 'notifications/progress');
  s.inbox.splice(0, s.inbox.length, ...s.inbox.filter((x) => !bad.includes(x)));
  assert.deepEqual(bad, [], 'progress notifications with an invalid progressToken were sent');
  await s.alive();
});

test('closing stdin while a request is running: the server exits with code 0 within 2 s', async () => {
  // count(100) needs ≥ 500 ms: EOF must not wait for it (nor hang on it).
  s.send({ jsonrpc: '2.0', id: 'long', method: 'tools/call', params: { name: 'count', arguments: { n: 100 } } });
  await s.alive();
  await s.closeAndExpectCleanExit();
});

// ------------------------------------------------------------------ a 2025-03-26 session

test('2025-03-26 session: a batch [ping, ping] is answered with an array of two responses', async () => {
  await old.initialize('2025-03-26');
  old.send([
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'ping' },
  ]);
  const arr = await old.take<Msg[]>('batch reply', (m) => Array.isArray(m));
  assert.equal(arr.length, 2);
  assert.deepEqual(
    [...arr].sort((a, b) => Number(a.id) - Number(b.id)),
    [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ],
  );
  await old.alive();
});

test('2025-03-26 session: batch edge cases (invalid member, notifications only, empty)', async () => {
  // An invalid member gets its own error inside the array reply.
  old.send([{ jsonrpc: '2.0', id: 3, method: 'ping' }, 1]);
  const mixed = await old.take<Msg[]>('mixed batch reply', (m) => Array.isArray(m));
  assert.equal(mixed.length, 2);
  assert.deepEqual(
    mixed.find((m) => m.id === 3),
    { jsonrpc: '2.0', id: 3, result: {} },
  );
  assert.equal(mixed.find((m) => m.id === null)?.error?.code, -32600);
  // Notifications only: nothing at all comes back.
  old.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  await old.alive();
  // An empty array: one error object (not an array), id null.
  old.send('[]');
  await old.error(null, -32600);
  await old.alive();
  assert.deepEqual(old.inbox, [], 'no reply to a batch of notifications');
  await old.closeAndExpectCleanExit();
});
