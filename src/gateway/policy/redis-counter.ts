// Limit counters in Redis, so that every gateway instance behind a load balancer counts against
// the same numbers. Each count is one Lua script: read, decide and write happen atomically in
// Redis, and time is Redis's own (`TIME`), so instances with drifting clocks still agree.
//
// A limiter must not take the gateway down with it: when Redis errs or answers later than
// `timeoutMs`, the call is admitted (`onError: 'open'`, the default) or refused (`'closed'`), and
// the outage is logged once when it starts and once when it ends, not once per call.
import { systemClock, type Clock } from '../../engine/clock.js';
import { asError, checkPrefix, toCommand, type RedisClientLike, type RedisCommand } from '../../state/redis/client.js';
import type { LimitCounter, LimitDecision, LimitSpec } from './limits.js';

/** KEYS[1] counter; ARGV limit, windowMs. Refused calls count too, but never extend the window. */
const WINDOW = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
if n > tonumber(ARGV[1]) then return {0, ttl} end
return {1, 0}`;

/** KEYS[1] bucket hash {t: tokens, at: ms}; ARGV capacity, tokens per ms. */
const BUCKET = `
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(s[1])
local at = tonumber(s[2])
if tokens == nil or at == nil then tokens = cap; at = now end
tokens = math.min(cap, tokens + math.max(0, now - at) * rate)
local ok = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
else
  wait = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(cap / rate) + 1000)
return {ok, wait}`;

export interface RedisCounterOptions {
  /** An ioredis or node-redis client, a raw command function, or a promise of one (a client still loading). */
  client: RedisClientLike | Promise<RedisClientLike>;
  /** Prefix of every key. Default `mcpkit:gw:limit:`. */
  keyPrefix?: string;
  /** When Redis fails or is slow: `open` admits, `closed` refuses. Default `open`. */
  onError?: 'open' | 'closed';
  /** How long a count may take before it counts as failed. Default 500. */
  timeoutMs?: number;
  /** How long a refused caller is told to wait while Redis is out (fail closed). Default 1000. */
  unavailableRetryMs?: number;
  /** Arms the timeouts (tests pass a ManualClock). */
  clock?: Clock;
  /** Where the outage lines go. Default: standard error. */
  log?: (line: string) => void;
}

class Timeout extends Error {}

export class RedisCounter implements LimitCounter {
  private readonly command: Promise<RedisCommand>;
  private readonly prefix: string;
  private readonly failOpen: boolean;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private readonly clock: Clock;
  private readonly log: (line: string) => void;
  private outage: { since: number; failures: number } | undefined;

  constructor(options: RedisCounterOptions) {
    this.prefix = checkPrefix(options.keyPrefix ?? 'mcpkit:gw:limit:');
    this.failOpen = (options.onError ?? 'open') === 'open';
    this.timeoutMs = options.timeoutMs ?? 500;
    this.retryMs = options.unavailableRetryMs ?? 1000;
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.command = Promise.resolve(options.client).then(toCommand);
    // A client that fails to load is reported at the first count; until then it must not crash the process.
    this.command.catch(() => {});
  }

  /** Whether the last count failed (Redis down, slow, or its client missing). */
  get failing(): boolean {
    return this.outage !== undefined;
  }

  async take(key: string, spec: LimitSpec): Promise<LimitDecision> {
    const full = this.prefix + key;
    const args =
      spec.kind === 'window'
        ? ['EVAL', WINDOW, '1', full, String(spec.limit), String(Math.ceil(spec.windowMs))]
        : ['EVAL', BUCKET, '1', full, String(spec.capacity), String(spec.perMs)];
    let reply: unknown;
    try {
      reply = await this.withTimeout(this.command.then((command) => command(args, full)));
    } catch (e) {
      return this.failed(e);
    }
    if (!Array.isArray(reply) || reply.length !== 2) return this.failed(new Error(`unexpected reply ${JSON.stringify(reply)}`));
    if (this.outage) {
      this.log(`[mcpkit/gateway] rate limits: Redis answers again after ${this.outage.failures} failed count(s); limits are enforced again`);
      this.outage = undefined;
    }
    const ok = Number(reply[0]) === 1;
    return { ok, retryAfterMs: ok ? 0 : Math.max(1, Number(reply[1])) };
  }

  private withTimeout<T>(p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => reject(new Timeout(`no answer within ${this.timeoutMs}ms`)), this.timeoutMs);
      p.then(
        (v) => {
          this.clock.clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          this.clock.clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  private failed(e: unknown): LimitDecision {
    if (!this.outage) {
      this.outage = { since: this.clock.now(), failures: 0 };
      const err = asError(e);
      this.log(
        `[mcpkit/gateway] rate limits: Redis failed (${err.message}); calls are ${this.failOpen ? 'admitted without limits (onError: open)' : 'refused (onError: closed)'} until it answers again`,
      );
    }
    this.outage.failures++;
    return this.failOpen
      ? { ok: true, retryAfterMs: 0 }
      : { ok: false, retryAfterMs: this.retryMs, reason: 'Rate limits cannot be checked right now; try again shortly' };
  }
}

/** What `import('ioredis')` gives, as far as this file uses it. */
interface IoRedisModule {
  Redis?: IoRedisClass;
  default?: IoRedisClass;
}
type IoRedisClass = new (
  url: string,
  options: Record<string, unknown>,
) => {
  call(command: string, args: string[]): Promise<unknown>;
  on(event: 'error', listener: (e: Error) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
};

export interface LoadedRedis {
  client: Promise<RedisClientLike>;
  close(): Promise<void>;
}

/**
 * Connects to `url` with ioredis, loaded on demand (it is an optional peer of mcpkit). The client
 * keeps reconnecting on its own; its socket errors are left to the counter's outage log.
 */
export function loadRedis(url: string, importRedis: () => Promise<unknown> = () => import('ioredis')): LoadedRedis {
  let made: InstanceType<IoRedisClass> | undefined;
  let closed = false;
  const client = importRedis().then(
    (mod) => {
      const Ctor = (mod as IoRedisModule).Redis ?? (mod as IoRedisModule).default;
      if (typeof Ctor !== 'function') throw new Error('the "ioredis" module has no Redis class');
      if (closed) throw new Error('closed');
      made = new Ctor(url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
      made.on('error', () => {});
      return made;
    },
    (e: unknown) => {
      throw new Error(`counting limits in Redis needs the "ioredis" package, which could not be loaded (${asError(e).message}): run \`npm i ioredis\``);
    },
  );
  client.catch(() => {});
  return {
    client,
    async close() {
      closed = true;
      await made?.quit().catch(() => made?.disconnect());
    },
  };
}
