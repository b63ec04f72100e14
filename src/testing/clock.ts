// A clock that moves only when the test says so: TTLs, expiry, request timeouts and periodic
// sweeps happen at `advance()`, in due-time order, with no wall-clock wait.
import type { Clock, TimerHandle } from '../engine/clock.js';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
  /** Set for intervals: re-armed this far after each firing. */
  every?: number;
}

/** The handle ManualClock's timers return; `unref`/`ref` exist so Node-minded code can call them. */
class ManualTimerHandle {
  constructor(readonly id: number) {}
  unref(): this {
    return this;
  }
  ref(): this {
    return this;
  }
}

/**
 * A hand-driven Clock for tests. `now()` starts at `start` (default: the real time when created,
 * so that times compared with other clocks, such as token expiries, stay plausible) and changes
 * only through `advance`/`set`, which run every timer that comes due, each at its own time.
 *
 *   const clock = new ManualClock();
 *   const store = new InMemorySessionStore({ clock });
 *   store.set('s', record, 1000);
 *   clock.advance(1001);
 *   assert.equal(store.get('s'), undefined);
 */
export class ManualClock implements Clock {
  private t: number;
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();

  constructor(start: number = Date.now()) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.arm(fn, ms, undefined);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.arm(fn, ms, Math.max(1, ms));
  }

  clearTimeout(handle: TimerHandle): void {
    if (handle instanceof ManualTimerHandle) this.timers.delete(handle.id);
  }

  clearInterval(handle: TimerHandle): void {
    this.clearTimeout(handle);
  }

  /** Timers armed and not yet fired or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running each timer that comes due at its due time, in order. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ms must be >= 0 (got ${ms})`);
    const end = this.t + ms;
    for (;;) {
      let due: Timer | undefined;
      for (const timer of this.timers.values()) if (timer.at <= end && (due === undefined || timer.at < due.at)) due = timer;
      if (due === undefined) break;
      this.t = Math.max(this.t, due.at);
      if (due.every === undefined) this.timers.delete(due.id);
      else due.at += due.every;
      due.fn();
    }
    this.t = end;
  }

  /** Moves time to `time` (never backwards), running timers as `advance` does. */
  set(time: number): void {
    this.advance(Math.max(0, time - this.t));
  }

  private arm(fn: () => void, ms: number, every: number | undefined): ManualTimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, at: this.t + Math.max(0, ms || 0), fn, every });
    return new ManualTimerHandle(id);
  }
}
