// The protocol timeline: every JSON-RPC message between the studio's clients and their servers,
// both ways, recorded by a client middleware placed nearest the wire (engine/middleware.ts), with
// the time it crossed, the era, and for a response the latency since its request.
import type { Clock } from '../engine/clock.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { JsonRpcMessage } from '../jsonrpc/messages.js';
import { META } from '../protocol/modern.js';
import type { TimelineEntry } from './api-types.js';

/** Past this size (JSON bytes) a message goes on the event stream without its body; the page fetches it by seq. */
export const STREAM_BODY_LIMIT = 64 * 1024;

type Era = TimelineEntry['era'];

export class Timeline {
  private readonly entries: TimelineEntry[] = [];
  private seq = 0;
  /** Requests awaiting their response, by server, direction and id: when they were sent and their method. */
  private readonly open = new Map<string, { time: number; method: string }>();
  private readonly eras = new Map<string, Era>();

  constructor(
    private readonly clock: Clock,
    private readonly onEntry: (entry: TimelineEntry) => void,
    /** The most entries kept; the oldest go first. */
    private readonly capacity = 20_000,
  ) {}

  get lastSeq(): number {
    return this.seq;
  }

  /** The recorder for one server's client (asked anew for each connection). */
  middleware(server: string, eraNow: () => Era): MessageMiddleware {
    return {
      incoming: (m, next) => {
        this.record(server, 'in', m, eraNow);
        return next(m);
      },
      outgoing: (m, next) => {
        this.record(server, 'out', m, eraNow);
        return next(m);
      },
    };
  }

  /** Records what is not a JSON-RPC message (an HTTP exchange of the transport). */
  note(server: string, dir: 'in' | 'out', kind: TimelineEntry['kind'], method: string, body: unknown, latencyMs?: number): void {
    const entry: TimelineEntry = {
      seq: ++this.seq,
      time: this.clock.now(),
      server,
      dir,
      era: this.eras.get(server),
      kind,
      method,
      id: undefined,
      size: jsonSize(body),
      message: body,
    };
    if (latencyMs !== undefined) entry.latencyMs = latencyMs;
    this.push(entry);
  }

  /** Entries after `after`, at most `limit` of the newest. */
  since(after: number, limit = 5_000): TimelineEntry[] {
    const first = this.entries.findIndex((e) => e.seq > after);
    if (first < 0) return [];
    return this.entries.slice(Math.max(first, this.entries.length - limit));
  }

  get(seq: number): TimelineEntry | undefined {
    // Entries are in seq order with no gaps except at the evicted front.
    const head = this.entries[0];
    if (!head) return undefined;
    const e = this.entries[seq - head.seq];
    return e?.seq === seq ? e : undefined;
  }

  /** A server went away: its open requests will never be answered. */
  forget(server: string): void {
    for (const k of this.open.keys()) if (k.startsWith(`${server}\u0000`)) this.open.delete(k);
    this.eras.delete(server);
  }

  private record(server: string, dir: 'in' | 'out', m: JsonRpcMessage, eraNow: () => Era): void {
    const msg = m as { id?: string | number; method?: unknown; result?: unknown; error?: unknown };
    const time = this.clock.now();
    const hasId = msg.id !== undefined && msg.id !== null;
    let kind: TimelineEntry['kind'] = 'other';
    let method = typeof msg.method === 'string' ? msg.method : undefined;
    let latencyMs: number | undefined;
    if (method !== undefined) {
      kind = hasId ? 'request' : 'notification';
      // The era is known from the first message of a connection: the 2026-07-28 probe or the handshake.
      // Over HTTP the 2026-07-28 probe is not a message; the envelope's protocol version says it instead.
      if (method === 'server/discover' || carriesEnvelope(m)) this.eras.set(server, 'modern');
      else if (method === 'initialize') this.eras.set(server, 'handshake');
      if (hasId) this.open.set(key(server, dir, msg.id!), { time, method });
    } else if (hasId && ('result' in msg || 'error' in msg)) {
      kind = 'error' in msg ? 'error' : 'response';
      // A response travels the other way from its request.
      const k = key(server, dir === 'in' ? 'out' : 'in', msg.id!);
      const req = this.open.get(k);
      if (req) {
        this.open.delete(k);
        method = req.method;
        latencyMs = time - req.time;
      }
    }
    const size = jsonSize(m);
    const entry: TimelineEntry = {
      seq: ++this.seq,
      time,
      server,
      dir,
      era: eraNow() ?? this.eras.get(server),
      kind,
      method,
      id: hasId ? msg.id : undefined,
      size,
      message: m,
    };
    if (latencyMs !== undefined) entry.latencyMs = latencyMs;
    this.push(entry);
  }

  private push(entry: TimelineEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    this.onEntry(entry);
  }
}

function carriesEnvelope(m: JsonRpcMessage): boolean {
  const meta = (m as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return !!meta && typeof meta === 'object' && META.protocolVersion in meta;
}

function key(server: string, dir: 'in' | 'out', id: string | number): string {
  return `${server}\u0000${dir}\u0000${typeof id}:${id}`;
}

function jsonSize(m: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(m));
  } catch {
    return 0;
  }
}

/** The entry as the event stream carries it: a large body is left for the page to fetch. */
export function forStream(e: TimelineEntry): TimelineEntry {
  if (e.size <= STREAM_BODY_LIMIT) return e;
  const { message: _, ...rest } = e;
  return { ...rest, truncated: true };
}
