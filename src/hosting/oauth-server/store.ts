/**
 * Where the authorization server keeps what must outlive one request: authorization codes,
 * refresh tokens and their families, dynamic registrations, and sign-ins waiting for an upstream
 * identity provider. A small key-value contract with expiry and one atomic operation, `take`
 * (read and delete at once), which is what makes a code or a refresh token usable exactly once
 * even with several instances sharing the store. Values are JSON; keys are chosen by the server
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
}

/**
 * The in-process store: a Map with expiry (checked on read and swept as it grows). Values are
 * kept as JSON text, so that what comes back is a copy, exactly as from a remote store.
 */
export class InMemoryAuthorizationStore implements AuthorizationStore {
  private readonly entries = new Map<string, { json: string; expires: number }>();
  private readonly clock: Clock;
  private sweepAt = 1024;

  /** `clock`: where expiry reads the time (default the system clock; tests pass a ManualClock). */
  constructor(options: { clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
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
