// Runs a program in a worker thread (worker.ts, running runner.ts), so that nothing a program
// does can hold the host's thread. QuickJS checks its compute time only every ten thousand
// operations; a program that, say, catches its own out-of-memory error in a loop spends a full
// garbage collection on each turn and can go minutes between two checks. The host does not
// wait for it: while the worker computes, a watchdog on the host's clock runs, armed for what is
// left of the compute limit and a grace period, and when it fires the worker is terminated.
// Tool calls come out as messages, are made by the host (`call`), and their answers go back.
import { AsyncResource } from 'node:async_hooks';
import { Worker } from 'node:worker_threads';
import { type Clock, systemClock } from '../engine/clock.js';
import { checkSandboxEngine } from './engine.js';
import { DEFAULT_LIMITS, type ProgramError, type ProgramResult, type RunProgramOptions, type SandboxLimits } from './limits.js';
import type { HostMessage, WorkerMessage } from './protocol.js';

export { DEFAULT_LIMITS, SandboxCallError } from './limits.js';
export type { ProgramError, ProgramErrorKind, ProgramResult, RunProgramOptions, SandboxCall, SandboxLimits } from './limits.js';

/** Beyond the compute limit, how long a worker may stay busy before it is ended by force. */
export const WATCHDOG_GRACE_MS = 1000;
/** Idle workers kept for the next runs. */
const KEEP_IDLE = 2;

const idle: Worker[] = [];
let nextRun = 1;

function spawn(): Worker {
  const options = {
    // A small native stack, as a main thread has: the engine's deep native recursions (a
    // JSON.stringify of deeply nested data checks for cycles at every level) overflow it early
    // and end the run as a stack overflow, instead of working on for seconds. JavaScript
    // recursion is stopped before that by QuickJS's own stack limit.
    resourceLimits: { stackSizeMb: 1, maxOldGenerationSizeMb: 128 },
  };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), options);
  // Run from source (tsx: tests, benchmarks), the worker is the .ts file beside this one, and a
  // worker does not inherit the loader hooks: it registers tsx's before loading it.
  const tsx = import.meta.resolve('tsx/esm/api');
  const worker = new URL('./worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

function take(): Worker {
  const w = idle.pop() ?? spawn();
  w.ref();
  return w;
}

function give(w: Worker): void {
  if (idle.length >= KEEP_IDLE) {
    void w.terminate();
    return;
  }
  w.unref();
  idle.push(w);
}

function stopped(error: ProgramError, calls: number, computeMs: number): ProgramResult {
  return { ok: false, value: undefined, output: '', truncated: false, error, calls, unawaited: 0, late: 0, computeMs };
}

/**
 * Runs a program in a sandbox worker; never rejects for anything the program does (only with
 * a SandboxUnavailableError when the engine's packages are missing). A run stopped by force
 * (the watchdog, cancellation) loses what the program printed: the worker is gone.
 */
export async function runProgram(o: RunProgramOptions): Promise<ProgramResult> {
  await checkSandboxEngine();
  const limits: SandboxLimits = { ...DEFAULT_LIMITS, ...o.limits };
  const clock: Clock = o.clock ?? systemClock;
  if (o.signal?.aborted) return stopped({ kind: 'cancelled', name: 'Cancelled', message: 'the run was cancelled' }, 0, 0);
  const worker = take();
  const run = nextRun++;
  const calls = new Map<number, AbortController>();
  let made = 0;
  let computeMs = 0;
  let busy = false;
  let timer: unknown;

  return new Promise<ProgramResult>((resolve) => {
    let finished = false;
    const disarm = () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    };
    const finish = (result: ProgramResult, reuse: boolean) => {
      if (finished) return;
      finished = true;
      disarm();
      worker.off('message', inContext);
      worker.off('error', onError);
      worker.off('exit', onExit);
      o.signal?.removeEventListener('abort', onAbort);
      for (const c of calls.values()) c.abort(new Error('the program was stopped'));
      if (reuse) give(worker);
      else void worker.terminate();
      resolve(result);
    };
    /** The worker computes: the watchdog runs for what is left of the limit, and the grace. */
    const working = () => {
      if (busy) return;
      busy = true;
      timer = clock.setTimeout(
        () =>
          finish(
            stopped(
              {
                kind: 'timeout',
                name: 'Timeout',
                message: `the program computed for more than ${limits.cpuMs} ms and was ended by force (an endless loop, or a loop around a failing allocation?)`,
              },
              made,
              computeMs,
            ),
            false,
          ),
        Math.max(0, limits.cpuMs - computeMs) + WATCHDOG_GRACE_MS,
      );
    };
    let answers = 0;
    const answer = (index: number, outcome: { ok: true; value: unknown } | { ok: false; name: string; message: string }) => {
      if (finished) return;
      answers++;
      worker.postMessage({ type: 'answer', run, index, ...outcome } as HostMessage);
      // The worker computes again as soon as the answer is in.
      working();
    };
    const onMessage = (m: WorkerMessage) => {
      if (m.run !== run || finished) return;
      switch (m.type) {
        case 'call': {
          made++;
          const controller = new AbortController();
          calls.set(m.index, controller);
          const info = { namespace: m.namespace, name: m.name, args: m.args, index: m.index, signal: controller.signal };
          Promise.resolve()
            .then(() => o.call(info))
            .then(
              (value) => answer(m.index, { ok: true, value: value === undefined ? null : value }),
              (err: unknown) =>
                answer(m.index, {
                  ok: false,
                  name: err instanceof Error ? err.name : 'Error',
                  message: err instanceof Error ? err.message : String(err),
                }),
            )
            .finally(() => calls.delete(m.index));
          return;
        }
        case 'abort':
          calls.get(m.index)?.abort(new Error('the program was stopped'));
          return;
        case 'started':
          working();
          return;
        case 'idle':
          computeMs = m.computeMs;
          // Idle before it read an answer sent since: it is busy with that one now.
          if (m.answered < answers) return;
          busy = false;
          disarm();
          return;
        case 'done':
          finish(m.result, true);
          return;
        case 'failed':
          finish(stopped({ kind: 'internal', name: m.name, message: m.message }, made, computeMs), false);
      }
    };
    const onError = (err: Error) =>
      finish(stopped({ kind: 'internal', name: 'SandboxError', message: `the sandbox worker failed: ${err.message}` }, made, computeMs), false);
    const onExit = (code: number) =>
      finish(stopped({ kind: 'internal', name: 'SandboxError', message: `the sandbox worker exited (code ${code})` }, made, computeMs), false);
    const onAbort = () => finish(stopped({ kind: 'cancelled', name: 'Cancelled', message: 'the run was cancelled' }, made, computeMs), false);
    // The worker's messages arrive in the context the worker was made in (a pooled worker: an
    // earlier run's, or none): the calls they start must run in this run's caller's context, so
    // that tracing sees them inside the message that ran the program, as it sees direct calls.
    const inContext = AsyncResource.bind(onMessage);
    worker.on('message', inContext);
    worker.on('error', onError);
    worker.on('exit', onExit);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    // The watchdog starts when the program does ('started'): the worker's own start is not the program's time.
    worker.postMessage({ type: 'run', run, code: o.code, api: [...o.api], now: o.now ?? clock.now(), limits } satisfies HostMessage);
  });
}
