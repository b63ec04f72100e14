import type { JsonRpcMessage, RequestId } from '../jsonrpc/messages.js';

/**
 * The log behind SSE resumability (handshake era). Event ids encode their stream, so a
 * `Last-Event-ID` replays exactly what that stream missed and nothing from other streams.
 */
export interface EventStore {
  /**
   * Records a message sent on `streamId`; returns its event id. `requestIds` are the requests the
   * stream answers (none for a GET stream): a shared store may need them to answer for a stream
   * whose instance died before the responses (RedisEventStore with a `lease`).
   */
  storeEvent(streamId: string, message: JsonRpcMessage, requestIds?: readonly RequestId[]): Promise<string> | string;
  /**
   * Replays, in order, the events of the stream `lastEventId` belongs to that came after it.
   * Returns that stream's id, or undefined when the id is unknown or expired.
   */
  replayEventsAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> | string | undefined;
  /** The id of a stream's priming event: resuming from it replays the whole stream. */
  primingEventId(streamId: string): string;
  /** Forgets a stream (its request finished and was delivered, or the session ended). */
  dropStream?(streamId: string): void;
}

export interface InMemoryEventStoreOptions {
  /** Events kept per stream; older ones are forgotten. Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept; the least recently written is forgotten first. Default 10 000. */
  maxStreams?: number;
}

interface StreamLog {
  seq: number;
  events: Array<{ seq: number; message: JsonRpcMessage }>;
}

/** Bounded in-memory event log: old events and idle streams are dropped, never grown without limit. */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, StreamLog>();
  private readonly maxEvents: number;
  private readonly maxStreams: number;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEvents = options.maxEventsPerStream ?? 1000;
    this.maxStreams = options.maxStreams ?? 10_000;
  }

  storeEvent(streamId: string, message: JsonRpcMessage): string {
    let log = this.streams.get(streamId);
    if (log)
      this.streams.delete(streamId); // re-insert: Map order doubles as recency
    else log = { seq: 0, events: [] };
    this.streams.set(streamId, log);
    const seq = ++log.seq;
    log.events.push({ seq, message });
    if (log.events.length > this.maxEvents) log.events.shift();
    if (this.streams.size > this.maxStreams) this.streams.delete(this.streams.keys().next().value!);
    return `${streamId}:${seq}`;
  }

  primingEventId(streamId: string): string {
    return `${streamId}:0`;
  }

  replayEventsAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): string | undefined {
    const cut = lastEventId.lastIndexOf(':');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const after = Number(lastEventId.slice(cut + 1));
    if (!Number.isInteger(after) || after < 0) return undefined;
    const log = this.streams.get(streamId);
    // Sequence 0 is the priming event: valid even before the stream logged anything.
    if (!log) return after === 0 ? streamId : undefined;
    for (const e of log.events) if (e.seq > after) send(`${streamId}:${e.seq}`, e.message);
    return streamId;
  }

  dropStream(streamId: string): void {
    this.streams.delete(streamId);
  }

  /** Number of streams held (for tests and leak checks). */
  get size(): number {
    return this.streams.size;
  }
}
