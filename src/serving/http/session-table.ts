import { bytesToBase64url } from '../../protocol/encoding.js';
import type { ServerPort } from '../../server/server.js';
import type { ServerSession } from '../../server/session.js';
import type { AuthInfo } from '../../engine/transport.js';
import type { Clock } from '../../engine/clock.js';
import type { EventStore } from '../../state/event-store.js';
import type { HttpRequestView, HttpResponder } from './exchange.js';
import { sendError } from './responses.js';
import type { SessionRecord, SessionStore } from '../../state/session-store.js';
import { HttpSessionTransport } from './session-transport.js';

export interface LiveSession {
  id: string;
  transport: HttpSessionTransport;
  session: ServerSession;
  principal: string | undefined;
  lastSeen: number;
  /** Streams opened so far: the next one is `streamPrefix` + (streams + 1). */
  streams: number;
  /** `<session id>/<handler tag>.` (see SessionTable.tag). */
  streamPrefix: string;
  /** The session's header, and with the JSON content type: made once, sent with every response. */
  headers: Record<string, string>;
  jsonHeaders: Record<string, string>;
  /**
   * When the shared store is next asked whether this session still exists. Infinity while there
   * is nothing to ask: no store, or its record is not written yet.
   */
  checkAt: number;
}

export interface SessionTableOptions {
  store: SessionStore | undefined;
  eventStore: EventStore | undefined;
  idleMs: number;
  /** Least time between two checks of one session against `store`. */
  checkMs: number;
  clock: Clock;
}

/**
 * The bus channel on which an instance announces a session DELETEd there: every instance ends it
 * at once, instead of serving it until its next store check.
 */
const SESSION_ENDED = 'http-session-ended';

/** lookupNow's answer when the session must be looked up asynchronously (or refused by `lookup`). */
export const RESTORE: unique symbol = Symbol('restore');

/** Default `sessionCheckMs`: a tenth of the idle time, at most 10 s. */
export function defaultCheckMs(idleMs: number): number {
  return Math.min(idleMs / 10, 10_000);
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * The handshake-era sessions one Streamable HTTP handler holds, and their link to a shared
 * `SessionStore`: restoring sessions another instance opened, and checking now and then that a
 * session held here was not deleted elsewhere (which also keeps its record from expiring).
 */
export class SessionTable {
  readonly sessions = new Map<string, LiveSession>();
  private closing = false;
  private ownTag: string | undefined;
  /**
   * Random per handler, part of every stream id: two instances (or two handlers sharing one event
   * store in a process) serving one session number their streams independently, and must not
   * write into, resume from or drop each other's event logs. Drawn at first use: Workers refuse
   * random values at a module's top level, where a handler is often built.
   */
  get tag(): string {
    return (this.ownTag ??= bytesToBase64url(globalThis.crypto.getRandomValues(new Uint8Array(6))));
  }
  private readonly store: SessionStore | undefined;
  /** Restores under way, by session id (how many), so that an end announced meanwhile is not undone. */
  private readonly restoring = new Map<string, number>();
  /** Ids ended (on another instance) while a restore of them was under way here. */
  private readonly endedWhileRestoring = new Set<string>();
  private readonly eventStore: EventStore | undefined;
  private readonly idleMs: number;
  private readonly checkMs: number;
  private readonly clock: Clock;
  /**
   * The record outlives the local idle time by one check interval: a session used here within
   * `checkMs` of its last check has not refreshed its record, yet must not expire elsewhere first.
   */
  private readonly ttlMs: number;

  constructor(
    private readonly server: ServerPort,
    o: SessionTableOptions,
  ) {
    this.store = o.store;
    this.eventStore = o.eventStore;
    this.idleMs = o.idleMs;
    this.checkMs = o.checkMs;
    this.clock = o.clock;
    this.ttlMs = o.idleMs + o.checkMs;
  }

  /** `lookup` without waiting, for a session in this process; RESTORE when the store must be asked. */
  lookupNow(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo): LiveSession | undefined | typeof RESTORE {
    const id = req.header('mcp-session-id');
    if (!id) return RESTORE; // lookup answers that
    const live = this.sessions.get(id);
    if (!live) return this.store ? RESTORE : this.admit(live, res, authInfo);
    // Without a store this is one test of a field: the in-process case pays nothing more.
    if (this.store !== undefined && live.checkAt <= this.clock.now()) return RESTORE;
    return this.admit(live, res, authInfo);
  }

  async lookup(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo): Promise<LiveSession | undefined> {
    const id = req.header('mcp-session-id');
    if (!id) {
      sendError(res, 400, 'Bad Request: Mcp-Session-Id header is required (initialize first)');
      return undefined;
    }
    const held = this.sessions.get(id);
    if (!held) {
      let restored: LiveSession | undefined;
      try {
        restored = await this.restore(id);
      } catch (e) {
        // The shared store is away: say so, at once (a 404 would make the client start over).
        this.server.onerror(asError(e));
        sendError(res, 503, `Service Unavailable: the session store cannot be reached (${asError(e).message}); retry shortly`, -32603, { 'retry-after': '1' });
        return undefined;
      }
      return this.admit(restored, res, authInfo);
    }
    // Only its owner's requests check (and so keep alive) a session; checkAt is Infinity without a store.
    if (held.principal === authInfo?.principal && held.checkAt <= this.clock.now()) return this.admit(await this.recheck(held), res, authInfo);
    return this.admit(held, res, authInfo);
  }

  private admit(live: LiveSession | undefined, res: HttpResponder, authInfo?: AuthInfo): LiveSession | undefined {
    // A session belongs to whoever opened it; to anyone else it does not exist.
    if (!live || live.principal !== authInfo?.principal) {
      sendError(res, 404, 'Not Found: session not found or expired; initialize a new session');
      return undefined;
    }
    live.lastSeen = this.clock.now();
    return live;
  }

  /** A session another instance opened: serve it here under what its handshake negotiated. */
  private async restore(id: string): Promise<LiveSession | undefined> {
    this.restoring.set(id, (this.restoring.get(id) ?? 0) + 1);
    try {
      const live = await this.restoreNow(id);
      // Ended elsewhere while the store was read (it answered before the delete): not served here.
      if (live && this.endedWhileRestoring.has(id)) {
        this.drop(live);
        return undefined;
      }
      return live;
    } finally {
      const n = (this.restoring.get(id) ?? 1) - 1;
      if (n > 0) this.restoring.set(id, n);
      else {
        this.restoring.delete(id);
        this.endedWhileRestoring.delete(id);
      }
    }
  }

  private async restoreNow(id: string): Promise<LiveSession | undefined> {
    const record = await this.store?.get(id);
    if (!record || this.sessions.has(id)) return this.sessions.get(id);
    const live = await this.open(record.principal === undefined ? undefined : { principal: record.principal }, id);
    live.session.era.assume({
      era: 'handshake',
      protocolVersion: record.protocolVersion,
      clientCapabilities: record.clientCapabilities,
      clientInfo: record.clientInfo,
    });
    live.checkAt = this.clock.now() + this.checkMs;
    return live;
  }

  /**
   * Asks the store whether a session held here still exists, pushing its record's expiry back
   * (`touch`; a store without it is asked with `get`, which extends nothing). Gone means deleted
   * on another instance (or expired): the session ends here too, and the caller answers 404.
   */
  private async recheck(live: LiveSession): Promise<LiveSession | undefined> {
    const store = this.store!;
    // Moved before asking: requests arriving meanwhile go on without a round trip of their own.
    live.checkAt = this.clock.now() + this.checkMs;
    let exists: boolean;
    try {
      exists = store.touch ? await store.touch(live.id, this.ttlMs) : (await store.get(live.id)) !== undefined;
    } catch (e) {
      // The store is unreachable: what this instance holds keeps working, as without a store.
      this.server.onerror(asError(e));
      return live;
    }
    if (this.sessions.get(live.id) !== live) return undefined; // ended here meanwhile
    if (exists) return live;
    this.drop(live);
    return undefined;
  }

  /** Remembers a newly initialized session in the shared store, if there is one. */
  remember(live: LiveSession): void {
    const env = live.session.era.envelope;
    const store = this.store;
    if (!store || !env) return;
    const record: SessionRecord = { protocolVersion: env.protocolVersion, clientCapabilities: env.clientCapabilities };
    if (env.clientInfo) record.clientInfo = env.clientInfo;
    if (live.principal !== undefined) record.principal = live.principal;
    void this.write(store, live, record);
  }

  private async write(store: SessionStore, live: LiveSession, record: SessionRecord): Promise<void> {
    try {
      await store.set(live.id, record, this.ttlMs);
      // Checked only from now on: before the record is written, the store would say it is gone.
      // (If writing failed, the session stays unchecked: held here only, as without a store.)
      live.checkAt = this.clock.now() + this.checkMs;
    } catch (e) {
      this.server.onerror(asError(e));
    }
  }

  async open(authInfo?: AuthInfo, id: string = globalThis.crypto.randomUUID()): Promise<LiveSession> {
    const transport = new HttpSessionTransport();
    const session = await this.server.connect(transport);
    const headers = { 'mcp-session-id': id };
    const jsonHeaders = { 'mcp-session-id': id, 'content-type': 'application/json' };
    const streamPrefix = `${id}/${this.tag}.`;
    const live: LiveSession = {
      id,
      transport,
      session,
      principal: authInfo?.principal,
      lastSeen: this.clock.now(),
      streams: 0,
      streamPrefix,
      headers,
      jsonHeaders,
      checkAt: Infinity,
    };
    this.sessions.set(id, live);
    session.onClose(() => {
      if (this.sessions.get(id) === live) this.sessions.delete(id);
      // Its event logs can never be resumed now (resuming needs the session): free them. Only
      // this handler's streams: other instances serving the session keep theirs. Not when the
      // handler shuts down with a shared store: the session lives on elsewhere, and its clients
      // resume there.
      if (!this.closing || !this.store) for (let n = 1; n <= live.streams; n++) this.eventStore?.dropStream?.(streamPrefix + n);
    });
    return live;
  }

  /**
   * With a store: ends here the sessions DELETEd on other instances, as their announcements
   * arrive. Returns the function that stops listening. The bus may be joined after the handler is
   * built (`share`): listening costs nothing meanwhile.
   */
  followEnds(): (() => void) | undefined {
    if (!this.store) return undefined;
    return this.server.onHostRelay(SESSION_ENDED, (d) => {
      if (typeof d.id === 'string') this.end(d.id);
    });
  }

  /**
   * A DELETE: an explicit end (a logout), for every instance at once. Ended here, forgotten in the
   * shared store (so that no instance restores it again), then announced to the instances holding
   * it, which end it now rather than at their next store check. Resolves once the bus has it.
   */
  async logout(live: LiveSession): Promise<void> {
    this.drop(live);
    const store = this.store;
    if (!store) return;
    try {
      await store.delete(live.id);
    } finally {
      await this.server.relayHostSent(SESSION_ENDED, { id: live.id });
    }
  }

  /**
   * A session ended on another instance (a DELETE there, announced over the bus): its streams
   * and state here end now, and the store (deleted before the announcement) refuses it from now
   * on, so the next request for it here is a 404.
   */
  end(id: string): void {
    const live = this.sessions.get(id);
    if (live) this.drop(live);
    if (this.restoring.has(id)) this.endedWhileRestoring.add(id);
  }

  drop(live: LiveSession): void {
    if (this.sessions.get(live.id) === live) this.sessions.delete(live.id);
    void live.session.close();
  }

  /** Ends idle sessions; checks busy ones against the store, which their requests no longer do. */
  sweep(): void {
    const now = this.clock.now();
    const cutoff = now - this.idleMs;
    for (const live of this.sessions.values()) {
      const idle = live.lastSeen < cutoff;
      const due = this.store !== undefined && live.checkAt <= now;
      if (!idle && !due) continue;
      // Not idle while a request is still running (a JSON response streams nothing meanwhile)
      // or a client is reading one of its streams.
      const t = live.transport;
      const busy = t.openChannels.some((c) => c.connected || c !== t.standalone);
      if (!busy) {
        if (idle) this.drop(live);
      } else if (due) {
        // Kept alive by a stream or a long request: its record must not expire meanwhile, and a
        // DELETE elsewhere must reach it.
        void this.recheck(live);
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.sessions.values()].map((l) => l.session.close()));
    this.sessions.clear();
  }
}
