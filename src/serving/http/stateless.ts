import { LocalError } from '../../jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from '../../jsonrpc/messages.js';
import { InboundRequest, type RequestSink } from '../../engine/inbound.js';
import { compose, type MessageMiddleware, type Next } from '../../engine/middleware.js';
import type { FrameInfo } from '../../engine/transport.js';
import type { ModernEra } from '../../server/modern.js';
import type { ResponseChannel } from './channel.js';

const DONE: Promise<void> = Promise.resolve();
const settled = (): void => {};

/**
 * One 2026-07-28 request over HTTP. It has no connection under it (no session, engine or
 * session transport): the server's stateless entry serves it, and everything it sends (progress,
 * logs, listen notifications, the answer) goes straight to its POST's response channel, through
 * the server's message middleware when there is any.
 */
export class StatelessExchange implements RequestSink {
  /** Set once, right after the channel is made (the channel's disconnect hook needs this object). */
  channel!: ResponseChannel;
  private inbound: InboundRequest | undefined;
  private readonly outgoing: Next | undefined;

  constructor(
    private readonly middleware: readonly MessageMiddleware[],
    private readonly onerror: (error: Error) => void,
  ) {
    // Built per request only when there is middleware: none is the usual case.
    this.outgoing = middleware.length > 0 && middleware.some((mw) => mw.outgoing) ? compose(middleware, 'outgoing', (m) => this.write(m)) : undefined;
  }

  /** Hands the request to the server (through incoming middleware, if any). */
  serve(modern: ModernEra, request: JsonRpcRequest, info: FrameInfo): void {
    const mws = this.middleware;
    if (mws.length === 0 || !mws.some((mw) => mw.incoming)) {
      modern.serve((this.inbound = new InboundRequest(this, request, info)));
      return;
    }
    // Middleware may change the message: the text it came in is no longer its params' source.
    const served = info.body === undefined ? info : { ...info, body: undefined };
    compose(mws, 'incoming', (m) => {
      // Middleware may change the message; what reaches the end is what is served.
      if ('method' in m && 'id' in m) modern.serve((this.inbound = new InboundRequest(this, m as JsonRpcRequest, served)));
      return DONE;
    })(request).catch((e: unknown) => this.onerror(e instanceof Error ? e : new Error(String(e))));
  }

  /** The client closed the response stream: in this era, that cancels the request. */
  disconnected(): void {
    this.inbound?.cancel('the client closed the response stream');
  }

  notify(method: string, params: JsonObject | undefined): Promise<void> {
    return this.out(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  request(method: string): Promise<JsonObject> {
    return Promise.reject(
      new LocalError('capability', `Cannot send "${method}": a 2026-07-28 server sends no requests (it asks for input with input_required)`),
    );
  }

  respond(message: JsonRpcResponse): Promise<void> {
    return this.out(message);
  }

  private out(m: JsonRpcMessage): Promise<void> {
    return this.outgoing === undefined ? this.write(m) : this.outgoing(m);
  }

  /** A message the channel does not take (a notification to a JSON-only response) has nowhere else to go. */
  private write(m: JsonRpcMessage): Promise<void> {
    const taken = this.channel.deliver(m);
    return typeof taken === 'boolean' ? DONE : taken.then(settled);
  }
}
