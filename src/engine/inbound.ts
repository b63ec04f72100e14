import { LocalError, McpError, toErrorObject } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc/messages.js';
import { realSignal } from './light-signal.js';
import type { FrameInfo } from './transport.js';
import type { RequestOptions } from './peer.js';

/**
 * Where the messages of one inbound request go: the connection's engine (a `Peer`), or, for a
 * request that has no connection (a 2026-07-28 HTTP POST), its own response stream.
 */
export interface RequestSink {
  notify(method: string, params: JsonObject | undefined, relatedRequestId: RequestId): Promise<void>;
  request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject>;
  respond(message: JsonRpcResponse): Promise<void>;
}

/**
 * The engine's view of one request being handled: its abort signal, its progress token and
 * the ability to send messages tied to it. Handlers see it through richer contexts built above.
 */
export class InboundRequest {
  readonly peer: RequestSink;
  readonly request: JsonRpcRequest;
  readonly info: FrameInfo | undefined;
  private controller: AbortController | undefined;
  /** Told when the signal fires, without the signal having to exist (see {@link onAbort}). */
  private aborters: Array<{ handleEvent(): void }> | undefined;
  private lastProgress = -Infinity;
  private done = false;
  /** No reply is sent for it: the client cancelled it (its signal fired), or it was answered early (`preempt`). */
  cancelled = false;

  constructor(peer: RequestSink, request: JsonRpcRequest, info?: FrameInfo) {
    this.peer = peer;
    this.request = request;
    this.info = info;
  }

  get id(): RequestId {
    return this.request.id;
  }

  /** Created on first use: most handlers never look at it. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  get finished(): boolean {
    return this.done;
  }

  /** Only a string or a number is a progress token (spec); anything else means "no progress". */
  get progressToken(): string | number | undefined {
    const token = (this.request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token)) ? token : undefined;
  }

  cancel(reason: string): void {
    if (this.done || this.cancelled) return;
    this.cancelled = true;
    (this.controller ??= new AbortController()).abort(new LocalError('aborted', reason));
    this.aborted();
  }

  /**
   * Calls `listener.handleEvent()` once when the signal fires, as an 'abort' listener would, but
   * without making the signal: an AbortController costs microseconds on Node, and a relay that
   * forwards every request only needs to hear of the rare cancellation.
   */
  onAbort(listener: { handleEvent(): void }): void {
    if (this.controller?.signal.aborted) listener.handleEvent();
    else (this.aborters ??= []).push(listener);
  }

  private aborted(): void {
    const list = this.aborters;
    this.aborters = undefined;
    if (list) for (const l of list) l.handleEvent();
  }

  finish(): void {
    this.done = true;
  }

  /**
   * The request is answered another way, through `peer.respond`, before its handler settles (a
   * 2026-07-28 handler waiting for input): as for a cancelled request, the engine sends nothing
   * when the handler settles, but the signal does not fire.
   */
  preempt(): void {
    this.done = true;
    this.cancelled = true;
  }

  /**
   * Aborts the signal without touching the request, answered or not: for work it started that
   * outlives its answer (a 2026-07-28 handler waiting for input) and is now given up.
   */
  abandon(reason: string): void {
    const c = (this.controller ??= new AbortController());
    if (c.signal.aborted) return;
    c.abort(new LocalError('aborted', reason));
    this.aborted();
  }

  /**
   * Sends `notifications/progress` when the requester asked for it. Values that do not increase,
   * and anything after the request completed, are dropped: the spec requires both.
   */
  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.progressToken;
    if (token === undefined || this.done || this.cancelled || !(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    await this.peer.notify('notifications/progress', params, this.id);
  }

  /** A notification that belongs to this request (HTTP sends it on this request's stream). */
  notify(method: string, params?: JsonObject): Promise<void> {
    if (this.cancelled) return Promise.resolve();
    return this.peer.notify(method, params, this.id);
  }

  /** A request to the peer made on behalf of this one; aborted when this one is. */
  sendRequest(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    const signal = options.signal ? AbortSignal.any([realSignal(options.signal), this.signal]) : this.signal;
    return this.peer.request(method, params, { ...options, signal, relatedRequestId: this.id });
  }
}

/**
 * The response that ends a request: its handler's result, or the error it threw as a JSON-RPC
 * error. An error that is neither a protocol error nor a local one, and not the effect of a
 * cancellation, is a bug in the handler: it goes to `onerror` as well.
 */
export function responseTo(inbound: InboundRequest, ok: boolean, value: unknown, onerror: ((e: Error) => void) | undefined): JsonRpcResponse {
  const id = inbound.request.id;
  if (ok) return { jsonrpc: '2.0', id, result: value as JsonObject };
  if (!(value instanceof McpError) && !(value instanceof LocalError) && !inbound.signal.aborted) {
    onerror?.(value instanceof Error ? value : new Error(String(value)));
  }
  return { jsonrpc: '2.0', id, error: toErrorObject(value) };
}
