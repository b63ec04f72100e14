/**
 * The Redis stores need a handful of commands and nothing else from a client library, so they
 * take any client through its raw-command door instead of importing one. That keeps `redis` and
 * `ioredis` out of mcpkit's dependency tree and lets users pass whichever they already run.
 */

/**
 * Sends one command, e.g. `['SET', key, value, 'PX', '1000']`, and resolves with the raw reply.
 * `key` is the one key the command touches (every command the stores send has exactly one), for
 * clients that route by key, such as a node-redis cluster: `(args, key) => cluster.sendCommand(key, false, args)`.
 */
export type RedisCommand = (args: string[], key: string) => Promise<unknown>;

/** ioredis (v5, v6), `Redis` and `Cluster` alike: `call(command, args)`. */
export interface IoRedisLike {
  call(command: string, args: string[]): Promise<unknown>;
}

/** node-redis (`redis` v4 to v6) client: `sendCommand(args)`. */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/** What the Redis stores accept as `client`. */
export type RedisClientLike = IoRedisLike | NodeRedisLike | RedisCommand;

/** Turns any accepted client into one command function. */
export function toCommand(client: RedisClientLike): RedisCommand {
  // Wrapped so that a function that throws (not rejects) still fails as a promise.
  if (typeof client === 'function') return async (args, key) => client(args, key);
  // ioredis has a `sendCommand` too, but it takes a Command object: `call` must win.
  if (typeof (client as Partial<IoRedisLike>).call === 'function') {
    const io = client as IoRedisLike;
    return (args) => io.call(args[0], args.slice(1));
  }
  if (typeof (client as Partial<NodeRedisLike>).sendCommand === 'function') {
    const nr = client as NodeRedisLike;
    return (args) => nr.sendCommand(args);
  }
  throw new TypeError('client must be an ioredis client, a node-redis client, or a function (args: string[]) => Promise<reply>');
}

/** Milliseconds for `PX`/`PEXPIRE`: a positive whole number, or the caller made a mistake. */
export function ttlArg(ttlMs: number, what: string): string {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`${what} must be a positive number of milliseconds, got ${String(ttlMs)}`);
  }
  return String(Math.ceil(ttlMs));
}

/** Replies arrive as strings from both libraries by default; Buffers when a user configured them so. */
export function replyText(reply: unknown): string | undefined {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength).toString('utf8');
  return undefined;
}

/** Key prefix check: it namespaces every key, so an empty or odd one is refused early. */
export function checkPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > 128) {
    throw new TypeError('keyPrefix must be a non-empty string of at most 128 characters');
  }
  return prefix;
}

export function defaultOnError(e: Error): void {
  process.stderr.write(`[mcpkit/redis] ${e.stack ?? e.message}\n`);
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
