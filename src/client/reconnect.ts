import { LocalError } from '../jsonrpc/errors.js';
import { SessionExpiredError } from '../transports/http/client/http-common.js';

/**
 * Where a client stands with its server-side session:
 * - `ready`: the session is (as far as we know) alive; sends go straight out.
 * - `reinitializing`: a send was refused with {@link SessionExpiredError}; the handshake is
 *   being run again over the same transport. New sends wait for it.
 * - `expired`: the server ended the session and re-initializing failed. The next send tries
 *   one re-initialization first (the server may be back).
 */
export type SessionState = 'ready' | 'reinitializing' | 'expired';

/**
 * Re-initialization after session expiry (the spec: a 404 for a request carrying a session id
 * means the session is gone, and the client MUST start a new one with a fresh `initialize`):
 *
 * ```text
 *   ready ──send fails with SessionExpiredError──▶ reinitializing ──handshake ok──▶ ready (epoch+1)
 *     ▲                                                 │
 *     └──────── next send: one re-init attempt ◀── expired ◀──handshake fails──┘
 * ```
 *
 * Each send is retried at most once, after at most one re-initialization: never a loop.
 * Sends that fail together share one re-initialization; a send that fails after a
 * re-initialization that began later than it was sent is simply retried (the epoch tells).
 *
 * Only a send that itself was refused with SessionExpiredError is retried: the server did not
 * run it. A request lost otherwise (its stream broke) may have run, so it is never replayed.
 */
export class SessionRecovery {
  private current: SessionState = 'ready';
  /** Pending while `reinitializing`; rejects with the explained failure. */
  private done: Promise<void> | undefined;
  /** Completed re-initializations: a send remembers the epoch it was made in. */
  private epoch = 0;
  /** What expired the session last (kept for the `expired` state's next attempt). */
  private cause: SessionExpiredError | undefined;

  constructor(
    /** Runs the handshake again; rejects when that fails. */
    private readonly reinitialize: (cause: SessionExpiredError) => Promise<void>,
    private readonly enabled: boolean,
  ) {}

  get state(): SessionState {
    return this.current;
  }

  /** Runs `send`; on SessionExpiredError re-initializes (once, shared) and runs it once more. */
  run<T>(send: () => Promise<T>): Promise<T> {
    // The common case costs one promise reaction, not an async frame per request.
    if (this.current === 'ready') {
      const epoch = this.epoch;
      return send().catch((err: unknown) => {
        if (!this.enabled || !(err instanceof SessionExpiredError)) throw err;
        return this.recover(epoch, err).then(send);
      });
    }
    return this.runSlow(send);
  }

  private async runSlow<T>(send: () => Promise<T>): Promise<T> {
    let attempted = false;
    if (this.current === 'reinitializing') await this.done;
    else if (this.current === 'expired' && this.enabled) {
      attempted = true;
      await this.start(this.cause!);
    }
    const epoch = this.epoch;
    try {
      return await send();
    } catch (err) {
      if (!this.enabled || attempted || !(err instanceof SessionExpiredError)) throw err;
      await this.recover(epoch, err);
      // A second expiry (or any failure) now is the caller's: no loop.
      return await send();
    }
  }

  private recover(epoch: number, cause: SessionExpiredError): Promise<void> {
    if (this.current === 'reinitializing') return this.done!;
    // Already re-initialized since this send was made: the new session is there to retry in.
    if (this.current === 'ready' && this.epoch !== epoch) return Promise.resolve();
    return this.start(cause);
  }

  private start(cause: SessionExpiredError): Promise<void> {
    this.current = 'reinitializing';
    this.cause = cause;
    const done = this.reinitialize(cause).then(
      () => {
        this.epoch++;
        this.current = 'ready';
        this.cause = undefined;
      },
      (err: unknown) => {
        this.current = 'expired';
        const why = err instanceof Error ? err.message : String(err);
        throw new LocalError('closed', `The MCP session ${JSON.stringify(cause.sessionId)} expired and re-initializing failed: ${why}`, { cause: err });
      },
    );
    // Every waiter handles it; this only keeps a failure nobody waits for from going unhandled.
    done.catch(() => {});
    this.done = done;
    return done;
  }
}
