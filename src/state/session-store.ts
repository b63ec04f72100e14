import { systemClock, type Clock } from '../engine/clock.js';
import type { ClientCapabilities, Implementation } from '../protocol/types.js';

/** What another instance needs to go on serving a handshake-era session. */
export interface SessionRecord {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** Who opened it: nobody else may use it. */
  principal?: string;
}

/**
 * Where handshake-era HTTP sessions are remembered beyond one process, so that any instance
 * behind a load balancer can serve a session another one opened. Live streams stay with the
 * instance that holds them; only what the handshake negotiated is shared.
 */
export interface SessionStore {
  get(id: string): Promise<SessionRecord | undefined> | SessionRecord | undefined;
  /** `ttlMs`: forget the session after this long without a `set` or `touch`. */
  set(id: string, record: SessionRecord, ttlMs: number): Promise<void> | void;
  delete(id: string): Promise<void> | void;
  /**
   * Keeps a session in use from expiring: its record now lives `ttlMs` from now. False when there
   * is no such session (deleted or expired), which tells an instance holding it to end it too.
   * Optional: without it the HTTP core checks with `get`, and records expire `ttlMs` after `set`.
   */
  touch?(id: string, ttlMs: number): Promise<boolean> | boolean;
}

/** The in-process store: a Map with expiry, for tests and single-process multi-handler setups. */
export class InMemorySessionStore implements SessionStore {
  private readonly records = new Map<string, { record: SessionRecord; expires: number }>();
  private readonly clock: Clock;

  /** `clock`: where expiry reads the time (default the system clock; tests pass a ManualClock). */
  constructor(options: { clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
  }

  get(id: string): SessionRecord | undefined {
    const e = this.records.get(id);
    if (!e) return undefined;
    if (e.expires < this.clock.now()) {
      this.records.delete(id);
      return undefined;
    }
    return e.record;
  }

  set(id: string, record: SessionRecord, ttlMs: number): void {
    this.records.set(id, { record, expires: this.clock.now() + ttlMs });
  }

  touch(id: string, ttlMs: number): boolean {
    const e = this.records.get(id);
    if (!e) return false;
    const now = this.clock.now();
    if (e.expires < now) {
      this.records.delete(id);
      return false;
    }
    e.expires = now + ttlMs;
    return true;
  }

  delete(id: string): void {
    this.records.delete(id);
  }

  get size(): number {
    return this.records.size;
  }
}
