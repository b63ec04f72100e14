/**
 * The stdio client's `earlyLines`. With 32 requests in flight between mcpkit's own client and
 * server on 2 cores, 4–16 all lifted the round-trip rate off the turn-taking plateau.
 */
export const EARLY_LINES = 8;

interface Batch {
  text: string;
  /** Lines in `text`. */
  lines: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: Error) => void;
}

/**
 * Ordered, backpressure-aware writes of whole lines to a stream.
 *
 * Lines never interleave and go out in the order `write()` was called. Lines written in the same
 * tick are joined and handed to the stream in one `write()` (on a pipe, one syscall): with many
 * requests in flight a peer answers a burst of messages at once, and one write per line was the
 * largest cost after JSON itself. The batch leaves at the end of the tick (`process.nextTick`),
 * so a lone message is not delayed. With `earlyLines` (the stdio client), the first that many
 * lines of a tick leave as soon as they are written, and the rest of the tick's lines follow in
 * one write at its end. When `write()` returns false the writer waits for `'drain'` before the
 * next batch, which meanwhile collects everything written after it.
 *
 * Why the early batch: with a whole tick per write on both ends, a client answering a burst of N
 * responses with N new requests hands all N over at once, the server answers all N before
 * writing any, and so on: the two processes take turns instead of overlapping, and the
 * round-trip rate settles at 1 ÷ (client CPU + server CPU per call) however many cores there are
 * (docs/performance.md, "stdio: own client"). The client handing its first few lines over at
 * once lets the server start on them while the rest are made; bursts then break up into small
 * chunks that keep both processes busy. One end splitting is enough. Only one early batch per
 * tick: splitting every few lines did the same on free cores, but cost ~18 % more instructions
 * per message when the chunks arrive together anyway (a busy machine); and the server does not
 * split: against a client that already writes in small pieces (the bench's raw line driver) it
 * only made the server's chunks smaller and dearer (−10 % calls/s).
 */
export class LineWriter {
  private readonly stream: NodeJS.WritableStream;
  /** Batches not yet handed to the stream, oldest first; the last one may still be open. */
  private readonly queue: Batch[] = [];
  /** The batch still taking lines (until the tick ends). */
  private open: Batch | undefined;
  /** The batch the stream took with write() === false: it settles on 'drain'. */
  private draining: Batch | undefined;
  private scheduled = false;
  /** This tick's early batch has been handed over: the rest of the tick's lines wait for its end. */
  private earlySent = false;
  private failure: Error | undefined;
  private readonly onDrain = (): void => this.drained();
  private readonly onStreamError = (e: Error): void => this.fail(e);
  private readonly onStreamClose = (): void => this.fail(new Error('The output stream was closed'));
  private readonly onTick = (): void => this.tick();
  private attached = false;

  private readonly onFailure: ((error: Error) => void) | undefined;

  /** Lines of a tick handed over before the tick ends (Infinity: none). */
  private readonly earlyLines: number;

  /**
   * `onFailure` is called once, with the first error the stream reports. `earlyLines`: see the
   * class comment (default: every line of a tick waits for its end).
   */
  constructor(stream: NodeJS.WritableStream, onFailure?: (error: Error) => void, earlyLines = Infinity) {
    this.stream = stream;
    this.onFailure = onFailure;
    this.earlyLines = earlyLines;
  }

  /** Set once the stream has failed; every later write rejects with it. */
  get error(): Error | undefined {
    return this.failure;
  }

  /**
   * Writes `line` (which must already end with `\n`) after every earlier line. The promise
   * settles when the stream has taken the line's batch (or failed); lines of one batch share it.
   */
  write(line: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const open = this.open;
    if (open) {
      open.text += line;
      // The tick's early batch is full: hand it over now (unless a drain wait holds it); the
      // next line opens the batch that the already scheduled tick end closes.
      if (++open.lines >= this.earlyLines && !this.earlySent) {
        this.earlySent = true;
        this.open = undefined;
        this.pump();
      }
      return open.promise;
    }
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const batch: Batch = { text: line, lines: 1, promise, resolve, reject };
    this.open = batch;
    this.queue.push(batch);
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.onTick);
    }
    return promise;
  }

  /** Resolves once every line queued so far was handed to the stream (or failed). */
  flushed(): Promise<void> {
    const last = this.queue.length > 0 ? this.queue[this.queue.length - 1] : this.draining;
    return last ? last.promise.then(noop, noop) : DONE;
  }

  /** Marks the stream as unusable: the pending drain wait and later writes reject. */
  fail(error: Error): void {
    const first = !this.failure;
    if (first) this.failure = error;
    const failure = this.failure!;
    const waiting = this.draining;
    this.draining = undefined;
    waiting?.reject(failure);
    this.open = undefined;
    for (const b of this.queue.splice(0)) b.reject(failure);
    if (first) this.onFailure?.(error);
  }

  /**
   * Hands the open batch to the stream now instead of at the end of the tick: before the stream
   * is ended or the writer detached, so that nothing written earlier in this tick is left behind.
   */
  flushNow(): void {
    if (this.open) this.tick();
  }

  /** Removes the listeners this writer put on the stream (once queued lines are settled). */
  detach(): void {
    this.flushNow();
    void this.flushed().then(() => {
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

  /** The tick that opened a batch is over: close it and write what can be written. */
  private tick(): void {
    // Also run early by flushNow; the scheduled call then finds nothing open, or closes a newer
    // batch a little early, which only makes it smaller.
    this.scheduled = false;
    this.earlySent = false;
    this.open = undefined;
    this.pump();
  }

  private drained(): void {
    const b = this.draining;
    if (!b) return;
    this.draining = undefined;
    b.resolve();
    this.pump();
  }

  private pump(): void {
    while (!this.draining && !this.failure) {
      const b = this.queue[0];
      if (!b || b === this.open) return;
      this.queue.shift();
      if (!this.writeNow(b)) return;
    }
  }

  /** Hands one batch to the stream; false when it must wait (drain) or failed. */
  private writeNow(b: Batch): boolean {
    this.attach();
    let ok: boolean;
    try {
      // The callback catches failures that emit no 'error' event (e.g. a destroyed stream).
      ok = this.stream.write(b.text, (err?: Error | null) => {
        if (err) this.fail(err);
      });
    } catch (e) {
      // Writing to a destroyed/ended stream may throw synchronously in some stream types.
      const err = e instanceof Error ? e : new Error(String(e));
      b.reject(err);
      this.fail(err);
      return false;
    }
    if (ok) {
      b.resolve();
      return true;
    }
    this.draining = b;
    return false;
  }
}

const DONE: Promise<void> = Promise.resolve();

function noop(): void {}

function ignoreError(): void {
  // Intentionally empty: see LineWriter.detach().
}
