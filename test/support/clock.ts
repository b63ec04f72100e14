// A manual clock that shows which of its timers are armed, so that a test can move time to the
// moment the code under test is waiting for, and no further, without guessing how long to wait.
import { ManualClock } from '../../src/testing/clock.js';
import type { TimerHandle } from '../../src/engine/clock.js';

interface Armed {
  ms: number;
  at: number;
}

export class WatchedClock extends ManualClock {
  private readonly live = new Map<TimerHandle, Armed>();
  /** The delay of every setTimeout ever armed, in order. */
  readonly armed: number[] = [];

  override setTimeout(fn: () => void, ms: number): TimerHandle {
    this.armed.push(ms);
    const handle: TimerHandle = super.setTimeout(() => {
      this.live.delete(handle);
      fn();
    }, ms);
    this.live.set(handle, { ms, at: this.now() + Math.max(0, ms || 0) });
    return handle;
  }

  override clearTimeout(handle: TimerHandle): void {
    this.live.delete(handle);
    super.clearTimeout(handle);
  }

  /** When the earliest live one-shot timer armed with a delay of at most `maxMs` is due, if any. */
  nextDue(maxMs = Number.POSITIVE_INFINITY): number | undefined {
    let due: number | undefined;
    for (const t of this.live.values()) if (t.ms <= maxMs && (due === undefined || t.at < due)) due = t.at;
    return due;
  }
}
