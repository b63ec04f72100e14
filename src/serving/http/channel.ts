import type { JsonRpcMessage, RequestId } from '../../jsonrpc/messages.js';
import type { EventStore } from '../../state/event-store.js';
import type { HeaderMap, HttpResponder, StreamWriter } from './exchange.js';
import { startKeepAlive, stopKeepAlive } from './keep-alive.js';

export type ResponseMode = 'json' | 'sse' | 'auto';

export interface ChannelOptions {
  /** The stream id is `streamPrefix` + `streamNo` (built on first use: most streams never need it). */
  streamPrefix: string;
  streamNo?: number;
  /** Requests whose responses this channel carries (empty for the standalone GET stream). */
  ids: RequestId[];
  batch: boolean;
  mode: ResponseMode;
  headers: HeaderMap;
  /** `headers` plus the JSON content type, when the caller has them made already (not modified). */
  jsonHeaders?: HeaderMap;
  /** `headers` plus the SSE headers, when the caller has them made already (not modified). */
  sseHeaders?: HeaderMap;
  eventStore?: EventStore;
  /**
   * Where a failing `eventStore` is reported. The event is still sent, without an id: the client
   * gets it now but cannot resume past it (a store that is down must not stall the response).
   */
  onError?: (error: Error) => void;
  /** Send a priming event (id, empty data) and `retry:` first: 2025-11-25 clients resume from it. */
  priming: boolean;
  retryMs: number;
  keepAliveMs: number;
  onDone: (channel: ResponseChannel) => void;
  /** HTTP status of a JSON body (the 2026-07-28 era maps some errors to 400/404). Default 200. */
  statusFor?: (body: JsonRpcMessage) => number;
  /**
   * The client went away before the end. Unset in the handshake era, where a disconnect is not a
   * cancellation; the 2026-07-28 era cancels the request.
   */
  onDisconnect?: () => void;
}

const DONE: Promise<void> = Promise.resolve();

/** Response headers of a JSON body without extra headers; shared, never modified. */
export const JSON_HEADERS: HeaderMap = Object.freeze({ 'content-type': 'application/json' }) as HeaderMap;

/** `x-accel-buffering: no` stops proxies such as nginx from holding events back until the end. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * Where the messages for one POST (or the standalone GET stream) go. In `auto` mode the choice
 * between a JSON body and an SSE stream is made lazily: if the final responses are the first
 * thing to send, it is one JSON body; anything earlier (progress, logs, a server-to-client
 * request) switches the response to SSE.
 */
export class ResponseChannel {
  private id: string | undefined;
  /** Requests still unanswered: a Set for a batch; for one request (the usual case) a count. */
  private readonly pending: Set<RequestId> | undefined;
  private unanswered: number;
  private responder: HttpResponder | undefined;
  private writer: StreamWriter | undefined;
  private readonly collected: JsonRpcMessage[] = [];
  /** Registered with the shared keep-alive ticker (see keep-alive.ts). */
  private keepingAlive = false;
  /** Store-then-write steps, one at a time (see `serial`); made on first use. */
  private chain: Promise<unknown> | undefined;
  /** Steps queued or running on `chain`. */
  private steps = 0;
  done = false;

  constructor(
    responder: HttpResponder | undefined,
    private readonly o: ChannelOptions,
  ) {
    this.pending = o.ids.length > 1 ? new Set(o.ids) : undefined;
    this.unanswered = this.pending ? this.pending.size : o.ids.length;
    this.responder = responder;
    if (o.onDisconnect && responder?.onAbort) responder.onAbort(() => this.disconnected());
    if (o.mode === 'sse' && responder) this.openStream();
  }

  /** Names the stream in the event store and in Last-Event-ID. */
  get streamId(): string {
    const { streamPrefix, streamNo } = this.o;
    // A template, not `+`: string + number measured ~240 instructions more (bench/icount.mjs).
    return (this.id ??= streamNo === undefined ? streamPrefix : `${streamPrefix}${streamNo}`);
  }

  private disconnected(): void {
    if (!this.done) this.o.onDisconnect?.();
  }

  /** The requests whose responses this channel carries. */
  get ids(): readonly RequestId[] {
    return this.o.ids;
  }

  /** 'json': a plain JSON body that carries responses only. */
  get mode(): ResponseMode {
    return this.o.mode;
  }

  get isStream(): boolean {
    return this.writer !== undefined;
  }

  /**
   * Routes one outgoing message. Responses to this channel's requests count down to its end.
   * Returns false for a message a JSON-only response cannot carry (the caller finds it another way).
   * Synchronous (true) when the message is already written or collected, which is the common
   * case; a promise only when it must wait for the event store or an earlier event.
   */
  deliver(message: JsonRpcMessage): boolean | Promise<boolean> {
    if (this.done) return false;
    const isResponse = !('method' in message);
    if (!isResponse && this.o.mode === 'json') return false;
    if (isResponse) this.answered((message as { id: RequestId }).id);
    const finished = this.unanswered === 0 && this.o.ids.length > 0;
    if (!this.writer && this.responder && this.o.mode !== 'sse') {
      if (isResponse) {
        this.collected.push(message);
        if (finished) this.finishJson();
        return true;
      }
      // Something before the result: this response becomes a stream.
      this.openStream();
      if (this.collected.length > 0) return this.upgrade(message, finished);
    }
    // No event store to wait for and nothing queued: write now, no promise.
    if (!this.o.eventStore && this.steps === 0) {
      const w = this.writer;
      if (w && !w.closed) w.write(sseEvent(undefined, message));
      if (finished) this.finish();
      return true;
    }
    return this.writeThenFinish(message, finished);
  }

  private answered(id: RequestId): void {
    if (this.pending) {
      if (this.pending.delete(id)) this.unanswered--;
    } else if (this.unanswered === 1 && id === this.o.ids[0]) this.unanswered = 0;
  }

  private async upgrade(message: JsonRpcMessage, finished: boolean): Promise<boolean> {
    for (const m of this.collected.splice(0)) await this.writeEvent(m);
    return this.writeThenFinish(message, finished);
  }

  private async writeThenFinish(message: JsonRpcMessage, finished: boolean): Promise<boolean> {
    await this.writeEvent(message);
    if (finished) this.finish();
    return true;
  }

  /** A client is reading this stream right now. */
  get connected(): boolean {
    return this.writer !== undefined && !this.writer.closed;
  }

  /**
   * Moves the stream to a resumed connection (GET with Last-Event-ID): `replay` sends what was
   * stored after the events the caller already wrote, then live events follow. It runs as one
   * serial step, so no event is stored in between and lost, or written twice.
   */
  resume(writer: StreamWriter, replay: (send: (id: string, m: JsonRpcMessage) => void) => unknown): Promise<void> {
    return this.serial(async () => {
      await replay((id, m) => writer.write(sseEvent(id, m)));
      if (this.done)
        writer.end(); // the last events were in the replay
      else this.attach(writer);
    });
  }

  private attach(writer: StreamWriter): void {
    // The client moved to a new connection: end the old one (each message goes on exactly one
    // stream, so it would otherwise stay open and silent until the session ends).
    const previous = this.writer;
    this.writer = writer;
    previous?.end();
    this.responder = undefined;
    writer.onClose(() => this.detach(writer));
    this.startKeepAlive();
  }

  /**
   * Ends the client's connection but not the channel (an instance shutting down): the client
   * sees the stream end without its response and resumes it with Last-Event-ID, on any instance
   * sharing the event store. Nothing for a channel with no open stream.
   */
  hangUp(): void {
    this.writer?.end();
  }

  /** Ends the channel without waiting for responses (session closed, DELETE). */
  close(): void {
    if (this.done) return;
    if (!this.writer && this.responder)
      this.responder.send(
        503,
        { 'content-type': 'application/json' },
        JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Session closed before the request finished' } }),
      );
    this.finish();
  }

  private finishJson(): void {
    const body = this.o.batch ? this.collected : this.collected[0];
    const status = this.o.statusFor && !this.o.batch ? this.o.statusFor(body as JsonRpcMessage) : 200;
    const headers = this.o.jsonHeaders ?? { ...this.o.headers, 'content-type': 'application/json' };
    this.responder!.send(status, headers, JSON.stringify(body));
    this.responder = undefined;
    this.done = true;
    this.o.onDone(this);
  }

  private openStream(): void {
    const writer = this.responder!.stream(200, this.o.sseHeaders ?? { ...this.o.headers, ...SSE_HEADERS });
    this.responder = undefined;
    this.writer = writer;
    writer.onClose(() => this.detach(writer));
    if (this.o.priming && this.o.eventStore) {
      let id: string | undefined;
      try {
        id = this.o.eventStore.primingEventId(this.streamId);
      } catch (e) {
        this.failed(e); // no priming event then: the stream itself is still worth having
      }
      if (id !== undefined) writer.write(`id: ${id}\nretry: ${this.o.retryMs}\ndata: \n\n`);
    }
    this.startKeepAlive();
  }

  private startKeepAlive(): void {
    if (this.o.keepAliveMs <= 0 || this.keepingAlive) return;
    this.keepingAlive = true;
    startKeepAlive(this, this.o.keepAliveMs);
  }

  private stopKeepAlive(): void {
    if (!this.keepingAlive) return;
    this.keepingAlive = false;
    stopKeepAlive(this, this.o.keepAliveMs);
  }

  /** Called by the shared ticker while this channel has an open stream. */
  keepAlivePing(): void {
    this.writer?.write(': keepalive\n\n');
  }

  /** The client went away: a cancellation only where `onDisconnect` says so (2026-07-28). */
  private detach(writer: StreamWriter): void {
    if (this.writer !== writer) return;
    this.writer = undefined;
    this.stopKeepAlive();
    this.disconnected();
  }

  /**
   * Runs steps one after another. With an asynchronous event store, two events stored at once
   * could otherwise leave in the other order (or a result before its progress, ending the
   * stream first), and a resume could slip between an event's storing and its writing.
   */
  private serial(step: () => Promise<void>): Promise<void> {
    this.steps++;
    const run = (this.chain ?? DONE).then(step).finally(() => this.steps--);
    this.chain = run.catch(() => {});
    return run;
  }

  private writeEvent(message: JsonRpcMessage): Promise<void> {
    return this.serial(async () => {
      const store = this.o.eventStore;
      let id: string | undefined;
      if (store) {
        try {
          id = await store.storeEvent(this.streamId, message, this.o.ids);
        } catch (e) {
          this.failed(e); // sent without an id: delivered, though not resumable
        }
      }
      const w = this.writer;
      if (!w || w.closed) return; // kept in the event store for a resume, if there is one
      w.write(sseEvent(id, message));
    });
  }

  private failed(e: unknown): void {
    const error = e instanceof Error ? e : new Error(String(e));
    if (this.o.onError) this.o.onError(error);
    else console.error(`[mcpkit] event store: ${error.stack ?? error.message}`);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.stopKeepAlive();
    this.writer?.end();
    this.writer = undefined;
    this.o.onDone(this);
  }
}

export function sseEvent(id: string | undefined, message: JsonRpcMessage): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
