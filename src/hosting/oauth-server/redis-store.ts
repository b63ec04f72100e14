/**
 * The authorization server's state in Redis, so that every instance behind a load balancer can
 * redeem a code or a refresh token another one issued: one key per record, `SET … PX` for expiry,
 * and `GETDEL` (Redis 6.2+) for `take`, which is atomic on the server. Takes any client through
 * the same raw-command door as the other Redis stores (src/state/redis/client.ts).
 */
import { checkPrefix, replyText, toCommand, ttlArg, type RedisClientLike, type RedisCommand } from '../../state/redis/client.js';
import type { AuthorizationStore } from './store.js';

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
