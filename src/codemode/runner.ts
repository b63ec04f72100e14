// Runs one program in a fresh QuickJS instance (engine.ts) on the current thread: no file
// system, network, process, environment, timers or module loader, a clock fixed at the host's
// time, a memory limit (QuickJS's, under the hard ceiling of the instance's WebAssembly memory),
// a stack limit, a limit on the time the program computes (an interrupt handler reading a
// clock; time spent waiting for tools does not count), a limit on its output, and a limit on
// its tool calls. Tool calls are the caller's async functions: each returns a promise in the
// sandbox that is settled when the call ends; between calls the runner runs the sandbox's
// pending jobs. Once the program has settled, no call it makes reaches the caller.
// The host runs this inside a worker (sandbox.ts, worker.ts), which can be ended by force.
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { type Clock, systemClock } from '../engine/clock.js';
import { loadSandboxEngine } from './engine.js';
import { HOST_CALL, HOST_PRINT, HOST_SETTLE, PROGRAM_FILE, prelude, wrapProgram } from './prelude.js';
import { DEFAULT_LIMITS, type ProgramError, type ProgramErrorKind, type ProgramResult, type RunProgramOptions, type SandboxLimits } from './limits.js';

/** Line and column of the first frame in the program, from a QuickJS stack. */
function position(stack: string | undefined, lines: number): { line?: number; column?: number } {
  const m = stack ? new RegExp(`${PROGRAM_FILE.replace('.', '\\.')}:(\\d+)(?::(\\d+))?`).exec(stack) : null;
  if (!m) return {};
  // The wrapper's first line comes before the program's.
  const line = Number(m[1]) - 1;
  if (line < 1) return { line: 1, column: 1 };
  if (line > lines) return { line: lines };
  return m[2] ? { line, column: Number(m[2]) } : { line };
}

/** What an uncaught error was, by its name and message. */
function kindOf(name: string, message: string): ProgramErrorKind {
  if (name === 'InternalError' && /out of memory|string too long/i.test(message)) return 'memory';
  if ((name === 'InternalError' || name === 'RangeError') && /stack overflow|call stack/i.test(message)) return 'stack';
  if (name === 'InternalError' && message === 'interrupted') return 'timeout';
  return 'exception';
}

/**
 * One engine instance kept for the next run on this thread (instantiating one costs a few
 * milliseconds), with the heap limit its memory was capped for. A run takes it (or makes a new
 * one) and gives it back only after a clean end; two runs never share one at the same time.
 */
let spare: { module: QuickJSWASMModule; heapBytes: number } | undefined;

async function takeInstance(heapBytes: number): Promise<QuickJSWASMModule> {
  const kept = spare;
  spare = undefined;
  if (kept && kept.heapBytes === heapBytes) return kept.module;
  return (await loadSandboxEngine()).instance(heapBytes);
}

function returnInstance(module: QuickJSWASMModule, heapBytes: number): void {
  spare = { module, heapBytes };
}

class Run {
  private readonly limits: SandboxLimits;
  private readonly clock: Clock;
  private readonly lines: number;
  private ended = false;
  private settled: { ok: true; value: string | undefined } | { ok: false; error: ProgramError } | undefined;
  private output = '';
  private outputCut = false;
  private calls = 0;
  private late = 0;
  private inflight = 0;
  private readonly running = new Set<Promise<unknown>>();
  /** Host-side work waiting to enter the sandbox (a call's result), in order. */
  private readonly queue: Array<() => void> = [];
  private wake: (() => void) | undefined;
  private computeMs = 0;
  private sliceStart: number | undefined;
  private stop: 'timeout' | 'cancelled' | 'crashed' | undefined;
  /** What the engine threw into the host (a native stack overflow), when it did. */
  private crash: unknown;
  /** Promises given to the program and not settled yet: freed with the runtime. */
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  /** Aborted when the run is stopped: the calls still running end. */
  private readonly abort = new AbortController();

  constructor(private readonly o: InThreadOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...o.limits };
    this.clock = o.clock ?? systemClock;
    this.lines = o.code.split('\n').length;
  }

  async run(): Promise<ProgramResult> {
    const module = await takeInstance(this.limits.memoryBytes);
    const rt = module.newRuntime();
    rt.setMemoryLimit(this.limits.memoryBytes);
    rt.setMaxStackSize(this.limits.stackBytes);
    rt.setInterruptHandler(() => this.interrupt());
    const ctx = rt.newContext();
    const onAbort = () => {
      this.stop ??= 'cancelled';
      this.wake?.();
    };
    this.o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (this.o.signal?.aborted) onAbort();
      else await this.drive(rt, ctx);
    } finally {
      this.o.signal?.removeEventListener('abort', onAbort);
      this.ended = true;
      this.release(module, rt, ctx);
    }
    // Calls started and not awaited are let finish (they may have been approved and begun
    // changing something): the run answers when they have. A stopped run cancels them.
    const unawaited = this.inflight;
    if (this.stop) this.abort.abort(new Error(this.stopError().message));
    else if (this.inflight > 0) this.o.onIdle?.(this.computeMs);
    await Promise.allSettled([...this.running]);
    return this.result(unawaited);
  }

  /**
   * Frees the run's runtime and keeps the instance for the next run, when the program ended on
   * its own: every object it made is freed (QuickJS checks that none is left), so the next run
   * starts from an empty heap. A run that was stopped (out of time, cancelled, crashed) may have
   * left the engine mid-job, and its instance is dropped whole, memory and all.
   */
  private release(module: QuickJSWASMModule, rt: QuickJSRuntime, ctx: QuickJSContext): void {
    if (this.stop || !this.settled) return;
    try {
      for (const d of this.deferreds) d.dispose();
      this.deferreds.clear();
      ctx.dispose();
      rt.dispose();
      returnInstance(module, this.limits.memoryBytes);
    } catch {
      // QuickJS found something left (or aborted): the instance is not reused.
    }
  }

  private interrupt(): boolean {
    if (this.stop) return true;
    if (this.sliceStart !== undefined && this.computeMs + (this.clock.now() - this.sliceStart) > this.limits.cpuMs) {
      this.stop = 'timeout';
      return true;
    }
    return false;
  }

  /**
   * Runs `fn` inside the sandbox, counting the time towards the compute limit. When the engine
   * itself throws (the host's stack overflowed under deep recursion in the engine), the run is
   * over: `stop` says so and the instance is never entered again.
   */
  private slice<T>(fn: () => T): T | undefined {
    if (this.stop === 'crashed') return undefined;
    const start = this.clock.now();
    this.sliceStart = start;
    try {
      return fn();
    } catch (err) {
      this.crash = err;
      this.stop = 'crashed';
      return undefined;
    } finally {
      this.sliceStart = undefined;
      this.computeMs += Math.max(0, this.clock.now() - start);
    }
  }

  private async drive(rt: QuickJSRuntime, ctx: QuickJSContext): Promise<void> {
    this.install(ctx);
    const now = this.o.now ?? this.clock.now();
    this.o.onStart?.();
    const setup = ctx.evalCode(prelude({ now, api: this.o.api, outputChars: this.limits.outputChars, valueChars: this.limits.outputChars }), 'prelude.js', {
      type: 'global',
      strict: true,
    });
    if (setup.error) throw new Error(`The sandbox's prelude failed: ${JSON.stringify(ctx.dump(setup.error))}`);
    setup.value.dispose();
    const started = this.slice(() => ctx.evalCode(wrapProgram(this.o.code), PROGRAM_FILE, { type: 'global' }));
    if (!started) return;
    if (started.error) {
      this.failWith(ctx, started.error, true);
      return;
    }
    started.value.dispose();
    for (;;) {
      while (!this.settled && !this.stop && rt.hasPendingJob()) {
        const jobs = this.slice(() => rt.executePendingJobs(64));
        if (!jobs) break;
        if (jobs.error) {
          this.failWith(ctx, jobs.error, false);
          return;
        }
      }
      if (this.settled || this.stop) return;
      if (this.queue.length === 0) {
        if (this.inflight === 0) {
          this.settled = {
            ok: false,
            error: {
              kind: 'deadlock',
              name: 'Deadlock',
              message: 'the program is waiting for a promise that nothing will settle (no tool call is running)',
            },
          };
          return;
        }
        this.o.onIdle?.(this.computeMs);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
      for (const work of this.queue.splice(0)) {
        if (this.stop || this.settled) break;
        this.slice(work);
      }
    }
  }

  private stopError(): ProgramError {
    if (this.stop === 'cancelled') return { kind: 'cancelled', name: 'Cancelled', message: 'the run was cancelled' };
    if (this.stop === 'crashed') {
      const overflow = this.crash instanceof RangeError;
      return {
        kind: overflow ? 'stack' : 'internal',
        name: overflow ? 'InternalError' : 'SandboxError',
        message: overflow
          ? 'stack overflow (too deep a recursion, or too deeply nested data)'
          : `the sandbox failed: ${this.crash instanceof Error ? this.crash.message : String(this.crash)}`,
      };
    }
    return {
      kind: 'timeout',
      name: 'Timeout',
      message: `the program computed for more than ${this.limits.cpuMs} ms (an endless loop?); waiting for tool calls does not count`,
    };
  }

  /** An exception that escaped evaluation (a syntax error, an interrupt). */
  private failWith(ctx: QuickJSContext, handle: QuickJSHandle, atStart: boolean): void {
    if (this.stop) return;
    let name = 'Error';
    let message = 'the program failed';
    let stack: string | undefined;
    try {
      const e = this.slice(() => ctx.dump(handle)) as { name?: unknown; message?: unknown; stack?: unknown } | unknown;
      if (e && typeof e === 'object') {
        const err = e as { name?: unknown; message?: unknown; stack?: unknown };
        name = typeof err.name === 'string' ? err.name : name;
        message = typeof err.message === 'string' ? err.message : String(err.message ?? message);
        stack = typeof err.stack === 'string' ? err.stack : undefined;
      } else message = String(e);
    } catch {
      // an error that cannot even be read is reported as the generic failure above
    }
    handle.dispose();
    const kind = atStart && name === 'SyntaxError' ? 'syntax' : kindOf(name, message);
    this.settled = { ok: false, error: { kind, name, message, ...position(stack, this.lines) } };
  }

  private install(ctx: QuickJSContext): void {
    const call = ctx.newFunction(HOST_CALL, (nsH, fnH, argsH) => this.hostCall(ctx, ctx.getString(nsH), ctx.getString(fnH), argsH));
    const print = ctx.newFunction(HOST_PRINT, (levelH, textH) => {
      const level = ctx.getString(levelH);
      const text = ctx.getString(textH);
      this.print(level, text);
      return ctx.newNumber(Math.max(0, this.limits.outputChars - this.output.length));
    });
    const settle = ctx.newFunction(HOST_SETTLE, (okH, aH, bH, cH) => {
      if (this.settled) return;
      const str = (h: QuickJSHandle | undefined) => (h === undefined || ctx.typeof(h) !== 'string' ? undefined : ctx.getString(h));
      if (ctx.dump(okH) === true) this.settled = { ok: true, value: str(aH) };
      else {
        const name = str(aH) ?? 'Error';
        const message = str(bH) ?? '';
        this.settled = { ok: false, error: { kind: kindOf(name, message), name, message, ...position(str(cH), this.lines) } };
      }
    });
    for (const [name, fn] of [
      [HOST_CALL, call],
      [HOST_PRINT, print],
      [HOST_SETTLE, settle],
    ] as const) {
      ctx.setProp(ctx.global, name, fn);
      fn.dispose();
    }
  }

  private print(level: string, text: string): void {
    const room = this.limits.outputChars - this.output.length;
    const line = level === 'log' || level === 'info' || level === 'debug' ? text : `[${level}] ${text}`;
    if (room <= 0) {
      this.outputCut = true;
      return;
    }
    const whole = this.output === '' ? line : `\n${line}`;
    if (whole.length > room) {
      this.output += whole.slice(0, room);
      this.outputCut = true;
    } else this.output += whole;
  }

  private hostCall(ctx: QuickJSContext, namespace: string, name: string, argsH: QuickJSHandle): QuickJSHandle {
    const deferred = ctx.newPromise();
    this.deferreds.add(deferred);
    void deferred.settled.then(() => this.deferreds.delete(deferred));
    const refuse = (message: string, errName = 'ToolError') => {
      const err = ctx.newError({ name: errName, message });
      deferred.reject(err);
      err.dispose();
      return deferred.handle;
    };
    const path = `${namespace}.${name}`;
    if (this.settled || this.ended) {
      this.late++;
      return refuse(`${path} was called after the program had ended: the call was not made`);
    }
    this.calls++;
    if (this.calls > this.limits.toolCalls) return refuse(`${path} was not called: a program may make at most ${this.limits.toolCalls} tool calls`);
    if (ctx.typeof(argsH) !== 'string') return refuse(`the arguments of ${path} could not be written as JSON`, 'TypeError');
    const text = ctx.getString(argsH);
    if (text.length > this.limits.argsChars)
      return refuse(`the arguments of ${path} are ${text.length} characters of JSON; at most ${this.limits.argsChars} are allowed`, 'RangeError');
    const args: unknown = JSON.parse(text);
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return refuse(`${path} takes one argument, an object of its parameters`, 'TypeError');
    const index = this.calls;
    this.inflight++;
    const signal = this.abort.signal;
    const pending = (async () => this.o.call({ namespace, name, args: args as Record<string, unknown>, index, signal }))();
    this.running.add(pending);
    pending
      .then(
        (value) =>
          this.deliver(() => {
            const json = JSON.stringify(value === undefined ? null : value);
            let h: QuickJSHandle | undefined;
            try {
              if (json.length * 2 <= this.limits.memoryBytes) h = ctx.newString(json);
            } catch {
              h = undefined;
            }
            if (h === undefined) {
              const err = ctx.newError({
                name: 'RangeError',
                message: `the result of ${path} (${json.length} characters of JSON) is too large for the program's memory`,
              });
              deferred.reject(err);
              err.dispose();
              return;
            }
            deferred.resolve(h);
            h.dispose();
          }),
        (err: unknown) =>
          this.deliver(() => {
            const e = ctx.newError({
              name: err instanceof Error && err.name !== 'Error' ? err.name : 'ToolError',
              message: err instanceof Error ? err.message : String(err),
            });
            deferred.reject(e);
            e.dispose();
          }),
      )
      .finally(() => {
        this.inflight--;
        this.running.delete(pending);
      });
    return deferred.handle;
  }

  /** Queues a call's outcome for the sandbox, unless the run is over (then it is dropped). */
  private deliver(work: () => void): void {
    if (this.ended || this.settled || this.stop) return;
    this.queue.push(() => {
      try {
        work();
      } catch {
        // Out of sandbox memory while making the result: the program learns it from the limit
        // error of its next allocation, or the run ends as it is.
      }
    });
    this.wake?.();
  }

  private result(unawaited: number): ProgramResult {
    const s = this.stop ? { ok: false as const, error: this.stopError() } : (this.settled ?? { ok: false as const, error: this.stopError() });
    let value: string | undefined;
    let truncated = this.outputCut;
    if (s.ok && s.value !== undefined) {
      value = s.value;
      if (value.length > this.limits.outputChars) {
        value = value.slice(0, this.limits.outputChars);
        truncated = true;
      }
    }
    return {
      ok: s.ok,
      value,
      output: this.output,
      truncated,
      ...(s.ok ? {} : { error: s.error }),
      calls: this.calls,
      unawaited: this.stop ? 0 : unawaited,
      late: this.late,
      computeMs: this.computeMs,
    };
  }
}

/** Options of a run on this thread: a run's options, and who hears when the program waits. */
export interface InThreadOptions extends RunProgramOptions {
  /** Called once the engine is up, just before the program starts computing. */
  onStart?: () => void;
  /** Called each time the program waits for calls (it computes nothing until one ends), with its compute time so far. */
  onIdle?: (computeMs: number) => void;
}

/**
 * Runs a program on this thread; never rejects for anything the program does (only when the
 * engine is missing). A program can hold this thread between two checks of its compute time
 * (see sandbox.ts): the host runs programs in a worker with `runProgram` instead.
 */
export async function runInThread(options: InThreadOptions): Promise<ProgramResult> {
  return new Run(options).run();
}
