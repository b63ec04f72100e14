import type { JsonObject, RequestId } from '../jsonrpc/messages.js';
import type { InboundRequest } from '../engine/inbound.js';
import type { RequestEnvelope } from '../protocol/handshake.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import type { AuthInfo } from '../engine/transport.js';

/**
 * @internal Calls `listener.handleEvent()` once when `ctx`'s request is cancelled (its signal
 * fires), without making its AbortSignal when the context is one of ours: a relay forwarding
 * every request through needs to hear of the rare cancellation, not to pay for a signal per call.
 */
export function whenCancelled(ctx: { readonly signal: AbortSignal }, listener: { handleEvent(): void }): void {
  if (ctx instanceof RequestFacts) RequestFacts.onAbort(ctx, listener);
  else if (ctx.signal.aborted) listener.handleEvent();
  else ctx.signal.addEventListener('abort', listener, { once: true });
}

/**
 * What both eras' contexts know about a request, read from the engine's request and the era's
 * envelope. The eras differ only in how they log and ask the client for input.
 */
export abstract class RequestFacts {
  constructor(
    /** Not readonly: a 2026-07-28 run resumed by a retry answers that retry from then on. */
    protected inbound: InboundRequest,
    protected envelope: RequestEnvelope,
  ) {}

  /** @internal See {@link whenCancelled}. */
  static onAbort(ctx: RequestFacts, listener: { handleEvent(): void }): void {
    ctx.inbound.onAbort(listener);
  }

  get requestId(): RequestId {
    return this.inbound.id;
  }
  get method(): string {
    return this.inbound.request.method;
  }
  get signal(): AbortSignal {
    return this.inbound.signal;
  }
  get meta(): JsonObject | undefined {
    return this.inbound.request.params?._meta as JsonObject | undefined;
  }
  get protocolVersion(): string {
    return this.envelope.protocolVersion;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.envelope.clientCapabilities;
  }
  get clientInfo(): Implementation | undefined {
    return this.envelope.clientInfo;
  }
  get authInfo(): AuthInfo | undefined {
    return this.inbound.info?.authInfo;
  }
  get remoteAddress(): string | undefined {
    return this.inbound.info?.remoteAddress;
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.inbound.notify(method, params);
  }

  /** `notifications/message` tied to this request; the era decides whether to call it. */
  protected sendLog(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.inbound.notify('notifications/message', params);
  }
}
