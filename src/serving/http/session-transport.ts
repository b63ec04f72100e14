import type { Decoded } from '../../jsonrpc/codec.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/messages.js';
import type { FrameInfo, SendOptions, Transport } from '../../engine/transport.js';
import type { ResponseChannel } from './channel.js';

const DONE: Promise<void> = Promise.resolve();

const NO_GET_STREAM = 'no stream can carry it to the client (the session has no GET stream open)';
const JSON_AND_NO_GET_STREAM =
  'no stream can carry it to the client (its request is answered with plain JSON, as responseMode "json" or the client\'s Accept header asks, ' +
  'and the session has no GET stream open)';

/**
 * The transport under one HTTP session's engine. Inbound frames are pushed in by the HTTP core,
 * already decoded (it decodes each body once, to route it);
 * outbound messages are routed to the stream of the request they belong to, or to the standalone
 * GET stream when they belong to none.
 */
export class HttpSessionTransport implements Transport {
  /** On the prototype: a transport made per request pays nothing for it. */
  get kind(): 'http' {
    return 'http';
  }
  onmessage?: (frame: unknown, info?: FrameInfo) => void;
  ondecoded?: (decoded: Decoded, info?: FrameInfo) => void;
  onclose?: (reason?: Error) => void;
  onerror?: (error: Error) => void;
  onrequestlost?: (requestId: RequestId, error: Error) => void;
  // Channel by the id of each request it answers. One binding (every stateless request, most
  // stateful moments) lives in two fields; a Map is made when a second id is bound alongside.
  private soleId: RequestId | undefined;
  private sole: ResponseChannel | undefined;
  private byRequest: Map<RequestId, ResponseChannel> | undefined;
  /** The standalone GET stream, when open. */
  standalone: ResponseChannel | undefined;
  /** What to do with a message that has no open stream (e.g. log it for a later resume). */
  orphan?: (message: JsonRpcMessage) => void;
  private closed = false;

  start(): Promise<void> {
    return DONE;
  }

  /** Registers the channel that will carry the responses to `ids`. */
  bind(ids: readonly RequestId[], channel: ResponseChannel): void {
    for (const id of ids) {
      if (this.byRequest) this.byRequest.set(id, channel);
      else if (this.sole === undefined || this.soleId === id) {
        this.soleId = id;
        this.sole = channel;
      } else {
        this.byRequest = new Map([
          [this.soleId!, this.sole],
          [id, channel],
        ]);
        this.soleId = this.sole = undefined;
      }
    }
  }

  unbind(channel: ResponseChannel): void {
    // By the channel's own ids: a busy session has other requests' entries in the map.
    for (const id of channel.ids) {
      if (this.byRequest) {
        if (this.byRequest.get(id) === channel) this.byRequest.delete(id);
      } else if (this.sole === channel && this.soleId === id) this.soleId = this.sole = undefined;
    }
    if (this.standalone === channel) this.standalone = undefined;
  }

  channelFor(id: RequestId): ResponseChannel | undefined {
    if (this.byRequest) return this.byRequest.get(id);
    return this.sole !== undefined && this.soleId === id ? this.sole : undefined;
  }

  get openChannels(): ResponseChannel[] {
    const all = new Set(this.byRequest ? this.byRequest.values() : this.sole ? [this.sole] : []);
    if (this.standalone) all.add(this.standalone);
    return [...all];
  }

  /** Hands a body the HTTP core decoded (under the engine's limits) to the engine. */
  receive(decoded: Decoded, info?: FrameInfo): void {
    if (!this.closed) this.ondecoded?.(decoded, info);
  }

  /**
   * Not async: a response that completes a JSON body is written before this returns, without the
   * promise hops an async function would add to every response.
   */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) return DONE;
    if (Array.isArray(message)) return this.sendAll(message, options);
    const id = 'method' in message ? options?.relatedRequestId : ((message as { id?: RequestId | null }).id ?? undefined);
    const channel = id === undefined ? undefined : this.channelFor(id);
    if (channel && !channel.done) {
      const taken = channel.deliver(message);
      if (taken === true) return DONE;
      if (taken !== false) return taken.then((ok) => (ok ? undefined : this.elsewhere(message, NO_GET_STREAM)));
      // A JSON response cannot carry it. A request (elicitation, sampling) still goes on the GET
      // stream; a notification about this request (progress, a log) is dropped, as the reference
      // server does: on the GET stream it would arrive after the JSON result it belongs to.
      if (!('id' in message)) return DONE;
      return this.elsewhere(message, channel.mode === 'json' ? JSON_AND_NO_GET_STREAM : NO_GET_STREAM);
    }
    return this.elsewhere(message, NO_GET_STREAM);
  }

  private async sendAll(messages: JsonRpcMessage[], options?: SendOptions): Promise<void> {
    for (const m of messages) await this.send(m, options);
  }

  /** A message its request's channel did not take; `why` says why nothing else could, for requests. */
  private async elsewhere(message: JsonRpcMessage, why: string): Promise<void> {
    // Never send a response on the standalone stream; everything else may go there.
    if ('method' in message && this.standalone && !this.standalone.done && (await this.standalone.deliver(message))) return;
    // A request nobody will see would wait for its whole timeout: it fails now, saying why.
    if ('method' in message && 'id' in message) this.onrequestlost?.(message.id, new Error(why));
    this.orphan?.(message);
  }

  close(): Promise<void> {
    if (this.closed) return DONE;
    this.closed = true;
    // Usually nothing is left open here (a finished request unbinds its channel): no copies then.
    if ((this.byRequest && this.byRequest.size > 0) || this.sole || this.standalone) for (const c of this.openChannels) c.close();
    this.byRequest?.clear();
    this.soleId = this.sole = undefined;
    this.onclose?.();
    return DONE;
  }
}
