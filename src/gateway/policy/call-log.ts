// The call log: one JSON line per finished call (who, what, how long, how it ended). `record`
// only queues the line; the lines are written together after the current turn of the event loop,
// so a slow disk or a full pipe never holds up an answer. A write that fails is reported once
// and the log goes quiet: losing log lines is better than failing calls.
//
// Arguments are left out unless configured: they carry users' data (paths, queries, secrets
// pasted into prompts), which an audit log kept for months should not collect by default.
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { CallRecord } from '../policy-types.js';

export interface CallLogOptions {
  /** `stdout`, `stderr`, or a file path (appended to). Never `stdout` for a gateway served over stdio. */
  to: string;
  /** `false` (default): no arguments; `keys`: their names only; `true`: whole. */
  arguments?: boolean | 'keys';
  /** Writes here instead of `to` (tests, or a log shipper's stream). */
  stream?: Writable;
  /** Lines held while the stream is busy before new ones are dropped (and counted). Default 10000. */
  maxBufferedLines?: number;
  /** Where the log's own troubles go. Default: standard error. */
  warn?: (line: string) => void;
}

/** One line of the log, as written. */
export interface CallLogLine {
  time: string;
  caller: string;
  method: string;
  kind?: string;
  item?: string;
  server?: string;
  original?: string;
  durationMs: number;
  outcome: CallRecord['outcome'];
  error?: string;
  session?: string;
  arguments?: Record<string, unknown> | string[];
}

export class CallLog {
  private readonly stream: Writable;
  private readonly owned: boolean;
  private readonly args: boolean | 'keys';
  private readonly max: number;
  private readonly warn: (line: string) => void;
  private queue: string[] = [];
  private scheduled = false;
  private waitingForDrain = false;
  private broken = false;
  private closed = false;
  private dropped = 0;
  private idle: Array<() => void> = [];

  constructor(options: CallLogOptions) {
    this.args = options.arguments ?? false;
    this.max = options.maxBufferedLines ?? 10_000;
    this.warn = options.warn ?? ((line) => process.stderr.write(`${line}\n`));
    if (options.stream) {
      this.stream = options.stream;
      this.owned = false;
    } else if (options.to === 'stdout' || options.to === 'stderr') {
      this.stream = options.to === 'stdout' ? process.stdout : process.stderr;
      this.owned = false;
    } else {
      this.stream = createWriteStream(options.to, { flags: 'a' });
      this.owned = true;
    }
    this.stream.on('error', (e: Error) => this.fail(e));
  }

  /** Queues the call's line. Never throws, never waits. */
  record(entry: CallRecord): void {
    if (this.broken || this.closed) return;
    if (this.queue.length >= this.max) {
      this.dropped++;
      return;
    }
    let line: string;
    try {
      line = JSON.stringify(this.shape(entry));
    } catch {
      // Arguments that JSON cannot hold (a cycle, a BigInt): the call is still logged, without them.
      line = JSON.stringify(this.shape({ ...entry, arguments: undefined }, true));
    }
    this.queue.push(`${line}\n`);
    if (!this.scheduled && !this.waitingForDrain) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes what is queued, then ends the file (standard streams stay open). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.drained();
    if (this.owned && !this.broken) await new Promise<void>((resolve) => this.stream.end(resolve));
  }

  /** Resolves when every queued line has been handed to the stream (or the log broke). */
  drained(): Promise<void> {
    if (this.broken || (this.queue.length === 0 && !this.waitingForDrain && !this.scheduled)) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private shape(e: CallRecord, argumentsUnloggable = false): CallLogLine {
    const line: CallLogLine = { time: e.time, caller: e.caller, method: e.method, durationMs: e.durationMs, outcome: e.outcome };
    if (e.item) {
      line.kind = e.item.kind;
      line.item = e.item.name;
      // The gateway's own tools (code mode's run_code and search_api) have no server.
      if (e.item.server !== '') line.server = e.item.server;
      if (e.item.original !== e.item.name) line.original = e.item.original;
    }
    if (e.error !== undefined) line.error = e.error;
    if (e.session !== undefined) line.session = e.session;
    if (this.args && e.arguments) line.arguments = this.args === 'keys' ? Object.keys(e.arguments) : { ...e.arguments };
    else if (this.args && argumentsUnloggable) line.arguments = ['(not serialisable)'];
    return line;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.broken || this.queue.length === 0) return this.settle();
    const chunk = this.queue.join('');
    this.queue = [];
    if (this.dropped > 0) {
      this.warn(`[mcpkit/gateway] call log: ${this.dropped} line(s) dropped while the log could not keep up`);
      this.dropped = 0;
    }
    let more: boolean;
    try {
      more = this.stream.write(chunk);
    } catch (e) {
      return this.fail(e as Error);
    }
    if (more) return this.settle();
    this.waitingForDrain = true;
    this.stream.once('drain', () => {
      this.waitingForDrain = false;
      this.flush();
    });
  }

  private settle(): void {
    if (this.queue.length > 0 || this.scheduled || this.waitingForDrain) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  private fail(e: Error): void {
    if (this.broken) return;
    this.broken = true;
    this.queue = [];
    this.warn(`[mcpkit/gateway] call log: writing failed (${e.message}); no more calls are logged`);
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
