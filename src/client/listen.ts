import type { JsonObject, JsonRpcMessage, JsonRpcNotification, RequestId } from '../jsonrpc/messages.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import { META } from '../protocol/modern.js';
import type { SubscriptionFilter } from '../protocol/types.js';

/** A server notification delivered on a listen stream. */
export interface ListenNotification {
  method: string;
  params: JsonObject | undefined;
}

/** What {@link McpClient.listen} returns: one open `subscriptions/listen` stream. */
export interface Subscription {
  /**
   * The filter the server acknowledged: the part of the requested one it will honour (compare
   * it with what you asked for). Rejects if the stream ends before the acknowledgement.
   */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** Settles once the stream is over: closed by us, ended by the server, or the connection. */
  readonly ended: Promise<void>;
  /** Ends the stream (stdio: `notifications/cancelled`; HTTP: the request's stream is closed). */
  close(): Promise<void>;
}

/** One listen stream as the client tracks it. */
export class ListenStream implements Subscription {
  id: RequestId | undefined;
  readonly acknowledged: Promise<SubscriptionFilter>;
  readonly ended: Promise<void>;
  readonly abort = new AbortController();
  private ack!: (f: SubscriptionFilter) => void;
  private nack!: (e: Error) => void;
  private finish!: () => void;

  constructor(
    readonly params: JsonObject,
    private readonly onNotification: (n: ListenNotification) => void,
    private readonly onerror: (e: Error) => void,
  ) {
    this.acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
      this.ack = resolve;
      this.nack = reject;
    });
    // Callers who never look at the acknowledgement must not get an unhandled rejection.
    this.acknowledged.catch(() => {});
    this.ended = new Promise<void>((resolve) => (this.finish = resolve));
  }

  deliver(n: JsonRpcNotification): void {
    if (n.method === 'notifications/subscriptions/acknowledged') {
      const f = n.params?.notifications;
      this.ack(f && typeof f === 'object' ? (f as SubscriptionFilter) : {});
      return;
    }
    try {
      this.onNotification({ method: n.method, params: n.params });
    } catch (err) {
      this.onerror(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** The request settled (final result, cancellation, lost connection): the stream is over. */
  over(reason: Error | undefined): void {
    this.nack(reason ?? new Error('The subscription ended before the server acknowledged it'));
    this.finish();
  }

  close(): Promise<void> {
    this.abort.abort(new Error('subscription closed by the client'));
    return this.ended;
  }
}

/**
 * Demultiplexes listen streams. Notifications name their stream by the listen request's
 * JSON-RPC id (`_meta["io.modelcontextprotocol/subscriptionId"]`), an id the engine assigns
 * when it sends the request; the middleware below learns it from the outgoing message. Being
 * the innermost layer, it sees the very params object the client built, even if outer
 * middleware later rewrites the message.
 */
export class ListenRegistry {
  private readonly unsent: ListenStream[] = [];
  private readonly byId = new Map<RequestId, ListenStream>();

  /** Registers a stream about to be sent. */
  add(stream: ListenStream): void {
    this.unsent.push(stream);
  }

  /** Forgets a stream once its request has settled. */
  remove(stream: ListenStream): void {
    const i = this.unsent.indexOf(stream);
    if (i >= 0) this.unsent.splice(i, 1);
    if (stream.id !== undefined && this.byId.get(stream.id) === stream) this.byId.delete(stream.id);
  }

  /** The stream a notification belongs to, if it is tagged for one of ours. */
  streamOf(n: JsonRpcNotification): ListenStream | undefined {
    const meta = n.params?._meta as Record<string, unknown> | undefined;
    const id = meta?.[META.subscriptionId];
    return typeof id === 'string' || typeof id === 'number' ? this.byId.get(id) : undefined;
  }

  get size(): number {
    return this.byId.size + this.unsent.length;
  }

  readonly middleware: MessageMiddleware = {
    outgoing: (m: JsonRpcMessage, next) => {
      if ('method' in m && 'id' in m && m.method === 'subscriptions/listen' && this.unsent.length > 0) {
        const i = this.unsent.findIndex((s) => s.params === m.params);
        const [stream] = this.unsent.splice(i >= 0 ? i : 0, 1);
        stream.id = m.id;
        this.byId.set(m.id, stream);
      }
      return next(m);
    },
    incoming: (m: JsonRpcMessage, next) => {
      // The server ends a listen with notifications/cancelled (the cancellation page's MUST);
      // the engine would swallow it, so catch it here and end the stream as if closed.
      if ('method' in m && !('id' in m) && m.method === 'notifications/cancelled') {
        const id = m.params?.requestId;
        const stream = typeof id === 'string' || typeof id === 'number' ? this.byId.get(id) : undefined;
        if (stream) stream.abort.abort(new Error(`the server ended the subscription${m.params?.reason ? `: ${String(m.params.reason)}` : ''}`));
      }
      return next(m);
    },
  };
}
