import type { Socket } from 'node:net';
import { H1Exchange, type ExchangeOwner } from './exchange.js';
import { OTHER, PARTIAL, readRequestHead, type HeadLimits, type RequestHead } from './head.js';

/** Where a connection's requests go, and what it shares with the others of its server. */
export interface ConnectionHost {
  readonly limits: HeadLimits;
  /** Serves one request read whole. */
  serve(exchange: H1Exchange): void;
  /** node:http takes the socket from here on; the bytes not served here are back in it. */
  handOff(socket: Socket): void;
  /** A request served here was answered, or abandoned with its connection. */
  answered(): void;
  /** The connection is gone. */
  gone(connection: H1Connection): void;
  /** The time in ms, for the timeouts. */
  now(): number;
}

export enum Phase {
  /** Waiting for a request's first byte, after an answer (the keep-alive timeout runs). */
  Idle,
  /** A request has begun, or the connection is new, and its head is not complete. */
  Head,
  /** The head is read; the body is arriving. */
  Body,
  /** The request is being answered; what arrives meanwhile waits. */
  Busy,
}

/** Most bytes kept from a client that sends on while its request is answered (pipelining). */
const MAX_WAITING = 64 * 1024;

/**
 * One client connection of the fast front. It reads one request at a time, hands it to the
 * host once its body is all in, and reads the next only when the answer is written (pipelined
 * requests wait their turn, so answers go out in order). The first request that is not one the
 * fast front serves hands the connection, its unread bytes put back, to node:http for good.
 */
export class H1Connection implements ExchangeOwner {
  phase = Phase.Head;
  /** When the phase began (ms, host.now()): what the sweep measures the timeouts from. */
  since: number;
  private chunks: Buffer[] = [];
  private bytes = 0;
  private head: RequestHead | undefined;
  private exchange: H1Exchange | undefined;
  private paused = false;
  private over = false;

  constructor(
    readonly socket: Socket,
    private readonly host: ConnectionHost,
    readonly keepAlive: string,
  ) {
    this.since = host.now();
    socket.setNoDelay(true);
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.phase === Phase.Idle) {
      this.phase = Phase.Head;
      this.since = this.host.now();
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.phase === Phase.Busy) {
      if (this.bytes > MAX_WAITING && !this.paused) {
        this.paused = true;
        this.socket.pause();
      }
      return;
    }
    this.advance();
  };

  /** Reads what the buffered bytes allow: a head, a body, a request to serve. */
  private advance(): void {
    for (;;) {
      if (this.phase === Phase.Head) {
        if (this.bytes === 0) return;
        const buf = this.joined();
        const head = readRequestHead(buf, this.host.limits);
        if (head === PARTIAL) return;
        if (head === OTHER) return this.handOff();
        this.head = head;
        this.phase = Phase.Body;
      }
      if (this.phase !== Phase.Body) return;
      const head = this.head!;
      const need = head.size + head.contentLength;
      if (this.bytes < need) return;
      const buf = this.joined();
      const body = buf.toString('utf8', head.size, need);
      if (buf.length > need) {
        this.chunks = [buf.subarray(need)];
        this.bytes = buf.length - need;
      } else {
        this.chunks = [];
        this.bytes = 0;
      }
      this.head = undefined;
      this.phase = Phase.Busy;
      const exchange = new H1Exchange(this, head, body);
      this.exchange = exchange;
      this.host.serve(exchange);
      // The next request is read once this one's answer is written (finished()).
      return;
    }
  }

  private joined(): Buffer {
    const chunks = this.chunks;
    if (chunks.length === 1) return chunks[0];
    const buf = Buffer.concat(chunks, this.bytes);
    this.chunks = [buf];
    return buf;
  }

  finished(exchange: H1Exchange, close: boolean): void {
    if (exchange !== this.exchange) return;
    this.exchange = undefined;
    this.host.answered();
    if (close || this.over) {
      this.over = true;
      this.phase = Phase.Busy;
      this.socket.end();
      return;
    }
    this.phase = this.bytes > 0 ? Phase.Head : Phase.Idle;
    this.since = this.host.now();
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    // Called from inside the exchange's send: the next request is read on a later tick, never
    // re-entering the core from the middle of writing an answer.
    if (this.bytes > 0) process.nextTick(() => this.phase === Phase.Head && !this.over && this.advance());
  }

  private handOff(): void {
    this.over = true;
    const socket = this.socket;
    socket.removeListener('data', this.onData);
    socket.removeListener('end', this.onEnd);
    socket.removeListener('error', this.onError);
    socket.removeListener('close', this.onClose);
    const rest = this.joined();
    this.chunks = [];
    this.bytes = 0;
    this.host.gone(this);
    // Paused, the bytes put back wait in the socket's buffer; node:http's listener takes the
    // handle's later reads itself, and the resume after it hands it these first. (Left flowing,
    // a chunk put back is delivered only if the stream happens to be waiting for a read.)
    socket.pause();
    socket.unshift(rest);
    this.host.handOff(socket);
    socket.resume();
  }

  /**
   * The client ended its side. As node:http does by default (no half-open connections), a
   * request being answered is abandoned and our side is ended after what is already written.
   */
  private readonly onEnd = (): void => {
    this.over = true;
    this.exchange?.closed();
    if (!this.socket.writableEnded) this.socket.end();
  };

  private readonly onError = (): void => {
    // 'close' follows; a reset or a broken pipe is the client's business, not a crash.
  };

  private readonly onClose = (): void => {
    this.over = true;
    const exchange = this.exchange;
    this.exchange = undefined;
    if (exchange !== undefined) {
      exchange.closed();
      this.host.answered();
    }
    this.host.gone(this);
  };

  /** The sweep found the request too slow: 408, as node:http answers it, and the connection ends. */
  timeOut(): void {
    this.over = true;
    this.phase = Phase.Busy;
    this.socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    this.socket.destroySoon();
  }

  /** Ends the connection at once (the server closes, or the keep-alive timeout passed). */
  destroy(): void {
    this.over = true;
    this.socket.destroy();
  }
}
