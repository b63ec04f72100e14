import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { encodeMessage } from '../../jsonrpc/codec.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import { type Clock, systemClock } from '../../engine/clock.js';
import type { Transport } from '../../engine/transport.js';
import { DEFAULT_MAX_LINE_LENGTH, LineReader } from './line-reader.js';
import { EARLY_LINES, LineWriter } from './line-writer.js';
import { ServerExitError } from './exit.js';
import { defaultEnvironment, describeSpawnError, StderrTail } from './process.js';

export { DEFAULT_INHERITED_ENV_VARS, defaultEnvironment } from './process.js';

export interface StdioClientTransportOptions {
  /** Executable to run. Never passed through a shell. */
  command: string;
  args?: string[];
  /** Added on top of {@link defaultEnvironment} (not on top of the whole `process.env`). */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * What to do with the server's stderr (its log channel). `'inherit'` (default) shows it in ours;
   * `'pipe'` exposes it as {@link StdioClientTransport.stderr}; `'ignore'` discards it. With
   * either, its tail is quoted when the server dies.
   */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** Largest accepted line from the server, in bytes (default 4 MiB); longer lines are dropped. */
  maxMessageSize?: number;
  /** Wait for each shutdown step (stdin EOF, then SIGTERM) before escalating. Default 2000 ms. */
  shutdownTimeoutMs?: number;
  /** Where those waits are timed (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
}

/** How long to wait for the child's pipes to close after it exited (a grandchild may hold them). */
const PIPE_GRACE_MS = 500;
/** How long a failed write waits for the server's exit to explain it. */
const EXIT_AFTER_PIPE_ERROR_MS = 2_000;
/** Unread stderr kept for a `'pipe'` consumer before further output is dropped. */
const STDERR_BUFFER = 64 * 1024;

/**
 * The client side of the stdio transport: spawns the server as a child process and speaks
 * newline-delimited JSON-RPC over its stdin/stdout.
 */
export class StdioClientTransport implements Transport {
  get kind(): 'stdio' {
    return 'stdio';
  }
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];

  /**
   * The server's stderr when `stderr: 'pipe'`, available before start() so listeners can be
   * attached early. Never blocks the server: output nobody reads is dropped beyond 64 KiB.
   */
  readonly stderr: Readable | null;
  private readonly stderrSink: PassThrough | null;

  private readonly options: StdioClientTransportOptions;
  private readonly shutdownTimeoutMs: number;
  private readonly reader: LineReader;
  private readonly tail = new StderrTail();
  private child: ChildProcess | undefined;
  private writer: LineWriter | undefined;
  private state: 'new' | 'starting' | 'open' | 'closed' = 'new';
  private closeRequested = false;
  private exited = false;
  private exitSignal: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private finished = false;
  private finishedSignal: (() => void) | undefined;
  /** Why the process ended when nobody asked it to (set once it has). */
  private exitError: Error | undefined;
  private readonly finishedPromise = new Promise<void>((resolve) => (this.finishedSignal = resolve));

  constructor(options: StdioClientTransportOptions) {
    this.options = options;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? 2000;
    this.stderrSink = options.stderr === 'pipe' ? new PassThrough({ highWaterMark: STDERR_BUFFER }) : null;
    this.stderr = this.stderrSink;
    const max = options.maxMessageSize ?? DEFAULT_MAX_LINE_LENGTH;
    this.reader = new LineReader({
      maxLineLength: max,
      onLine: (line) => this.deliver(line),
      onOversize: (n) => this.report(new Error(`Dropped a message from the MCP server: more than ${max} bytes (${n} bytes received)`)),
    });
  }

  /** What this transport runs: the command line and working directory (e.g. to name the server). */
  get spawnTarget(): { command: string; args: readonly string[]; cwd?: string } {
    return { command: this.options.command, args: this.options.args ?? [], cwd: this.options.cwd };
  }

  /** The child's process id once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.state !== 'new') return Promise.reject(new Error('StdioClientTransport already started'));
    this.state = 'starting';
    const { command } = this.options;
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(command, this.options.args ?? [], {
          env: { ...defaultEnvironment(), ...this.options.env },
          cwd: this.options.cwd,
          shell: false,
          windowsHide: true,
          // 'ignore' still reads it, for the tail quoted when the server dies, then drops it.
          stdio: ['pipe', 'pipe', this.options.stderr === 'ignore' ? 'pipe' : (this.options.stderr ?? 'inherit')],
        });
      } catch (e) {
        // Synchronous failures: invalid arguments, a missing cwd on some platforms...
        this.state = 'closed';
        reject(describeSpawnError(command, e));
        return;
      }
      this.child = child;
      child.on('error', (e: Error) => {
        if (this.state === 'starting') {
          this.state = 'closed';
          this.markFinished();
          reject(describeSpawnError(command, e));
        } else {
          // After spawning, 'error' means a kill() or IPC failure: report, the exit still comes.
          this.report(e);
        }
      });
      child.once('spawn', () => {
        if (this.state !== 'starting') return;
        this.state = 'open';
        this.wire(child);
        resolve();
      });
    });
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.state !== 'open' || this.closeRequested || this.exited || !this.writer) {
      return Promise.reject(new Error('Cannot send: StdioClientTransport is not connected'));
    }
    return this.writer.write(encodeMessage(message) + '\n').catch((e: Error) => this.sendFailed(e));
  }

  /**
   * A write fails (EPIPE, the stream closed) when the server is going away, often before its
   * exit is known: wait a moment for the exit, whose code and stderr say why, and fail with that
   * rather than with the pipe's error.
   */
  private async sendFailed(e: Error): Promise<never> {
    if (!this.closeRequested && !this.finished) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.finishedPromise, new Promise<void>((r) => (timer = setTimeout(r, EXIT_AFTER_PIPE_ERROR_MS)))]);
      clearTimeout(timer);
    }
    throw this.exitError ?? e;
  }

  /**
   * Graceful shutdown as the MCP spec describes it: close the server's stdin, wait up to
   * `shutdownTimeoutMs` for it to exit, then SIGTERM, wait again, then SIGKILL.
   * Resolves once the process has exited and `onclose` has fired. Idempotent.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closeRequested = true;
    this.closing = this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    if (this.state === 'new' || !child || this.state === 'closed') {
      // Never started, or spawning failed: nothing runs, just close once.
      if (this.state === 'new') this.finish(undefined);
      this.state = 'closed';
      return;
    }
    if (this.state === 'starting') await Promise.race([this.waitSpawned(child), this.finishedPromise]);
    if (this.finished) return;
    if (!this.exited) {
      // Lines written in this tick are still held for one write: they go before the end.
      this.writer?.flushNow();
      child.stdin?.end();
      if (!(await this.waitExit(this.shutdownTimeoutMs))) {
        child.kill('SIGTERM');
        if (!(await this.waitExit(this.shutdownTimeoutMs))) {
          child.kill('SIGKILL');
          await this.waitExit(undefined);
        }
      }
    }
    await this.finishedPromise;
  }

  private wire(child: ChildProcess): void {
    const stdin = child.stdin;
    const stdout = child.stdout;
    if (stdin) {
      // Early lines: a burst of requests must not wait for the whole tick, or client and server
      // take turns instead of working at once (see LineWriter).
      this.writer = new LineWriter(
        stdin,
        (e) => {
          // EPIPE and "stream closed" are expected while the server is going away.
          if (!this.closeRequested && !this.exited) this.report(e);
        },
        EARLY_LINES,
      );
      this.writer.attach();
    }
    stdout?.on('data', (chunk: Buffer) => this.reader.push(chunk));
    stdout?.on('error', (e: Error) => this.report(e));
    const childStderr = child.stderr;
    if (childStderr) {
      childStderr.on('data', (chunk: Buffer) => {
        this.tail.add(chunk);
        // Forward without letting an unread PassThrough stall the server: drop when full.
        const sink = this.stderrSink;
        if (sink && !sink.writableEnded && sink.writableLength < STDERR_BUFFER) sink.write(chunk);
      });
      childStderr.on('error', (e: Error) => this.report(e));
    }
    this.exitSignal = new Promise<void>((resolve) => {
      child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
        this.exited = true;
        const expected = this.closeRequested;
        this.writer?.fail(new Error('The MCP server process has exited'));
        resolve();
        // 'close' follows once the pipes are drained; don't wait forever if a grandchild holds them.
        const timer = setTimeout(() => this.onChildClosed(code, signal, expected), PIPE_GRACE_MS);
        timer.unref();
        child.once('close', () => {
          clearTimeout(timer);
          this.onChildClosed(code, signal, expected);
        });
      });
    });
  }

  private onChildClosed(code: number | null, signal: NodeJS.Signals | null, expected: boolean): void {
    if (this.finished) return;
    this.reader.end();
    this.child?.stdout?.destroy();
    this.stderrSink?.end();
    this.state = 'closed';
    const reason = (this.exitError = expected
      ? undefined
      : new ServerExitError({
          exitCode: code,
          signal,
          stderr: this.tail.text(),
          stderrSeen: (this.options.stderr ?? 'inherit') !== 'inherit',
        }));
    this.finish(reason);
  }

  private finish(reason: Error | undefined): void {
    if (this.finished) return;
    this.markFinished();
    this.onclose?.(reason);
  }

  private markFinished(): void {
    this.finished = true;
    this.finishedSignal?.();
  }

  private waitSpawned(child: ChildProcess): Promise<void> {
    return new Promise((resolve) => {
      child.once('spawn', () => resolve());
      child.once('error', () => resolve());
    });
  }

  /** True if the child exited within `ms` (undefined: wait as long as it takes). */
  private async waitExit(ms: number | undefined): Promise<boolean> {
    if (this.exited) return true;
    const exit = this.exitSignal ?? this.finishedPromise;
    if (ms === undefined) {
      await exit;
      return true;
    }
    const clock = this.options.clock ?? systemClock;
    let timer: unknown;
    const timeout = new Promise<false>((resolve) => (timer = clock.setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([exit.then(() => true as const), timeout]);
    } finally {
      clock.clearTimeout(timer);
    }
  }

  private deliver(line: string): void {
    if (this.finished) return;
    try {
      this.onmessage?.(line);
    } catch (e) {
      this.report(e);
    }
  }

  private report(e: unknown): void {
    const err = e instanceof Error ? e : new Error(String(e));
    try {
      this.onerror?.(err);
    } catch {
      // An error handler that throws must not break the transport.
    }
  }
}
