import { LocalError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcRequest, RequestId } from '../jsonrpc/messages.js';
import type { FrameInfo } from './transport.js';
import type { Peer, RequestOptions } from './peer.js';

/**
 * The engine's view of one request being handled: its abort signal, its progress token and
 * the ability to send messages tied to it. Handlers see it through richer contexts built above.
 */
export class InboundRequest {
  readonly peer: Peer;
  readonly request: JsonRpcRequest;
  readonly info: FrameInfo | undefined;
  private controller: AbortController | undefined;
  private lastProgress = -Infinity;
  private done = false;
  cancelled = false;

  constructor(peer: Peer, request: JsonRpcRequest, info?: FrameInfo) {
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
  }

  finish(): void {
    this.done = true;
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
    const signal = options.signal ? AbortSignal.any([options.signal, this.signal]) : this.signal;
    return this.peer.request(method, params, { ...options, signal, relatedRequestId: this.id });
  }
}
