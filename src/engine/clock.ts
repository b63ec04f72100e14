// Time as a dependency. Code with TTLs, expiry, timeouts or periodic work reads the time and
// arms its timers through a Clock, so that tests (and users' tests) can drive time by hand with
// `ManualClock` from mcpkit/testing instead of waiting it out. The default is the system clock;
// using it costs a property read, nothing more.

/** What `setTimeout`/`setInterval` return: opaque (a Timeout in Node, a number elsewhere). */
export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds since the epoch, like Date.now(). */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
}

/** The real clock: Date.now and the global timers. */
export const systemClock: Clock = {
  now: Date.now,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as Parameters<typeof clearTimeout>[0]),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as Parameters<typeof clearInterval>[0]),
};

/** Lets the process exit while `handle` is pending (Node); a no-op where timers have no such notion. */
export function unrefTimer(handle: TimerHandle): void {
  (handle as { unref?(): unknown } | undefined)?.unref?.();
}
