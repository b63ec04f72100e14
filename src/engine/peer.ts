import { decodeFrame, DEFAULT_LIMITS, errorResponse, type BadResponse, type DecodeLimits, type Decoded } from '../jsonrpc/codec.js';
import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc/messages.js';
import type { FrameInfo, Transport } from './transport.js';
import { compose, type MessageMiddleware, type Next } from './middleware.js';
import { InboundRequest, responseTo } from './inbound.js';
import { systemClock, type Clock } from './clock.js';
import { abortError, asError, reasonText } from './abort.js';
import { IdTable } from './id-table.js';
import { deadlines, type Deadlines } from './deadlines.js';
import { Pending, type ProgressInfo, type RequestOptions } from './pending.js';
import { InboundTable } from './inbound-table.js';

export type { ProgressInfo, RequestOptions } from './pending.js';

export interface PeerHandlers {
  onrequest(request: JsonRpcRequest, ctx: InboundRequest): Promise<JsonObject> | JsonObject;
  onnotification?(notification: JsonRpcNotification, info?: FrameInfo): void | Promise<void>;
  /** Whether a batch (JSON array frame) may be accepted right now. */
  allowBatch?(): boolean;
  /**
   * The connection closed (after pending and in-flight requests were settled), before the
   * `onClose` listeners run. A method, so an owner such as a server session needs no closure.
   */
  onclose?(reason?: Error): void;
}

export interface PeerOptions {
  limits?: Partial<DecodeLimits>;
  /** Default timeout for outgoing requests (ms). Default 60 000. */
  requestTimeoutMs?: number;
  middleware?: MessageMiddleware[];
  /** Problems that have nowhere else to go (a handler that threw in a notification...). */
  onerror?: (error: Error) => void;
  /** Where request timeouts read the time and arm timers (default the system clock). */ clock?: Clock;
}

/**
 * One end of a JSON-RPC connection: correlates ids, runs timeouts, progress and cancellation in
 * both directions and the middleware chain. It knows nothing of MCP lifecycles; the era codec
 * and the dispatcher above it decide what a request means.
 */
export class Peer {
  readonly transport: Transport;
  private readonly handlers: PeerHandlers;
  /** What every inbound frame is decoded under (also by a transport that decodes for `ondecoded`). */
  readonly limits: DecodeLimits;
  private readonly requestTimeoutMs: number;
  /** A snapshot (copied on `use`): middleware added to a server later is not this peer's. */
  private middleware: readonly MessageMiddleware[];
  private readonly onerror?: (error: Error) => void;
  private readonly clock: Clock;
  private nextId = 0;
  // The table of requests awaiting answers and the listener list are made on first use: a
  // connection that only answers (every stateless HTTP request is one) never sends a request,
  // and most have no close listener. (The inbound table holds one request in a field until two
  // overlap.)
  private pending: IdTable<Pending> | undefined;
  /** The one timer of this connection's request timeouts (made with the first request that has one). */
  private deadlines: Deadlines | undefined;
  private readonly inbounds = new InboundTable<InboundRequest>();
  private closed = false;
  private closeListeners: Array<(reason?: Error) => void> | undefined;
  /** The outgoing middleware chain; undefined when no middleware has an `outgoing` step. */
  private sendOut: Next | undefined;
  /** The incoming chain for frames without info (stdio, memory): built once, not per frame. */
  private bareIn: Next | undefined;

  constructor(transport: Transport, handlers: PeerHandlers, options: PeerOptions = {}) {
    this.transport = transport;
    this.handlers = handlers;
    this.limits = options.limits ? { ...DEFAULT_LIMITS, ...options.limits } : DEFAULT_LIMITS;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.middleware = options.middleware && options.middleware.length > 0 ? [...options.middleware] : NO_MIDDLEWARE;
    this.onerror = options.onerror;
    this.clock = options.clock ?? systemClock;
    this.sendOut = this.buildOut();
  }

  /** Inbound requests still being handled, by id (a copy). */
  get inflight(): ReadonlyMap<RequestId, InboundRequest> {
    return new Map(this.inbounds.list().map((r) => [r.request.id, r]));
  }

  /** Adds message middleware as the new innermost layer (the first added is nearest the wire). */
  use(mw: MessageMiddleware): void {
    this.middleware = [...this.middleware, mw];
    this.sendOut = this.buildOut();
    this.bareIn = undefined;
  }

  private buildOut(): Next | undefined {
    if (!this.middleware.some((mw) => mw.outgoing)) return undefined;
    return compose(this.middleware, 'outgoing', (m) => this.transport.send(m, relatedOf(m)));
  }

  /** Through the outgoing middleware, if any, to the transport. */
  private out(m: JsonRpcMessage): Promise<void> {
    return this.sendOut ? this.sendOut(m) : this.transport.send(m, relatedOf(m));
  }

  /**
   * The incoming chain for one frame. It is built per frame so that the frame's info (auth
   * principal...) travels with its messages: a shared "current info" field would be overwritten
   * by the next frame while an async middleware is still holding this one.
   */
  private inbound(info: FrameInfo | undefined, collect?: (r: JsonRpcResponse) => void): Next {
    if (info === undefined && collect === undefined) return (this.bareIn ??= this.buildIn(undefined, undefined));
    return this.buildIn(info, collect);
  }

  private buildIn(info: FrameInfo | undefined, collect: ((r: JsonRpcResponse) => void) | undefined): Next {
    const last: Next = (m) => this.route(m, info, collect);
    return this.middleware.length === 0 ? last : compose(this.middleware, 'incoming', last);
  }

  private get hasIncoming(): boolean {
    return this.middleware.length > 0 && this.middleware.some((mw) => mw.incoming);
  }

  /** Sends an error reply of our own (bad frame); a failed send has nowhere to go but onerror. */
  private sendError(e: JsonRpcResponse): void {
    if (this.closed) return;
    this.out(e).catch((err: unknown) => this.onerror?.(asError(err)));
  }

  /** Not async: the transport's own promise is returned as it is (one promise less per connection). */
  start(): Promise<void> {
    this.transport.onmessage = (frame, info) => this.accept(decodeFrame(frame, this.limits), info);
    this.transport.ondecoded = (decoded, info) => this.accept(decoded, info);
    this.transport.onclose = (reason) => this.handleClosed(reason);
    this.transport.onerror = (err) => this.onerror?.(err);
    this.transport.onrequestlost = (id, err) => {
      const p = this.settle(id);
      p?.reject(new LocalError('closed', `Request "${p.method}" was lost: ${err.message}`, { cause: err }));
    };
    return this.transport.start();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(listener: (reason?: Error) => void): void {
    (this.closeListeners ??= []).push(listener);
  }

  /**
   * Calls off every request the other side sent that is still being answered: their signals fire
   * and no reply is sent (a session they belonged to has ended; an answer now would land in the next).
   */
  cancelInbound(reason: string): void {
    for (const inbound of this.inbounds.list()) inbound.cancel(reason);
  }

  close(): Promise<void> {
    if (this.closed) return DONE;
    let closing: Promise<void>;
    try {
      closing = this.transport.close();
    } catch (err) {
      return Promise.reject(err);
    }
    // Transports call onclose themselves (the HTTP core's synchronously: nothing left to wait
    // for then); this covers one that does not.
    return this.closed ? closing : closing.then(() => this.handleClosed());
  }

  // ---------------------------------------------------------------- outgoing

  /**
   * Sends a request. `owned`: the params and their `_meta` were made for this request alone (the
   * 2026-07-28 client copies them to add its envelope), so the progress token is written into
   * them rather than into copies of them.
   */
  request(method: string, params?: JsonObject, options: RequestOptions = {}, owned = false): Promise<JsonObject> {
    if (this.closed) return Promise.reject(new LocalError('closed', `Cannot send "${method}": the connection is closed`));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortError(method, signal));
    const id = this.nextId++;
    let sentParams = params;
    const ownMeta = owned ? (params?._meta as JsonObject | undefined) : undefined;
    if (options.onprogress && typeof ownMeta === 'object' && ownMeta !== null) ownMeta.progressToken = id;
    else if (options.onprogress) {
      // Object.assign, not spreads: on Node 20 `{ ...a, k: v }` costs several times as much.
      const meta: JsonObject = Object.assign({}, params?._meta as JsonObject | undefined);
      meta.progressToken = id;
      sentParams = Object.assign({}, params);
      sentParams._meta = meta;
    }
    // Built from an empty object, not as a literal, for the reason given at Pending: a request
    // message is alive until its response comes, like the Pending record, and holds the params.
    const message = {} as JsonRpcRequest;
    message.jsonrpc = '2.0';
    message.id = id;
    message.method = method;
    if (sentParams !== undefined) message.params = sentParams;
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    return new Promise<JsonObject>((resolve, reject) => {
      const p = new Pending(
        method,
        resolve,
        reject,
        options.onprogress,
        timeoutMs,
        this.clock.now(),
        options.maxTotalTimeoutMs ?? Infinity,
        options.resetTimeoutOnProgress ?? false,
      );
      (this.pending ??= new IdTable()).set(id, p);
      this.arm(p);
      if (signal) {
        const onAbort = () => this.cancelOutgoing(id, abortError(method, signal), reasonText(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        p.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      if (options.relatedRequestId !== undefined) related.set(message, options.relatedRequestId);
      this.out(message).catch((err: unknown) => {
        this.settle(id)?.reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  notify(method: string, params?: JsonObject, relatedRequestId?: RequestId): Promise<void> {
    if (this.closed) return Promise.reject(new LocalError('closed', `Cannot send "${method}": the connection is closed`));
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    if (relatedRequestId !== undefined) related.set(message, relatedRequestId);
    return this.out(message);
  }

  /** Sends a response (used by InboundRequest). */
  respond(message: JsonRpcResponse): Promise<void> {
    if (this.closed) return Promise.resolve();
    // A response names its request itself: no side-table entry needed (see relatedOf).
    return this.out(message);
  }

  /**
   * (Re)sets the request's deadline: `timeoutMs` from now, but never later than
   * `maxTotalTimeoutMs` after the request was sent: a progress reset must not stretch the total
   * past the cap, and the cap holds even when the per-request timeout is disabled (0).
   */
  private arm(p: Pending): void {
    const left = p.maxTotal - (this.clock.now() - p.startedAt);
    const wait = Math.min(p.timeoutMs > 0 ? p.timeoutMs : Infinity, left);
    // Timers fire at once for delays past 2^31-1 ms (~24.8 days): treat those as "never".
    if (!(wait <= MAX_TIMER_MS)) {
      p.deadline = Infinity;
      return;
    }
    p.capped = wait === left;
    const d = (this.deadlines ??= deadlines(this.clock, (at) => this.expire(at)));
    p.deadline = d.now() + Math.max(0, wait);
    d.watch(p.deadline);
  }

  /** Times out the requests due at `now`; the earliest deadline left. */
  private expire(now: number): number {
    let next = Infinity;
    const due: Array<[RequestId, Pending]> = [];
    for (const entry of this.pending?.entries() ?? []) {
      const d = entry[1].deadline;
      if (d <= now) due.push(entry);
      else if (d < next) next = d;
    }
    for (const [id, p] of due) this.cancelOutgoing(id, p.timedOut(), p.timeoutReason());
    return next;
  }

  private settle(id: RequestId): Pending | undefined {
    const p = this.pending?.get(id);
    if (!p) return undefined;
    this.pending!.delete(id);
    // Its deadline is left to lapse (see Deadlines); with nothing left to wait for, the timer goes.
    if (this.pending!.size === 0) this.deadlines?.idle();
    p.cleanup?.();
    return p;
  }

  private cancelOutgoing(id: RequestId, error: Error, reason: string): void {
    const p = this.settle(id);
    if (!p) return;
    p.reject(error);
    // initialize must never be cancelled (spec); for everything else tell the peer to stop.
    if (p.method !== 'initialize' && !this.closed) {
      this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => {});
    }
  }

  // ---------------------------------------------------------------- incoming

  /**
   * The one home of the batch and reused-id checks: why a frame is refused whole, if it is. HTTP
   * asks before routing, to answer on the POST itself; `accept` applies them to other transports.
   */
  refusal(decoded: Decoded): JsonRpcErrorResponse | undefined {
    if (decoded.batch && !(this.handlers.allowBatch?.() ?? false)) return errorResponse(null, ErrorCode.InvalidRequest, BATCH_REFUSED);
    if (this.inbounds.size > 0) for (const m of decoded.messages) if ('id' in m && 'method' in m && this.inbounds.get(m.id) !== undefined) return idInUse(m.id);
    return undefined;
  }

  /** One decoded frame, from `onmessage` (decoded here) or `ondecoded` (by the transport). */
  private accept(decoded: Decoded, info?: FrameInfo): void {
    for (const b of decoded.badResponses) this.handleBadResponse(b);
    if (decoded.batch && !(this.handlers.allowBatch?.() ?? false)) return this.sendError(errorResponse(null, ErrorCode.InvalidRequest, BATCH_REFUSED));
    if (decoded.batch) {
      void this.receiveBatch(decoded.messages, decoded.errors, info);
      return;
    }
    for (const e of decoded.errors) this.sendError(e);
    const m = decoded.messages[0];
    if (!m) return;
    // Without incoming middleware, straight to routing: no per-frame chain closure.
    const routed = this.hasIncoming ? this.inbound(info)(m) : this.route(m, info);
    // A response routed is done (DONE): no catch to hang on it.
    if (routed !== DONE) routed.catch((err: unknown) => this.onerror?.(asError(err)));
  }

  /**
   * Batch replies travel together, as JSON-RPC 2.0 asks. Every message of the batch, and every
   * reply, still passes through the middleware like a lone message would.
   */
  private async receiveBatch(messages: JsonRpcMessage[], errors: JsonRpcResponse[], info?: FrameInfo): Promise<void> {
    const replies: JsonRpcMessage[] = [];
    const outs: Promise<void>[] = [];
    const collectOut = compose(this.middleware, 'outgoing', async (m) => {
      replies.push(m);
    });
    const collect = (r: JsonRpcResponse) => {
      outs.push(collectOut(r).catch((e: unknown) => this.onerror?.(asError(e))));
    };
    for (const e of errors) collect(e);
    const chain = this.inbound(info, collect);
    await Promise.all(messages.map((m) => chain(m).catch((err: unknown) => this.onerror?.(asError(err)))));
    await Promise.all(outs);
    if (replies.length > 0 && !this.closed) await this.transport.send(replies).catch((e: unknown) => this.onerror?.(asError(e)));
  }

  /** Not async: a request's or notification's own promise is passed on as it is. */
  private route(m: JsonRpcMessage, info?: FrameInfo, collect?: (r: JsonRpcResponse) => void): Promise<void> {
    if ('method' in m) {
      if ('id' in m) return this.handleRequest(m as JsonRpcRequest, info, collect);
      return this.handleNotification(m, info);
    }
    try {
      this.handleResponse(m);
    } catch (err) {
      return Promise.reject(err);
    }
    return DONE;
  }

  /** A malformed response is never answered; it fails the request it names, if any. */
  private handleBadResponse(b: BadResponse): void {
    const p = b.id === null ? undefined : this.settle(b.id);
    const error = new LocalError('protocol', `Peer sent a malformed response${b.id === null ? '' : ` to request ${JSON.stringify(b.id)}`}: ${b.reason}`);
    if (p) p.reject(error);
    else this.onerror?.(error);
  }

  private handleResponse(m: JsonRpcResponse): void {
    if (m.id === undefined || m.id === null) {
      if ('error' in m) this.onerror?.(new Error(`Peer reported an error: ${m.error.message} (${m.error.code})`));
      return;
    }
    const p = this.settle(m.id);
    if (!p) return; // late (after timeout/cancel) or unknown: dropped, as the spec asks
    if ('error' in m) p.reject(McpError.fromObject(m.error));
    else p.resolve(m.result);
  }

  private async handleNotification(n: JsonRpcNotification, info?: FrameInfo): Promise<void> {
    if (n.method === 'notifications/cancelled') {
      const id = n.params?.requestId as RequestId | undefined;
      if (id !== undefined) this.inbounds.get(id)?.cancel(String(n.params?.reason ?? 'cancelled by peer'));
      return;
    }
    if (n.method === 'notifications/progress') {
      this.handleProgress(n.params);
      return;
    }
    try {
      await this.handlers.onnotification?.(n, info);
    } catch (err) {
      this.onerror?.(asError(err));
    }
  }

  private handleProgress(params: JsonObject | undefined): void {
    if (!params) return;
    const token = params.progressToken as RequestId;
    const p = this.pending?.get(token);
    if (!p?.onprogress) return;
    if (p.resetOnProgress && p.deadline !== Infinity) {
      if (this.clock.now() - p.startedAt < p.maxTotal) this.arm(p);
      else {
        p.capped = true;
        this.cancelOutgoing(token, p.timedOut(), p.timeoutReason());
        return;
      }
    }
    const info: ProgressInfo = { progress: params.progress as number };
    if (params.total !== undefined) info.total = params.total as number;
    if (params.message !== undefined) info.message = params.message as string;
    try {
      p.onprogress(info);
    } catch (err) {
      this.onerror?.(asError(err));
    }
  }

  /** How a lone request's response leaves (one function for the connection, not one per request). */
  private readonly replyOut = (r: JsonRpcResponse): void => {
    this.respond(r).catch((e: unknown) => this.onerror?.(asError(e)));
  };

  /**
   * Not async: a handler that answers synchronously (most tools/call handlers, every list) is
   * replied to in the same tick, with no promise made for it.
   */
  private handleRequest(req: JsonRpcRequest, info?: FrameInfo, collect?: (r: JsonRpcResponse) => void): Promise<void> {
    const reply = collect ?? this.replyOut;
    if (this.inbounds.get(req.id) !== undefined) {
      reply(idInUse(req.id));
      return DONE;
    }
    const inbound = new InboundRequest(this, req, info);
    this.inbounds.add(inbound);
    let result: Promise<JsonObject> | JsonObject;
    try {
      result = this.handlers.onrequest(req, inbound);
    } catch (err) {
      this.answered(inbound, reply, false, err);
      return DONE;
    }
    if (result !== null && typeof (result as { then?: unknown }).then === 'function') {
      return Promise.resolve(result).then(
        (r) => this.answered(inbound, reply, true, r),
        (err: unknown) => this.answered(inbound, reply, false, err),
      );
    }
    this.answered(inbound, reply, true, result);
    return DONE;
  }

  /** Ends an inbound request with its result, or with the error its handler threw. */
  private answered(inbound: InboundRequest, reply: (r: JsonRpcResponse) => void, ok: boolean, value: unknown): void {
    const response = responseTo(inbound, ok, value, this.onerror);
    inbound.finish();
    this.inbounds.delete(inbound);
    // A cancelled request gets no reply at all (spec: the receiver SHOULD NOT respond).
    if (!inbound.cancelled) reply(response);
  }

  private handleClosed(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    const why = reason?.message ? `: ${reason.message}` : '';
    if (this.pending) {
      for (const [id, p] of this.pending.entries()) {
        this.settle(id);
        p.reject(new LocalError('closed', `Connection closed before "${p.method}" was answered${why}`, { cause: reason }));
      }
    }
    if (this.inbounds.size > 0) {
      for (const r of this.inbounds.list()) r.cancel('connection closed');
      this.inbounds.clear();
    }
    try {
      this.handlers.onclose?.(reason);
    } catch (err) {
      this.onerror?.(asError(err));
    }
    if (this.closeListeners)
      for (const l of this.closeListeners) {
        try {
          l(reason);
        } catch (err) {
          this.onerror?.(asError(err));
        }
      }
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const BATCH_REFUSED = 'Invalid request: JSON-RPC batches are only accepted with protocol version 2025-03-26';
const idInUse = (id: RequestId) =>
  errorResponse(id, ErrorCode.InvalidRequest, `Invalid request: id ${JSON.stringify(id)} is already in use by a request in progress`);
const NO_MIDDLEWARE: readonly MessageMiddleware[] = Object.freeze([]);
const DONE: Promise<void> = Promise.resolve();

/** Side table so the transport learns which request a message belongs to without widening the message. */
const related = new WeakMap<object, RequestId>();
function relatedOf(m: JsonRpcMessage): { relatedRequestId?: RequestId } | undefined {
  // A response is related to the request it answers; transports read that from its id.
  const id = 'method' in m ? related.get(m) : ((m as { id?: RequestId | null }).id ?? undefined);
  return id === undefined ? undefined : { relatedRequestId: id };
}
