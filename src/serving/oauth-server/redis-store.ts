/**
 * The authorization server's state in Redis, so that every instance behind a load balancer can
 * redeem a code or a refresh token another one issued: one key per record, `SET … PX` for expiry,
 * and `GETDEL` (Redis 6.2+) for `take`, which is atomic on the server. A bounded set (`reserve`,
 * which counts dynamic registrations) is one sorted set of members scored by their expiry, kept
 * by a Lua script on Redis's own clock, so instances with drifting clocks agree; the set key
 * itself expires with its last member. Every command touches one key (cluster-safe). Takes any
 * client through the same raw-command door as the other Redis stores (src/state/redis/client.ts).
 */
import { checkPrefix, replyText, toCommand, ttlArg, type RedisClientLike, type RedisCommand } from '../../state/redis/client.js';
import type { AuthorizationStore } from './store.js';

/**
 * KEYS[1] the sorted set; ARGV member, ttlMs, max. Drops expired members, then admits or extends
 * the member (never shortening it) when it is there or there is room. 1 admitted, 0 full.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local expires = now + tonumber(ARGV[2])
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if current then
  expires = math.max(expires, tonumber(current))
elseif redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], string.format('%.0f', expires), ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1`;

export interface RedisAuthorizationStoreOptions {
  /** An ioredis or node-redis client (connected), or a raw command function. */
  client: RedisClientLike;
  /** Namespace of every key: `<prefix>as:<key>`. Default 'mcpkit:'. */
  keyPrefix?: string;
}

export class RedisAuthorizationStore implements AuthorizationStore {
  private readonly command: RedisCommand;
  private readonly prefix: string;

  constructor(options: RedisAuthorizationStoreOptions) {
    this.command = toCommand(options.client);
    this.prefix = `${checkPrefix(options.keyPrefix ?? 'mcpkit:')}as:`;
  }

  /** The Redis key of a record (for inspection and tests). */
  key(key: string): string {
    return this.prefix + key;
  }

  async put(key: string, value: unknown, ttlMs?: number): Promise<void> {
    const k = this.key(key);
    const args = ['SET', k, JSON.stringify(value)];
    if (ttlMs !== undefined) args.push('PX', ttlArg(ttlMs, 'ttlMs'));
    await this.command(args, k);
  }

  async get(key: string): Promise<unknown> {
    const k = this.key(key);
    return parse(replyText(await this.command(['GET', k], k)));
  }

  async take(key: string): Promise<unknown> {
    const k = this.key(key);
    return parse(replyText(await this.command(['GETDEL', k], k)));
  }

  async delete(key: string): Promise<void> {
    const k = this.key(key);
    await this.command(['DEL', k], k);
  }

  async reserve(set: string, member: string, ttlMs: number, max: number): Promise<boolean> {
    const k = this.setKey(set);
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a positive whole number, got ${String(max)}`);
    return Number(await this.command(['EVAL', RESERVE, '1', k, member, ttlArg(ttlMs, 'ttlMs'), String(max)], k)) === 1;
  }

  /** The Redis key of a bounded set (a sorted set of members scored by expiry; for inspection and tests). */
  setKey(set: string): string {
    return `${this.prefix}set:${set}`;
  }
}

/** A value that is not JSON (another program's key) is no record at all. */
function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
