/**
 * Where the authorization server keeps what must outlive one request: authorization codes,
 * refresh tokens and their families, dynamic registrations, and sign-ins waiting for an upstream
 * identity provider. A small key-value contract with expiry and one atomic operation, `take`
 * (read and delete at once), which is what makes a code or a refresh token usable exactly once
 * even with several instances sharing the store, and one optional one, `reserve`, which counts
 * dynamic registrations against their bound. Values are JSON; keys are chosen by the server
 * (secrets are stored under their SHA-256 digest, never as they are).
 */
import { systemClock, type Clock } from '../../engine/clock.js';

export interface AuthorizationStore {
  /** Stores `value` (JSON-serialisable) under `key`; `ttlMs` undefined keeps it until deleted. */
  put(key: string, value: unknown, ttlMs?: number): Promise<void> | void;
  get(key: string): Promise<unknown> | unknown;
  /** Reads and deletes in one step: of two concurrent takes of one key, only one gets the value. */
  take(key: string): Promise<unknown> | unknown;
  delete(key: string): Promise<void> | void;
  /**
   * Keeps `member` in the bounded set `set` until `ttlMs` from now, atomically: true when it was
   * already there (its time is extended, never shortened) or the set had room (fewer than `max`
   * live members); false when the set is full. Dynamic registrations are counted with it, so a
   * store shared by several instances bounds them all together. Optional: without it each
   * instance counts its own registrations (the bound is then per instance).
   */
  reserve?(set: string, member: string, ttlMs: number, max: number): Promise<boolean> | boolean;
}

/** Bounded sets of members with expiry, in this process: `reserve` of the in-memory store, and the per-instance fallback. */
export class BoundedSets {
  private readonly sets = new Map<string, { members: Map<string, number>; nextExpiry: number }>();

  constructor(private readonly clock: Clock) {}

  reserve(set: string, member: string, ttlMs: number, max: number): boolean {
    if (!(ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${ttlMs}`);
    const now = this.clock.now();
    let s = this.sets.get(set);
    if (!s) this.sets.set(set, (s = { members: new Map(), nextExpiry: Infinity }));
    const expires = now + ttlMs;
    const current = s.members.get(member);
    if (current !== undefined && current > now) {
      s.members.set(member, Math.max(current, expires));
      return true;
    }
    // Full as far as we know: drop the expired ones first (only when one can have expired).
    if (s.members.size >= max && s.nextExpiry <= now) {
      let next = Infinity;
      for (const [m, at] of s.members) {
        if (at <= now) s.members.delete(m);
        else next = Math.min(next, at);
      }
      s.nextExpiry = next;
    }
    if (s.members.size >= max) return false;
    s.members.set(member, expires);
    s.nextExpiry = Math.min(s.nextExpiry, expires);
    return true;
  }

  /** Live members of `set` (for inspection and tests). */
  count(set: string): number {
    const now = this.clock.now();
    let n = 0;
    for (const at of this.sets.get(set)?.members.values() ?? []) if (at > now) n++;
    return n;
  }
}

/**
 * The in-process store: a Map with expiry (checked on read and swept as it grows). Values are
 * kept as JSON text, so that what comes back is a copy, exactly as from a remote store.
 */
export class InMemoryAuthorizationStore implements AuthorizationStore {
  private readonly entries = new Map<string, { json: string; expires: number }>();
  private readonly clock: Clock;
  private sweepAt = 1024;
  private readonly bounded: BoundedSets;

  /** `clock`: where expiry reads the time (default the system clock; tests pass a ManualClock). */
  constructor(options: { clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
    this.bounded = new BoundedSets(this.clock);
  }

  reserve(set: string, member: string, ttlMs: number, max: number): boolean {
    return this.bounded.reserve(set, member, ttlMs, max);
  }

  /** Live members of a bounded set (for inspection and tests). */
  reserved(set: string): number {
    return this.bounded.count(set);
  }

  put(key: string, value: unknown, ttlMs?: number): void {
    if (ttlMs !== undefined && !(ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${ttlMs}`);
    this.entries.set(key, { json: JSON.stringify(value), expires: ttlMs === undefined ? Infinity : this.clock.now() + ttlMs });
    if (this.entries.size >= this.sweepAt) this.sweep();
  }

  get(key: string): unknown {
    const e = this.live(key);
    return e === undefined ? undefined : JSON.parse(e.json);
  }

  take(key: string): unknown {
    const e = this.live(key);
    if (e === undefined) return undefined;
    this.entries.delete(key);
    return JSON.parse(e.json);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private live(key: string): { json: string } | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.expires <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Expired entries nobody reads again would stay forever: drop them when the map doubles. */
  private sweep(): void {
    const now = this.clock.now();
    for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
    this.sweepAt = Math.max(1024, this.entries.size * 2);
  }
}

/** SHA-256 of a secret, base64url: the key it is stored under, so a leaked store leaks no usable secret. */
export async function digest(secret: string): Promise<string> {
  const bytes = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret)));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
