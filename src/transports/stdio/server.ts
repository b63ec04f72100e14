import { encodeMessage, errorResponse } from '../../jsonrpc/codec.js';
import { ErrorCode } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import type { SendOptions, Transport } from '../../engine/transport.js';
import { afterGap, ProgressGap } from '../progress-gap.js';
import { DEFAULT_MAX_LINE_LENGTH, LineReader } from './line-reader.js';
import { LineWriter } from './line-writer.js';

export interface StdioServerTransportOptions {
  /** Where requests come from. Default `process.stdin`. */
  stdin?: NodeJS.ReadableStream;
  /** Where responses go. Default `process.stdout`; nothing but MCP messages may be written to it. */
  stdout?: NodeJS.WritableStream;
  /**
   * Largest accepted line, in bytes (default 4 MiB). Longer lines are skipped without being
   * buffered and answered with a -32600 error whose id is null.
   */
  maxMessageSize?: number;
  /**
   * How long the result of a request waits after that request's last progress notification
   * (default 10 ms; 0 never waits). The official v1 SDK client drops a progress notification
   * that it reads together with the result.
   */
  progressGapMs?: number;
}

/**
 * The server side of the stdio transport: newline-delimited JSON-RPC on stdin/stdout.
 *
 * Each line is handed to `onmessage` as a raw string; the engine decodes it. Logs must go to
 * stderr. End of stdin (the client closing our input) closes the transport, after which the
 * server is expected to exit.
 */
export class StdioServerTransport implements Transport {
  get kind(): 'stdio' {
    return 'stdio';
  }
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];

  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly reader: LineReader;
  private readonly writer: LineWriter;
  private readonly gap: ProgressGap;
  private started = false;
  private closed = false;

  constructor(options: StdioServerTransportOptions = {}) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    const max = options.maxMessageSize ?? DEFAULT_MAX_LINE_LENGTH;
    this.reader = new LineReader({
      maxLineLength: max,
      onLine: (line) => this.deliver(line),
      onOversize: (n) => this.rejectOversize(n, max),
    });
    this.writer = new LineWriter(this.stdout, (e) => this.onWriteFailure(e));
    this.gap = new ProgressGap(options.progressGapMs);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioServerTransport already started');
    if (this.closed) throw new Error('StdioServerTransport is closed');
    this.started = true;
    // Listen for stdout errors before the first write: an EPIPE must never become an uncaught exception.
    this.writer.attach();
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onInputError);
    // Adding a 'data' listener normally starts the flow; an explicitly paused stream needs this.
    this.stdin.resume();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new Error('Cannot send: StdioServerTransport is closed'));
    const line = encodeMessage(message) + '\n';
    const wait = this.gap.delay(message, options?.relatedRequestId);
    return wait === 0 ? this.writer.write(line) : this.later(line, wait);
  }

  /** A result right after its request's progress (see ProgressGap); other lines go ahead of it. */
  private later(line: string, ms: number): Promise<void> {
    return afterGap(ms).then(() => this.writer.write(line));
  }

  /**
   * Stops reading stdin and fires `onclose`. stdout is left open (it is usually the process's
   * own); messages sent before close() are still written, in order.
   */
  async close(): Promise<void> {
    this.shutdown(undefined);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    if (this.closed) return;
    try {
      this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    } catch (e) {
      // Only reachable if a callback threw; deliver() already guards onmessage.
      this.reportError(e);
    }
  };

  private readonly onEnd = (): void => {
    if (this.closed) return;
    // A last line without its newline is still delivered before closing.
    this.reader.end();
    this.shutdown(undefined);
  };

  private readonly onInputError = (e: Error): void => {
    this.reportError(e);
    this.shutdown(e);
  };

  private deliver(line: string): void {
    if (this.closed) return;
    try {
      this.onmessage?.(line);
    } catch (e) {
      this.reportError(e);
    }
  }

  private rejectOversize(lengthSoFar: number, max: number): void {
    if (this.closed) return;
    const message = `Message too large: more than ${max} bytes (${lengthSoFar} bytes received)`;
    const frame = encodeMessage(errorResponse(null, ErrorCode.InvalidRequest, message));
    // Same ordered path as send(), so it never interleaves with another message.
    this.writer.write(frame + '\n').catch(() => undefined);
    this.reportError(new Error(message));
  }

  private onWriteFailure(error: Error): void {
    // Typically EPIPE: the client is gone. Report it and stop; nothing more can be sent.
    this.reportError(error);
    this.shutdown(error);
  }

  private reportError(e: unknown): void {
    const err = e instanceof Error ? e : new Error(String(e));
    try {
      this.onerror?.(err);
    } catch {
      // An error handler that throws must not break the transport.
    }
  }

  private shutdown(reason: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.stdin.removeListener('data', this.onData);
    this.stdin.removeListener('end', this.onEnd);
    this.stdin.removeListener('close', this.onEnd);
    this.stdin.removeListener('error', this.onInputError);
    // Removing 'data' does not stop a flowing stream; pausing lets process.stdin release the event loop.
    if (this.started) this.stdin.pause();
    this.reader.reset();
    this.writer.detach();
    this.onclose?.(reason);
  }
}
