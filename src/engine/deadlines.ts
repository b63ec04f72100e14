// Request timeouts on one timer per connection. A timer per outgoing request (a Timeout object,
// its closure, a place in Node's timer list, cleared again when the answer comes a millisecond
// later) was a cost every call paid for a timeout that almost never fires. Here each request
// records its deadline; one timer is armed for the earliest, and when it fires the connection
// looks for the requests whose deadline has passed and arms the timer for the next one. An answer
// touches nothing: a deadline whose request has gone is simply not found when the timer fires.
import { systemClock, type Clock, type TimerHandle } from './clock.js';

export interface Deadlines {
  /** The time deadlines are kept in (ms; not the epoch with the system clock, see below). */
  now(): number;
  /** A request's deadline is `when` (a clock time): the timer is brought forward when it must be. */
  watch(when: number): void;
  /** No request is waiting: the timer goes (an armed timer keeps a Node process alive). */
  idle(): void;
}

/**
 * `expire(now)` times out every request whose deadline is at or before `now`, and says the
 * earliest deadline left (Infinity for none). Closures rather than a class: this ships in the
 * browser client, where every byte is counted.
 */
export function deadlines(clock: Clock, expire: (now: number) => number): Deadlines {
  // Deadlines are kept on a clock that does not step: with the system clock, performance.now()
  // (Date.now() follows the wall clock, and a step of it would time requests out early, or late,
  // as timers per request never did); a clock a test drives is read as it is.
  const now = clock === systemClock ? () => performance.now() : () => clock.now();
  let timer: TimerHandle | undefined;
  /** When the armed timer fires (Infinity: none armed). */
  let at = Infinity;
  const idle = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    at = Infinity;
  };
  const watch = (when: number) => {
    if (when >= at) return;
    idle();
    at = when;
    timer = clock.setTimeout(fire, Math.max(0, when - now()));
  };
  const fire = () => {
    timer = undefined;
    at = Infinity;
    // A timer may fire a little before the clock reads its time (they keep time apart): what is
    // not due yet is simply watched again.
    const next = expire(now());
    if (next !== Infinity) watch(next);
  };
  return { now, watch, idle };
}
