// Waiting in tests without betting on the machine's speed. A test waits for the event or the
// condition it cares about; the timeouts here are safety nets that turn a hang into a readable
// failure, never measurements, so they are generous.
import { once as onceEvent, type EventEmitter } from 'node:events';

/**
 * How much longer than usual the machine may take for honest work: `MCPKIT_TEST_PATIENCE`
 * (default 1; `npm run test:load` sets it for the busy loops it starts, and a CI machine known to
 * be slow may set it too). It stretches safety nets only, never a wait: a test that passes takes
 * no longer for it.
 */
export const PATIENCE = Math.max(1, Number(process.env.MCPKIT_TEST_PATIENCE) || 1);

/** A safety net of `ms` on a machine of ordinary speed, stretched by PATIENCE. */
export function patient(ms: number): number {
  return Math.round(ms * PATIENCE);
}

/** How long `waitFor`/`once` wait before failing, unless told otherwise. */
export const SAFETY_NET_MS = patient(15_000);

/**
 * Waits `ms` of wall-clock time. Only for a real need (letting a child process run, pacing a
 * server under test); never as a stand-in for a condition: use `waitFor`, `once` or a deferred.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

/** Lets queued microtasks, `setImmediate` callbacks and in-memory deliveries run (`rounds` turns of the event loop). */
export async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export interface WaitOptions {
  /** Safety net (default SAFETY_NET_MS): after this the wait fails with `what` in the message. */
  timeoutMs?: number;
  /** What is awaited, for the failure message ("the second tasks/get"). */
  what?: string;
  /** Poll interval (default 5 ms). */
  intervalMs?: number;
}

/** What `waitFor` keeps polling on: the falsy values. */
type NotYet = undefined | null | false | '' | 0;

/**
 * Polls `probe` until it yields a truthy value, and returns it.
 * The probe may be async. Fails with "timed out after N ms waiting for WHAT" (and the probe's last
 * error, when it threw) once the safety net runs out.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitOptions | string = {}): Promise<Exclude<T, NotYet>> {
  const o = typeof options === 'string' ? { what: options } : options;
  const timeoutMs = o.timeoutMs ?? SAFETY_NET_MS;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as Exclude<T, NotYet>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError === undefined ? '' : ` (last attempt threw: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`waitFor: timed out after ${timeoutMs} ms waiting for ${o.what ?? 'a condition'}${why}`);
    }
    await sleep(o.intervalMs ?? 5);
  }
}

/** Rejects with a readable error if `promise` has not settled within the safety net. */
export function within<T>(promise: Promise<T>, what: string | (() => string), timeoutMs = SAFETY_NET_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const net = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`)), timeoutMs);
    timer.unref();
  });
  return Promise.race([promise, net]).finally(() => clearTimeout(timer));
}

/** The next `event` of a Node emitter or an EventTarget (its arguments / the Event), with a safety net. */
export function once(target: EventEmitter, event: string, options?: WaitOptions): Promise<unknown[]>;
export function once(target: EventTarget, event: string, options?: WaitOptions): Promise<Event>;
export function once(target: EventEmitter | EventTarget, event: string, options: WaitOptions = {}): Promise<unknown> {
  const what = options.what ?? `the "${event}" event`;
  if ('addEventListener' in target && !('on' in target)) {
    return within(new Promise<Event>((resolve) => target.addEventListener(event, resolve, { once: true })), what, options.timeoutMs);
  }
  return within(onceEvent(target as EventEmitter, event), what, options.timeoutMs);
}

/** Resolves when `signal` aborts (or at once if it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
