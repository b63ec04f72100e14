// Attacks on the code-mode sandbox, each written as the program a hostile or broken model would
// send: endless loops (caught or not), memory and stack bombs, polluting prototypes, reaching
// the host's process, modules, network or clock, flooding the output, calling tools after the
// run or from a later run, and oversized or excessive calls. Each must end contained, with an
// error that says what happened, and leave the host (and the next run) untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInThread } from '../../src/codemode/runner.js';
import { runProgram, WATCHDOG_GRACE_MS } from '../../src/codemode/sandbox.js';
import { deferred, WatchedClock } from '../support/index.js';
import { API, run, TickingClock } from './helpers.js';

const ENDLESS = [
  'while (true) {}',
  'try { for (;;) {} } catch (e) { return "caught " + e; }',
  'for (;;) { try { for (;;) {} } catch (e) {} finally { continue; } }',
  'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});',
  'async function f() { for (;;) await null; } await f();',
];

test('an endless loop is stopped by the compute limit, even inside try/catch/finally', async () => {
  // On this thread with a clock that moves as it is read: the engine's own check ends each loop
  // (the program cannot catch it), after the limit's worth of counted compute, whatever the load.
  for (const code of ENDLESS) {
    const r = await run(code, { where: 'thread', limits: { cpuMs: 200 } });
    assert.equal(r.ok, false, code);
    assert.equal(r.error?.kind, 'timeout', `${code}: ${JSON.stringify(r.error)}`);
    assert.match(r.error!.message, /^the program computed for more than 200 ms \(an endless loop\?\)/);
    assert.ok(r.computeMs > 200, `${code}: ${r.computeMs}`);
  }
});

test('an endless loop in a worker, as the host runs programs, ends out of time', async () => {
  for (const code of ENDLESS) {
    const r = await run(code, { limits: { cpuMs: 200 } });
    assert.equal(r.ok, false, code);
    assert.equal(r.error?.kind, 'timeout', `${code}: ${JSON.stringify(r.error)}`);
    assert.match(r.error!.message, /computed for more than 200 ms/);
    // The engine's check ends it and counts the time; on a starved machine the host's watchdog
    // (wall time: the limit and a grace) may end the worker first, before it could report.
    if (!/ended by force/.test(r.error!.message)) assert.ok(r.computeMs > 200, `${code}: ${r.computeMs}`);
  }
  // The host, and the next run, are fine.
  assert.equal((await run('return 1 + 1;')).value, '2');
});

test('waiting for a tool call does not count as computing', async () => {
  const clock = new TickingClock();
  const slow = deferred<unknown>();
  const called = deferred<void>();
  const pending = runInThread({
    code: 'const r = await files.read({ path: "a" }); return r;',
    api: API,
    clock,
    limits: { cpuMs: 200 },
    call: () => {
      called.resolve();
      return slow.promise;
    },
  });
  // An hour passes while the tool works; the program has computed a few ms.
  await called.promise;
  clock.advance(3_600_000);
  slow.resolve({ text: 'contents' });
  const r = await pending;
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.value, '{"text":"contents"}');
  assert.ok(r.computeMs < 200, String(r.computeMs));
});

test('memory bombs end with an out-of-memory error', async () => {
  for (const code of [
    'const a = []; for (;;) a.push(new Array(100000).fill(1));',
    'let s = "x"; for (;;) s += s;',
    'return new ArrayBuffer(1 << 30).byteLength;',
    'return "x".repeat(2 ** 29).length;',
    // Fast arrays grow by realloc, which QuickJS's own accounting misses here: the instance's
    // WebAssembly memory has a maximum, and that stops them.
    'const keep = []; for (let i = 0; i < 1000; i++) keep.push(new Array(100000).fill(0)); return keep.length;',
  ]) {
    const r = await run(code, { limits: { memoryBytes: 8 * 1024 * 1024 } });
    assert.equal(r.ok, false, code);
    assert.equal(r.error?.kind, 'memory', `${code}: ${JSON.stringify(r.error)}`);
  }
  // The host is fine, and so is the next run.
  const after = await run('return [1, 2, 3].map((x) => x * 2);');
  assert.equal(after.value, '[2,4,6]');
});

test('a loop around a failing allocation holds only its worker: the watchdog on the host clock ends it', async () => {
  const clock = new WatchedClock();
  const started = deferred<void>();
  const pending = runProgram({
    code: 'await files.read({});\nconst keep = [];\nfor (;;) { try { keep.push(new Array(100000).fill(0)); } catch (e) {} }',
    api: API,
    clock,
    limits: { memoryBytes: 8 * 1024 * 1024, cpuMs: 200 },
    call: async () => {
      started.resolve();
      return 'go';
    },
  });
  await started.promise;
  // The host's own thread is free while the program spins: this test goes on running.
  await new Promise((r) => setImmediate(r));
  const due = clock.nextDue();
  assert.ok(due !== undefined, 'the watchdog is armed while the program computes');
  clock.advance(200 + WATCHDOG_GRACE_MS);
  const r = await pending;
  assert.equal(r.error?.kind, 'timeout');
  assert.match(r.error!.message, /ended by force/);
  assert.equal((await run('return 2;')).value, '2');
});

test('a regular expression that backtracks forever is stopped', async () => {
  const clock = new WatchedClock();
  const started = deferred<void>();
  const pending = runProgram({
    code: 'await files.read({});\nreturn /^(a+)+$/.test("a".repeat(40) + "b");',
    api: API,
    clock,
    limits: { cpuMs: 200 },
    call: async () => {
      started.resolve();
      return 'go';
    },
  });
  await started.promise;
  await new Promise((r) => setImmediate(r));
  // Stopped by the engine's own check, or else by the watchdog: either way, out of time.
  clock.advance(200 + WATCHDOG_GRACE_MS);
  const r = await pending;
  assert.equal(r.error?.kind, 'timeout', JSON.stringify(r));
});

test('deep recursion and deeply nested data end with a stack overflow, not a crash of the host', async () => {
  for (const code of [
    'function f() { return f() + 1; } return f();',
    'let a = []; for (let i = 0; i < 200000; i++) a = [a]; return JSON.stringify(a).length;',
  ]) {
    for (const where of ['worker', 'thread'] as const) {
      // The overflow takes the engine a while on a busy machine: this is not a test of time.
      const r = await run(code, { where, limits: { cpuMs: 60_000 } });
      assert.equal(r.ok, false, code);
      assert.equal(r.error?.kind, 'stack', `${where}: ${code}: ${JSON.stringify(r.error)}`);
    }
  }
  // Printing such data ends the same way (or, where the stack is deep enough to get through,
  // shows what String() makes of it): never anything worse.
  const printed = await run('let a = {}; for (let i = 0; i < 200000; i++) a = { a }; console.log(a); return 1;', { limits: { cpuMs: 60_000 } });
  assert.ok(printed.error?.kind === 'stack' || printed.output === '[object Object]', JSON.stringify(printed));
  assert.equal((await run('return 1 + 1;')).value, '2');
});

test("polluting the sandbox's prototypes and built-ins touches neither the host nor the next run", async () => {
  const r = await run(`
    Object.prototype.polluted = 'yes';
    Array.prototype.map = function () { return 'hijacked'; };
    Object.defineProperty(Object.prototype, 'then', { get() { return (ok) => ok('hijacked'); }, configurable: true });
    JSON.stringify = () => '{"hijacked":true}';
    JSON.parse = () => ({ hijacked: true });
    Promise.prototype.then = function () { throw new Error('hijacked'); };
    const got = await files.read({ path: 'a' });
    return 'done';
  `);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(
    [1, 2].map((x) => x + 1),
    [2, 3],
  );
  assert.equal(typeof (Object.prototype as Record<string, unknown>).then, 'undefined');
  // The bridge used the sandbox's own JSON as it was before the program ran.
  assert.deepEqual(
    r.seen.map((c) => c.args),
    [{ path: 'a' }],
  );
  const next = await run('return [({}).polluted, [1].map((x) => x), typeof Object.prototype.then];');
  assert.equal(next.value, '[null,[1],"undefined"]');
});

test('a __proto__ key in arguments arrives as data and pollutes nothing', async () => {
  const r = await run('return await files.read(JSON.parse(\'{"__proto__": {"polluted": true}, "path": "x"}\'));');
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const [call] = r.seen;
  assert.ok(Object.hasOwn(call.args, '__proto__'));
  assert.equal(Object.getPrototypeOf(call.args), Object.prototype);
});

test('no process, require, fetch, modules, timers, WebAssembly or real clock can be reached', async () => {
  const r = await run(
    `
    const found = {};
    for (const name of ['process', 'require', 'module', 'fetch', 'XMLHttpRequest', 'WebSocket', 'setTimeout', 'setInterval',
      'setImmediate', 'queueMicrotask', 'WebAssembly', 'std', 'os', 'Deno', 'Bun', 'performance', 'crypto', 'scriptArgs', 'print']) {
      found[name] = typeof globalThis[name];
    }
    const tries = {};
    const attempt = async (label, f) => { try { tries[label] = String(await f()); } catch (e) { tries[label] = e.name + ': ' + e.message; } };
    await attempt('Function', () => new Function('return typeof process')());
    await attempt('constructor', () => (() => {}).constructor('return typeof require')());
    await attempt('console', () => console.log.constructor('return this')() === globalThis);
    await attempt('import fs', () => import('fs'));
    await attempt('import node:child_process', () => import('node:child_process'));
    await attempt('eval import', () => eval('import("os")'));
    return { found, tries, now: Date.now(), date: new Date().toISOString(), again: new Date().getTime(), ctor: new Date().constructor === Date };
  `,
    { now: 1_750_000_000_000 },
  );
  assert.equal(r.ok, true, JSON.stringify(r.error));
  const out = JSON.parse(r.value!);
  for (const [name, type] of Object.entries(out.found)) assert.equal(type, 'undefined', name);
  assert.equal(out.tries.Function, 'undefined');
  assert.equal(out.tries.constructor, 'undefined');
  assert.equal(out.tries.console, 'true');
  assert.match(out.tries['import fs'], /^ReferenceError: could not load module 'fs'/);
  assert.match(out.tries['import node:child_process'], /^ReferenceError: could not load module/);
  assert.match(out.tries['eval import'], /^ReferenceError: could not load module/);
  // The clock is the one the host gave, however it is read.
  assert.equal(out.now, 1_750_000_000_000);
  assert.equal(out.again, 1_750_000_000_000);
  assert.equal(out.date, new Date(1_750_000_000_000).toISOString());
  assert.equal(out.ctor, true);
});

test('the real Date cannot be recovered from the fixed one', async () => {
  const r = await run(
    `
    const ways = [
      new Date().constructor,
      Object.getPrototypeOf(new Date()).constructor,
      Date.prototype.constructor,
      Object.getPrototypeOf(Date),
      Reflect.getPrototypeOf(Date.prototype).constructor,
    ];
    class Later extends Date {}
    return [...ways.map((D) => { try { return typeof D.now === 'function' ? D.now() : new D().getTime(); } catch (e) { return e.name; } }), new Later().getTime(), Date()];
  `,
    { now: 1_800_000_000_000 },
  );
  const values: unknown[] = JSON.parse(r.value!);
  const t = 1_800_000_000_000;
  assert.deepEqual(values.slice(0, 3), [t, t, t], r.value);
  assert.equal(values[5], t);
  assert.equal(Date.parse(values[6] as string), t);
});

test('huge output is cut to the limit: a returned value and a print loop', async () => {
  const big = await run('return "x".repeat(5000000);', { limits: { outputChars: 1000 } });
  assert.equal(big.ok, true);
  assert.equal(big.truncated, true);
  assert.ok(big.value!.length <= 1000);
  const loud = await run('for (let i = 0; i < 100000; i++) console.log("line " + i + " " + "y".repeat(100)); return "ok";', {
    limits: { outputChars: 1000, cpuMs: 60_000 },
  });
  assert.equal(loud.ok, true, JSON.stringify(loud.error));
  assert.equal(loud.value, '"ok"');
  assert.equal(loud.truncated, true);
  assert.ok(loud.output.length <= 1000);
  assert.match(loud.output, /^line 0 y/);
  // A value JSON cannot write is shown as text; a cycle does not hang or throw.
  const cyclic = await run('const a = {}; a.self = a; console.log(a); return a;');
  assert.equal(cyclic.ok, true);
  assert.equal(cyclic.value, '"[object Object]"');
});

test('a tool call made after the program returned is refused, never reaches the host', async () => {
  const r = await run(`
    (async () => { await null; await null; await null; await mail.send({ to: 'everyone' }); })();
    return 'bye';
  `);
  assert.equal(r.ok, true);
  assert.equal(r.value, '"bye"');
  assert.equal(r.late, 1);
  assert.deepEqual(r.seen, []);
});

test('a call started and not awaited is let finish; its result reaches nothing', async () => {
  const slow = deferred<unknown>();
  const called = deferred<void>();
  const seen: string[] = [];
  const pending = runProgram({
    code: 'files.remove({ path: "/tmp/x" }).then(() => console.log("after")); return "returned first";',
    api: API,
    clock: new TickingClock(),
    call: (c) => {
      seen.push(c.name);
      called.resolve();
      return slow.promise;
    },
  });
  await called.promise;
  assert.deepEqual(seen, ['remove']);
  slow.resolve('removed');
  const r = await pending;
  assert.equal(r.value, '"returned first"');
  assert.equal(r.unawaited, 1);
  assert.equal(r.output, '');
});

test('a tool function kept on the global object is gone in the next run', async () => {
  const first = await run('globalThis.kept = mail.send; globalThis.saved = Object.prototype; return typeof kept;');
  assert.equal(first.value, '"function"');
  const second = await run('return [typeof kept, typeof saved, typeof __mcpkit_call, typeof __mcpkit_run, typeof __mcpkit_settle];');
  assert.equal(second.value, '["undefined","undefined","undefined","undefined","undefined"]');
  assert.deepEqual(second.seen, []);
});

test('memory a run kept is free again for the next run, on this thread and in a worker', async () => {
  const hog = 'globalThis.keep = []; for (let i = 0; i < 40; i++) keep.push(new Array(50000).fill(i)); files.read({}); return keep.length;';
  for (const where of ['thread', 'worker'] as const) {
    for (let round = 0; round < 3; round++) {
      const r = await run(hog, { where, limits: { memoryBytes: 16 * 1024 * 1024 } });
      assert.equal(r.ok, true, `${where} round ${round}: ${JSON.stringify(r.error)}`);
      assert.equal(r.value, '40');
    }
  }
});

test('oversized arguments and too many calls are refused inside the program', async () => {
  const big = await run('try { await mail.send({ body: "x".repeat(2000) }); } catch (e) { return e.name + ": " + e.message; }', {
    limits: { argsChars: 1000 },
  });
  assert.equal(big.value, JSON.stringify('RangeError: the arguments of mail.send are 2011 characters of JSON; at most 1000 are allowed'));
  assert.deepEqual(big.seen, []);
  const many = await run('let n = 0; for (let i = 0; i < 50; i++) { try { await files.read({ i }); n++; } catch (e) { return [n, e.message]; } }', {
    limits: { toolCalls: 10 },
  });
  assert.equal(many.value, JSON.stringify([10, 'files.read was not called: a program may make at most 10 tool calls']));
  assert.equal(many.seen.length, 10);
});

test('a call with arguments that are not an object is refused before the host sees it', async () => {
  const r = await run(`
    const out = [];
    for (const bad of [[1, 2], 'text', 5, null, () => 1]) {
      try { await files.read(bad); out.push('called'); } catch (e) { out.push(e.name); }
    }
    return out;
  `);
  assert.equal(r.value, '["TypeError","TypeError","TypeError","TypeError","TypeError"]');
  assert.deepEqual(r.seen, []);
});

test('cancelling a run while it waits for a call ends it, and the call is told', async () => {
  const controller = new AbortController();
  const called = deferred<void>();
  let callSignal: AbortSignal | undefined;
  const pending = runProgram({
    code: 'await files.read({ path: "slow" }); return "never";',
    api: API,
    clock: new TickingClock(),
    signal: controller.signal,
    call: (c) => {
      callSignal = c.signal;
      called.resolve();
      return new Promise((_, reject) => c.signal.addEventListener('abort', () => reject(c.signal.reason), { once: true }));
    },
  });
  await called.promise;
  controller.abort(new Error('user pressed Ctrl-C'));
  const r = await pending;
  assert.equal(r.error?.kind, 'cancelled');
  assert.equal(callSignal?.aborted, true);
});

test('a program waiting on a promise nothing settles ends at once as a deadlock', async () => {
  const r = await run('await new Promise(() => {}); return 1;');
  assert.equal(r.error?.kind, 'deadlock');
  assert.match(r.error!.message, /nothing will settle/);
});

test('a function the API does not have throws at the line that reads it, naming what the namespace has; no call is made', async () => {
  const r = await run('const text = await files.read({ path: "a" });\nawait files.chmod({ path: "a", mode: 777 });\nreturn text;');
  assert.equal(r.ok, false);
  assert.equal(r.error?.name, 'TypeError');
  assert.equal(r.error?.line, 2);
  assert.equal(r.error?.message, 'files.chmod is not a function of the API: files has read, remove');
  assert.deepEqual(
    r.seen.map((c) => c.name),
    ['read'],
  );
  // Awaiting a namespace, or asking whether it has a function, reads as absent: no throw.
  const fine = await run('const ns = await files;\nreturn [typeof ns.read, Object.keys(files).length];');
  assert.equal(fine.ok, true, JSON.stringify(fine.error));
  assert.equal(fine.value, '["function",2]');
});
