// Rate limits and quotas. Rules say which calls count and how many are allowed; a counter keeps
// the numbers: MemoryCounter in this process (driven by an injectable clock), RedisCounter
// (redis-counter.ts) shared by every gateway instance that names the same Redis and prefix.
import { systemClock, type Clock } from '../../engine/clock.js';
import type { Admission, CallerIdentity, GatewayItem } from '../policy-types.js';
import type { LimitRule } from './config.js';
import { CallerCondition, kindMatches, NameSet } from './match.js';

/** How a counter counts: a fixed window of `limit` calls, or a bucket of `capacity` tokens refilled at `perMs` a millisecond. */
export type LimitSpec = { kind: 'window'; limit: number; windowMs: number } | { kind: 'bucket'; capacity: number; perMs: number };

export interface LimitDecision {
  ok: boolean;
  /** When refused: how long until a call could pass. */
  retryAfterMs: number;
  /** Set when the counter itself failed and refused (a Redis counter configured to fail closed). */
  reason?: string;
}

/** Where the numbers live. `take` counts one call under `key` and says whether it passes. */
export interface LimitCounter {
  /** The decision, or a promise of it where the counter is elsewhere (Redis). */
  take(key: string, spec: LimitSpec): LimitDecision | Promise<LimitDecision>;
  close?(): Promise<void>;
}

type State = { count: number; resetAt: number } | { tokens: number; at: number };

/** Counts in this process's memory: right for one gateway instance, and for tests with a ManualClock. */
export class MemoryCounter implements LimitCounter {
  private readonly clock: Clock;
  private readonly states = new Map<string, State>();
  private takes = 0;

  constructor(options: { clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
  }

  /** Counters held (spent windows and refilled buckets are dropped as calls come). */
  get size(): number {
    return this.states.size;
  }

  take(key: string, spec: LimitSpec): LimitDecision {
    return this.takeNow(key, spec);
  }

  /** The synchronous core of `take`. */
  takeNow(key: string, spec: LimitSpec): LimitDecision {
    const now = this.clock.now();
    if (++this.takes % 1024 === 0) this.sweep(now);
    const prior = this.states.get(key);
    if (spec.kind === 'window') {
      let s = prior as { count: number; resetAt: number } | undefined;
      if (!s || !('count' in s) || now >= s.resetAt) {
        s = { count: 0, resetAt: now + spec.windowMs };
        this.states.set(key, s);
      }
      if (s.count >= spec.limit) return { ok: false, retryAfterMs: Math.max(1, s.resetAt - now) };
      s.count++;
      return { ok: true, retryAfterMs: 0 };
    }
    let s = prior as { tokens: number; at: number } | undefined;
    if (!s || !('tokens' in s)) {
      s = { tokens: spec.capacity, at: now };
      this.states.set(key, s);
    }
    s.tokens = Math.min(spec.capacity, s.tokens + Math.max(0, now - s.at) * spec.perMs);
    s.at = now;
    if (s.tokens >= 1) {
      s.tokens -= 1;
      return { ok: true, retryAfterMs: 0 };
    }
    return { ok: false, retryAfterMs: Math.max(1, Math.ceil((1 - s.tokens) / spec.perMs)) };
  }

  /** Drops what would read as new anyway: windows past their end (buckets are kept; they are few per caller). */
  private sweep(now: number): void {
    for (const [k, s] of this.states) if ('resetAt' in s && now >= s.resetAt) this.states.delete(k);
  }
}

interface CompiledRule {
  name: string;
  when: CallerCondition;
  kinds: LimitRule['kinds'];
  items: NameSet;
  per: NonNullable<LimitRule['per']>;
  spec: LimitSpec;
  /** For refusals: "60 calls per 60s". */
  says: string;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

export function specOf(rule: LimitRule): LimitSpec {
  if (rule.tokenBucket) return { kind: 'bucket', capacity: rule.tokenBucket.capacity, perMs: rule.tokenBucket.refillPerSecond / 1000 };
  return { kind: 'window', limit: rule.limit ?? 0, windowMs: rule.windowMs ?? 1000 };
}

/** Key parts are escaped so that ids holding `:` cannot collide with other keys. */
const part = (s: string): string => encodeURIComponent(s);

/** The rules of a `limits` section over one counter. */
export class Limits {
  private readonly rules: CompiledRule[];

  constructor(
    rules: readonly LimitRule[],
    private readonly counter: LimitCounter,
  ) {
    this.rules = rules.map((rule, i) => {
      const spec = specOf(rule);
      return {
        name: rule.name ?? `rule${i}`,
        when: new CallerCondition(rule.when),
        kinds: rule.kinds,
        items: new NameSet(rule.items),
        per: rule.per ?? 'caller',
        spec,
        says:
          spec.kind === 'window'
            ? `${spec.limit} call${spec.limit === 1 ? '' : 's'} per ${seconds(spec.windowMs)}`
            : `bursts of ${spec.capacity}, ${rule.tokenBucket!.refillPerSecond} a second`,
      };
    });
  }

  /**
   * Counts the call against every rule that applies, in order, and stops at the first refusal
   * (a refused call still counts against the rules before it: the counters are not transactional).
   */
  admit(caller: CallerIdentity, item: GatewayItem, from = 0): Admission | Promise<Admission> {
    for (let i = from; i < this.rules.length; i++) {
      const r = this.rules[i]!;
      if (!kindMatches(r.kinds, item) || !r.items.has(item.name) || !r.when.matches(caller)) continue;
      const key =
        r.per === 'caller'
          ? `${r.name}:${part(caller.id)}`
          : r.per === 'item'
            ? `${r.name}:${item.kind}:${part(item.name)}`
            : `${r.name}:${part(caller.id)}:${item.kind}:${part(item.name)}`;
      const d = this.counter.take(key, r.spec);
      // In memory the decision is at hand; from Redis the rest of the rules wait for it.
      if (d instanceof Promise) return d.then((got) => (got.ok ? this.admit(caller, item, i + 1) : refusal(r, item, got)));
      if (!d.ok) return refusal(r, item, d);
    }
    return ADMITTED;
  }
}

const ADMITTED: Admission = { ok: true };

function refusal(r: CompiledRule, item: GatewayItem, d: LimitDecision): Admission {
  const scope = r.per === 'caller' ? '' : ` for ${item.name}${r.per === 'item' ? ' (all callers)' : ''}`;
  return {
    ok: false,
    reason: d.reason ?? `Rate limit "${r.name}" reached${scope} (${r.says}); retry in ${Math.ceil(d.retryAfterMs / 1000)}s`,
    retryAfterMs: d.retryAfterMs,
  };
}
