// Shared helpers for the 2026-07-28 era server tests (not a test file itself): raw JSON-RPC
// frames over the in-memory pair, so that every assertion is about the exact wire shape.
import assert from 'node:assert/strict';
import type { FrameInfo, Transport } from '../../../src/engine/transport.js';
import { createLinkedPair, type MemoryTransport } from '../../../src/transports/memory/index.js';
import { SAFETY_NET_MS } from '../../support/index.js';

export const V = '2026-07-28';
export const M = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export type Frame = {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
};

/** The modern envelope: `_meta` with version, capabilities, client info (and extras). */
export function meta(caps: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { [M.protocolVersion]: V, [M.clientCapabilities]: caps, [M.clientInfo]: { name: 'raw-test', version: '1.0.0' }, ...extra };
}

/** A raw client connection: send frames, read every frame the server wrote. */
export class Wire {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1;

  constructor(readonly transport: MemoryTransport) {
    transport.onmessage = (f) => {
      this.frames.push(JSON.parse(f as string) as Frame);
      for (const w of this.waiters.splice(0)) w();
    };
  }

  /** Connects to an McpServer or a low-level Server. */
  static async connect(server: { connect(t: Transport): Promise<unknown> }, serverInfo?: FrameInfo): Promise<Wire> {
    const [clientSide, serverSide] = createLinkedPair(serverInfo ? { serverInfo } : {});
    const wire = new Wire(clientSide);
    await clientSide.start();
    await server.connect(serverSide);
    return wire;
  }

  send(obj: object): void {
    void this.transport.send(obj as never);
  }

  /** Sends a request and waits for its response frame. */
  async request(method: string, params?: Record<string, unknown>, id: string | number = this.nextId++): Promise<Frame> {
    const from = this.frames.length;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.response(id, from);
  }

  /** A modern request: the envelope is merged into params._meta. */
  modern(method: string, params: Record<string, unknown> = {}, caps: Record<string, unknown> = {}, id?: string | number): Promise<Frame> {
    const { _meta, ...rest } = params as { _meta?: Record<string, unknown> };
    return this.request(method, { ...rest, _meta: { ...meta(caps), ..._meta } }, id);
  }

  /** The result of a modern request (fails on an error response). */
  async result(method: string, params: Record<string, unknown> = {}, caps: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const f = await this.modern(method, params, caps);
    assert.ok(f.result, `expected a result for ${method}, got ${JSON.stringify(f)}`);
    return f.result;
  }

  /** Waits for the first frame matching `pred` (already received or future). */
  async waitFor(what: string, pred: (f: Frame) => boolean, timeoutMs = SAFETY_NET_MS, from = 0): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.frames.slice(from).find(pred);
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames).slice(0, 1500)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  /** The response with this id (received at or after frame index `from`). */
  response(id: string | number, from = 0): Promise<Frame> {
    return this.waitFor(`response ${JSON.stringify(id)}`, (f) => f.id === id && f.method === undefined, SAFETY_NET_MS, from);
  }

  /** Notifications received so far (optionally of one method). */
  notifications(method?: string): Frame[] {
    return this.frames.filter((f) => f.id === undefined && f.method !== undefined && (method === undefined || f.method === method));
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** Asserts an error response: exact code, the request id echoed, no result. */
export function assertError(f: Frame, id: string | number, code: number, message?: RegExp): NonNullable<Frame['error']> {
  assert.equal(f.jsonrpc, '2.0');
  assert.equal(f.id, id, 'the error must echo the request id');
  assert.ok(f.error, `expected an error ${code}, got ${JSON.stringify(f)}`);
  assert.equal('result' in f, false);
  assert.equal(f.error.code, code, `expected ${code}, got ${JSON.stringify(f.error)}`);
  assert.equal(typeof f.error.message, 'string');
  if (message) assert.match(f.error.message, message);
  return f.error;
}

/** Collects what the server reports through onerror. */
export function errorSink(): { errors: Error[]; onerror: (e: Error) => void } {
  const errors: Error[] = [];
  return { errors, onerror: (e) => errors.push(e) };
}
