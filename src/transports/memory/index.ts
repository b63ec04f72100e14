import { encodeMessage } from '../../jsonrpc/codec.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import type { FrameInfo, Transport } from '../../engine/transport.js';

export interface MemoryTransportOptions {
  /** Facts attached to every frame this side receives (e.g. a fake authenticated principal). */
  info?: FrameInfo;
}

/**
 * One end of an in-process pair. Messages travel as JSON text so that tests exercise exactly the
 * decoding, limits and copying a real transport has; delivery is asynchronous, like a socket.
 */
export class MemoryTransport implements Transport {
  get kind(): 'memory' {
    return 'memory';
  }
  other: MemoryTransport | undefined;
  onmessage?: (frame: unknown, info?: FrameInfo) => void;
  onclose?: (reason?: Error) => void;
  onerror?: (error: Error) => void;
  private started = false;
  private closed = false;
  private backlog: string[] = [];
  private readonly info: FrameInfo | undefined;

  constructor(options: MemoryTransportOptions = {}) {
    this.info = options.info;
  }

  async start(): Promise<void> {
    this.started = true;
    const queued = this.backlog;
    this.backlog = [];
    for (const f of queued) this.deliver(f);
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.closed) throw new Error('MemoryTransport: cannot send, the transport is closed');
    const peer = this.other;
    if (!peer || peer.closed) throw new Error('MemoryTransport: the other end is closed');
    peer.enqueue(encodeMessage(message));
  }

  /** Sends raw text as if a peer had written it: for tests of malformed input. */
  sendRaw(text: string): void {
    this.other?.enqueue(text);
  }

  private enqueue(frame: string): void {
    if (!this.started) {
      this.backlog.push(frame);
      return;
    }
    queueMicrotask(() => this.deliver(frame));
  }

  private deliver(frame: string): void {
    if (!this.closed) this.onmessage?.(frame, this.info);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    const peer = this.other;
    if (peer && !peer.closed) await peer.close();
  }
}

/** Two transports wired to each other: `[clientSide, serverSide]`. */
export function createLinkedPair(options: { serverInfo?: FrameInfo } = {}): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport({ info: options.serverInfo });
  a.other = b;
  b.other = a;
  return [a, b];
}
