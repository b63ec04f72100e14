// Raw JSON-RPC over a message transport (stdio, legacy HTTP+SSE), for the doctor: it sees every
// frame as it came (a client engine would drop or answer a malformed one silently), keeps the
// lines that are not JSON-RPC, and learns how the connection ended.
import type { JsonObject, JsonRpcErrorObject } from '../../jsonrpc/messages.js';
import type { Transport } from '../../engine/transport.js';
import type { Clock } from '../../engine/clock.js';

export type WireReply = { kind: 'result'; result: JsonObject; at: number } | { kind: 'error'; error: JsonRpcErrorObject; at: number } | { kind: 'closed' };

/** A frame that is not a JSON-RPC message. */
export interface StrayFrame {
  text: string;
  /** 'text': not JSON at all; 'json': JSON, but not a JSON-RPC 2.0 message. */
  kind: 'text' | 'json';
  at: number;
}

export class TransportWire {
  private nextId = 1;
  private readonly pending = new Map<number, (r: WireReply) => void>();
  /** Frames that were not JSON-RPC, in order (the first few are kept). */
  readonly strays: StrayFrame[] = [];
  strayCount = 0;
  /** JSON-RPC frames received. */
  messages = 0;
  /** Set when the connection ended: the transport's reason (undefined: closed cleanly). */
  closed: { reason: Error | undefined } | undefined;
  private readonly closedWaiters: Array<() => void> = [];

  constructor(
    readonly transport: Transport,
    private readonly clock: Clock,
  ) {
    transport.onmessage = (frame) => this.receive(frame);
    transport.onclose = (reason) => {
      this.closed = { reason };
      for (const settle of this.pending.values()) settle({ kind: 'closed' });
      this.pending.clear();
      for (const w of this.closedWaiters.splice(0)) w();
    };
    // Stray-line reports and write errors: the doctor sees the same through receive() and onclose.
    transport.onerror = () => {};
  }

  /** Sends a request; the promise settles with its answer or the end of the connection. */
  request(method: string, params: JsonObject): Promise<WireReply> {
    const id = this.nextId++;
    if (this.closed) return Promise.resolve({ kind: 'closed' });
    const answer = new Promise<WireReply>((resolve) => this.pending.set(id, resolve));
    this.transport.send({ jsonrpc: '2.0', id, method, params }).catch(() => {
      // The write failed because the server is gone: onclose settles the request.
    });
    return answer;
  }

  notify(method: string, params?: JsonObject): void {
    if (this.closed) return;
    this.transport.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }).catch(() => {});
  }

  /** Resolves when the connection has ended. */
  whenClosed(): Promise<void> {
    return this.closed ? Promise.resolve() : new Promise((resolve) => this.closedWaiters.push(resolve));
  }

  private stray(text: string, kind: StrayFrame['kind']): void {
    this.strayCount++;
    if (this.strays.length < 5) this.strays.push({ text, kind, at: this.clock.now() });
  }

  private receive(frame: unknown): void {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
    let v: unknown;
    try {
      v = typeof frame === 'string' ? JSON.parse(frame) : frame;
    } catch {
      if (text.trim() !== '') this.stray(text, 'text');
      return;
    }
    const list = Array.isArray(v) ? v : [v];
    for (const m of list) {
      if (!m || typeof m !== 'object' || (m as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
        this.stray(text, 'json');
        return;
      }
    }
    this.messages++;
    for (const m of list as Array<Record<string, unknown>>) this.handle(m);
  }

  private handle(m: Record<string, unknown>): void {
    if (typeof m.method === 'string') {
      // A request from the server (ping, roots/list...): answered so it does not wait on us.
      if (m.id !== undefined && m.id !== null) {
        const reply = m.method === 'ping' ? { result: {} } : { error: { code: -32601, message: `The connection doctor does not handle ${m.method}` } };
        this.transport.send({ jsonrpc: '2.0', id: m.id as number, ...reply } as never).catch(() => {});
      }
      return;
    }
    const settle = typeof m.id === 'number' ? this.pending.get(m.id) : undefined;
    if (!settle) return;
    this.pending.delete(m.id as number);
    const at = this.clock.now();
    if (m.error && typeof m.error === 'object') settle({ kind: 'error', error: m.error as JsonRpcErrorObject, at });
    else settle({ kind: 'result', result: (m.result && typeof m.result === 'object' ? m.result : {}) as JsonObject, at });
  }
}
