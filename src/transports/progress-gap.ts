import type { JsonRpcMessage, RequestId } from '../jsonrpc/messages.js';
import { systemClock, type Clock } from '../engine/clock.js';

/**
 * Default of `progressGapMs`. Measured with the official client over stdio: 2 ms lost no call in
 * 400 on an idle 2-core machine; with both cores held by busy loops 5 ms lost about 1 in 80 and
 * 10 ms about 1 in 400 (a client process that is not scheduled for longer than the gap still
 * reads both at once: time narrows the window, it cannot close it).
 */
export const PROGRESS_GAP_MS = 10;

/**
 * Says how long a response must wait before it is written. The official v1 SDK's clients over
 * stdio and HTTP+SSE run a notification's handler a microtask after the read that carried it,
 * but settle a response at once and drop its request's progress handler with it: a progress
 * notification read together with its request's result never reaches `onprogress`. Only time
 * keeps the two in separate reads (a turn of the event loop was not enough: nearly every call
 * still lost its last notification), so the result of a request that reported progress less
 * than `ms` ago waits out the rest. Requests without progress never wait.
 */
export class ProgressGap {
  /** When each request last reported progress; made on first use. */
  private last: Map<RequestId, number> | undefined;

  constructor(
    private readonly ms: number = PROGRESS_GAP_MS,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(ms >= 0)) throw new RangeError(`progressGapMs must be 0 or more, got ${String(ms)}`);
  }

  /** Called for each message as it is sent: the milliseconds it must wait (0: write it now). */
  delay(message: JsonRpcMessage | JsonRpcMessage[], related: RequestId | undefined): number {
    if (related === undefined) return 0;
    if ('method' in message) {
      if (message.method === 'notifications/progress' && this.ms > 0) this.noted(related);
      return 0;
    }
    const last = this.last;
    if (last === undefined || last.size === 0) return 0;
    const at = last.get(related);
    if (at === undefined) return 0;
    last.delete(related);
    return Math.max(0, at + this.ms - this.clock.now());
  }

  private noted(id: RequestId): void {
    const last = (this.last ??= new Map());
    const now = this.clock.now();
    // A request that reported progress and was never answered (cancelled) is forgotten here.
    if (last.size >= 64) for (const [k, at] of last) if (now - at >= this.ms) last.delete(k);
    last.set(id, now);
  }
}

/**
 * Resolves `ms` later, and then one more turn of the event loop: when client and server share a
 * process and the loop stalled past `ms`, the expired timer runs before the poll that reads the
 * notification; a second timer armed from the first one is due no sooner than the next turn, so
 * that poll comes first. (Timers, not setImmediate: mcpkit/http runs outside Node too.)
 */
export function afterGap(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(() => setTimeout(resolve, 0), ms));
}
