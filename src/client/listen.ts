import { LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, RequestId } from '../jsonrpc/messages.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import { META } from '../protocol/modern.js';
import type { SubscriptionFilter } from '../protocol/params.js';
import { HttpStatusError } from '../transports/http/client/http-common.js';

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

/**
 * Whether, and how fast, a listen stream lost without the server ending it is sent again
 * (see {@link McpClient.listen}). Delays double from `initialDelayMs` up to `maxDelayMs`.
 */
export interface RelistenOptions {
  /** Default 100 ms. */
  initialDelayMs?: number;
  /** Default 5000 ms. */
  maxDelayMs?: number;
  /** Attempts in a row that end without an acknowledgement before giving up. Default 5. */
  maxAttempts?: number;
}

/** Options of {@link McpClient.listen}. */
export interface ListenOptions {
  /**
   * Send the listen request again when its stream is lost without the server ending it (HTTP:
   * the SSE stream broke, the POST failed or got a 5xx), as 2026-07-28 streams cannot be
   * resumed. Default on; `false` ends the subscription instead.
   */
  relisten?: RelistenOptions | false;
  /**
   * Called each time a re-sent listen is acknowledged. Notifications sent while no stream was
   * open are not replayed: the client has already dropped the cached lists and reads the
   * filter covers; refetch whatever else you keep.
   */
  onrelisten?: (acknowledged: SubscriptionFilter) => void;
}

/** One listen stream as the client tracks it. */
export class ListenStream implements Subscription {
  id: RequestId | undefined;
  readonly acknowledged: Promise<SubscriptionFilter>;
  readonly ended: Promise<void>;
  readonly abort = new AbortController();
  /** Acknowledgements received: more than one means the stream was listened again. */
  acks = 0;
  /** Called on every acknowledgement after the first. */
  reacknowledged: ((f: SubscriptionFilter) => void) | undefined;
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
      const filter = f && typeof f === 'object' ? (f as SubscriptionFilter) : {};
      if (++this.acks === 1) this.ack(filter);
      else this.tell(() => this.reacknowledged?.(filter));
      return;
    }
    this.tell(() => this.onNotification({ method: n.method, params: n.params }));
  }

  private tell(call: () => void): void {
    try {
      call();
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

  /** Registers a stream about to be sent again: its old request id no longer names it. */
  readd(stream: ListenStream): void {
    if (stream.id !== undefined && this.byId.get(stream.id) === stream) this.byId.delete(stream.id);
    stream.id = undefined;
    this.add(stream);
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
        const [stream] = this.unsent.splice(Math.max(i, 0), 1);
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

/**
 * Whether a listen request failed in a way worth sending it again: the stream or the POST was
 * lost (a LocalError 'closed' while the connection is up, a network failure) or the server
 * answered 5xx (restarting). An answer from the server (McpError, a 4xx), a timeout, an abort
 * or a refused capability would only come back the same.
 */
export function worthRelistening(err: unknown): boolean {
  if (err instanceof McpError) return false;
  if (err instanceof HttpStatusError) return err.status >= 500;
  if (err instanceof LocalError) return err.kind === 'closed' || err.kind === 'network';
  return err instanceof Error;
}

/** What {@link keepListening} needs from the client. */
export interface ListenHost {
  /** Sends the listen request once; settles when that request does. */
  send(stream: ListenStream): Promise<unknown>;
  /** Whether the connection is still up. */
  open(): boolean;
  registry: ListenRegistry;
}

/**
 * Runs a listen stream until it is over: the server ended it (its result), the client closed it,
 * the connection closed, or sending it again failed `maxAttempts` times in a row. A lost stream
 * is sent again with a new request id (the same params, so the registry maps the new id to the
 * same stream) after a backoff; an attempt that was acknowledged starts the count afresh.
 */
export async function keepListening(stream: ListenStream, host: ListenHost, relisten: RelistenOptions | false | undefined): Promise<Error | undefined> {
  const pacing = relisten || {};
  const initial = pacing.initialDelayMs ?? 100;
  const max = pacing.maxDelayMs ?? 5000;
  const attempts = pacing.maxAttempts ?? 5;
  let failures = 0;
  for (;;) {
    const acksBefore = stream.acks;
    try {
      await host.send(stream);
      return undefined;
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      if (relisten === false || stream.abort.signal.aborted || !host.open() || !worthRelistening(err)) return error;
      failures = stream.acks > acksBefore ? 1 : failures + 1;
      if (failures > attempts) return error;
      const waited = await pause(Math.min(initial * 2 ** (failures - 1), max), stream.abort.signal);
      if (!waited || !host.open()) return error;
      host.registry.readd(stream);
    }
  }
}

/** Waits `ms`; false if `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The notifications a filter would have delivered: fed to the result cache after a re-listen,
 * since whatever was sent while no stream was open is gone.
 */
export function missedWhileAway(filter: SubscriptionFilter): Array<{ method: string; params?: JsonObject }> {
  const out: Array<{ method: string; params?: JsonObject }> = [];
  if (filter.toolsListChanged) out.push({ method: 'notifications/tools/list_changed' });
  if (filter.promptsListChanged) out.push({ method: 'notifications/prompts/list_changed' });
  if (filter.resourcesListChanged) out.push({ method: 'notifications/resources/list_changed' });
  for (const uri of filter.resourceSubscriptions ?? []) out.push({ method: 'notifications/resources/updated', params: { uri } });
  return out;
}
