/**
 * Ordered, backpressure-aware writes of whole lines to a stream.
 *
 * Each line is written with a single `write()` call, so lines never interleave. When `write()`
 * returns false the writer waits for `'drain'` before writing the next line; every line waits
 * for the one before it, so messages go out in the order `write()` was called.
 */
export class LineWriter {
  private readonly stream: NodeJS.WritableStream;
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private waiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private readonly onDrain = (): void => this.settleWaiter();
  private readonly onStreamError = (e: Error): void => this.fail(e);
  private readonly onStreamClose = (): void => this.fail(new Error('The output stream was closed'));
  private attached = false;

  private readonly onFailure: ((error: Error) => void) | undefined;

  /** `onFailure` is called once, with the first error the stream reports. */
  constructor(stream: NodeJS.WritableStream, onFailure?: (error: Error) => void) {
    this.stream = stream;
    this.onFailure = onFailure;
  }

  /** Set once the stream has failed; every later write rejects with it. */
  get error(): Error | undefined {
    return this.failure;
  }

  /** Writes `line` (which must already end with `\n`) after every earlier line. */
  write(line: string): Promise<void> {
    const p = this.tail.then(() => this.writeNow(line));
    // A failed line must not stop the ones queued after it.
    this.tail = p.catch(() => undefined);
    return p;
  }

  /** Resolves once every line queued so far was handed to the stream (or failed). */
  flushed(): Promise<void> {
    return this.tail;
  }

  /** Marks the stream as unusable: the pending drain wait and later writes reject. */
  fail(error: Error): void {
    const first = !this.failure;
    if (first) this.failure = error;
    this.settleWaiter(this.failure);
    if (first) this.onFailure?.(error);
  }

  /** Removes the listeners this writer put on the stream (once queued lines are settled). */
  detach(): void {
    void this.tail.then(() => {
      if (!this.attached) return;
      this.attached = false;
      this.stream.removeListener('drain', this.onDrain);
      this.stream.removeListener('close', this.onStreamClose);
      // Keep swallowing late errors (an EPIPE reported after the last write) so they cannot
      // crash the process; a listener that does nothing is cheap.
      this.stream.removeListener('error', this.onStreamError);
      if (!this.stream.listeners('error').includes(ignoreError)) this.stream.on('error', ignoreError);
    });
  }

  /**
   * Listens for stream errors without writing anything. Without an 'error' listener, an EPIPE
   * on a pipe would be thrown as an uncaught exception.
   */
  attach(): void {
    if (this.attached) return;
    this.attached = true;
    this.stream.on('drain', this.onDrain);
    this.stream.on('error', this.onStreamError);
    this.stream.on('close', this.onStreamClose);
  }

  private writeNow(line: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.attach();
    let ok: boolean;
    try {
      // The callback catches failures that emit no 'error' event (e.g. a destroyed stream).
      ok = this.stream.write(line, (err?: Error | null) => {
        if (err) this.fail(err);
      });
    } catch (e) {
      // Writing to a destroyed/ended stream may throw synchronously in some stream types.
      const err = e instanceof Error ? e : new Error(String(e));
      this.fail(err);
      return Promise.reject(err);
    }
    if (ok) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private settleWaiter(error?: Error): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    if (error) w.reject(error);
    else w.resolve();
  }
}

function ignoreError(): void {
  // Intentionally empty: see LineWriter.detach().
}
