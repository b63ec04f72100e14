import type { JsonObject, RequestId } from '../jsonrpc/messages.js';
import { LocalError } from '../jsonrpc/errors.js';

// Outgoing requests: what a caller may ask of one, and the record the peer keeps while it waits.

export interface ProgressInfo {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Per-request timeout; defaults to the peer's `requestTimeoutMs`. 0 disables it. */
  timeoutMs?: number;
  /** Restart the timeout whenever progress arrives (bounded by `maxTotalTimeoutMs`). */
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
  /** Asks the peer for progress (adds `_meta.progressToken`) and receives it. */
  onprogress?: (progress: ProgressInfo) => void;
  /** The inbound request this one is made on behalf of (routes it to that request's stream). */
  relatedRequestId?: RequestId;
}

/**
 * An outgoing request awaiting its response. A class, not an object literal, on purpose: V8
 * pretenures a literal's allocation site when a GC finds most of its objects alive, which a burst
 * of concurrent requests at start-up can cause by chance; then every record is born in the old
 * generation and, once dead, keeps the young promise and callbacks it points to alive through
 * scavenges (the client bench measured +8 % instructions per request from that). Objects made by a
 * constructor have no allocation site, so this cannot happen to them.
 */
export class Pending {
  /** When it times out (a clock time; Infinity: never), and whether that is the total cap. */
  deadline = Infinity;
  capped = false;
  cleanup: (() => void) | undefined = undefined;
  constructor(
    readonly method: string,
    readonly resolve: (result: JsonObject) => void,
    readonly reject: (error: Error) => void,
    readonly onprogress: ((p: ProgressInfo) => void) | undefined,
    readonly timeoutMs: number,
    readonly startedAt: number,
    readonly maxTotal: number,
    readonly resetOnProgress: boolean,
  ) {}

  /** Why it is cancelled when its deadline passes (the `reason` of notifications/cancelled). */
  timeoutReason(): string {
    return this.capped ? 'Maximum total timeout exceeded' : `Request timed out after ${this.timeoutMs} ms`;
  }

  /** The error it fails with when its deadline passes. */
  timedOut(): LocalError {
    return this.capped
      ? new LocalError('timeout', `Request "${this.method}" exceeded its maximum total time of ${this.maxTotal} ms`)
      : new LocalError('timeout', `Request "${this.method}" timed out after ${this.timeoutMs} ms`);
  }
}
