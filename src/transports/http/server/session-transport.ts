import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/messages.js';
import type { FrameInfo, SendOptions, Transport } from '../../transport.js';
import type { ResponseChannel } from './channel.js';

/**
 * The transport under one HTTP session's engine. Inbound frames are pushed in by the HTTP core;
 * outbound messages are routed to the stream of the request they belong to, or to the standalone
 * GET stream when they belong to none.
 */
export class HttpSessionTransport implements Transport {
  onmessage?: (frame: unknown, info?: FrameInfo) => void;
  onclose?: (reason?: Error) => void;
  onerror?: (error: Error) => void;
  /** Channel by the id of each request it answers. */
  private readonly byRequest = new Map<RequestId, ResponseChannel>();
  /** The standalone GET stream, when open. */
  standalone: ResponseChannel | undefined;
  /** What to do with a message that has no open stream (e.g. log it for a later resume). */
  orphan?: (message: JsonRpcMessage) => void;
  private closed = false;

  async start(): Promise<void> {}

  /** Registers the channel that will carry the responses to `ids`. */
  bind(ids: readonly RequestId[], channel: ResponseChannel): void {
    for (const id of ids) this.byRequest.set(id, channel);
  }

  unbind(channel: ResponseChannel): void {
    for (const [id, c] of this.byRequest) if (c === channel) this.byRequest.delete(id);
    if (this.standalone === channel) this.standalone = undefined;
  }

  channelFor(id: RequestId): ResponseChannel | undefined {
    return this.byRequest.get(id);
  }

  get openChannels(): ResponseChannel[] {
    const all = new Set(this.byRequest.values());
    if (this.standalone) all.add(this.standalone);
    return [...all];
  }

  receive(frame: unknown, info?: FrameInfo): void {
    if (!this.closed) this.onmessage?.(frame, info);
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) return;
    if (Array.isArray(message)) {
      for (const m of message) await this.send(m, options);
      return;
    }
    const id = 'method' in message ? options?.relatedRequestId : (message as { id?: RequestId | null }).id ?? undefined;
    const channel = id === undefined ? undefined : this.byRequest.get(id);
    if (channel && !channel.done && (await channel.deliver(message))) return;
    // Never send a response on the standalone stream; everything else may go there.
    if ('method' in message && this.standalone && !this.standalone.done && (await this.standalone.deliver(message))) return;
    this.orphan?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.openChannels) c.close();
    this.byRequest.clear();
    this.onclose?.();
  }
}
