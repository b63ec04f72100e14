// `mcpkit serve --redis URL`: the Redis stores of mcpkit/redis behind one flag, so that several
// `mcpkit serve` processes behind a load balancer serve the same clients. ioredis is an optional
// peer, loaded with import() only when asked for; a missing one is a one-line install hint.
import type { HealthOptions } from '../serving/http/lifecycle.js';
import type { ServeOptions } from '../serving/node.js';
import type { Server } from '../server/server.js';
import { RedisBus } from '../state/redis/bus.js';
import { RedisEventStore } from '../state/redis/event-store.js';
import { RedisInstanceLease } from '../state/redis/lease.js';
import { RedisSessionStore } from '../state/redis/session-store.js';
import { RedisTaskStore } from '../state/redis/task-store.js';
import { CommandError, seconds, str, UsageError, type OptionSpecs } from './args.js';
import type { CliIo } from './io.js';

export const REDIS_OPTIONS: OptionSpecs = {
  redis: { type: 'string' },
  'redis-prefix': { type: 'string' },
  'redis-lease': { type: 'string' },
  'session-check': { type: 'string' },
  'shutdown-grace': { type: 'string' },
};

export const REDIS_HELP = `Running several instances (docs/scaling.md):
  --redis URL              keep sessions, stream events, tasks and notifications in Redis
                           (also REDIS_URL), so instances behind a load balancer share them;
                           needs ioredis (npm i ioredis)
  --redis-prefix PREFIX    namespace of every Redis key (default mcpkit:)
  --redis-lease SECS       an instance silent this long counts as gone: what it left running
                           fails elsewhere (default 15)
  --session-check SECS     how often an instance asks Redis whether a session it holds still
                           exists (default a tenth of --session-timeout, at most 10; 0: every
                           request). A DELETE (logout) ends the session on every instance at
                           once over the bus; this check is the fallback.
  --shutdown-grace SECS    on SIGTERM/SIGINT, how long running requests may finish (default 10)
  Probes: GET /healthz (200 while running), GET /readyz (503 while Redis is unreachable or
  while shutting down).
`;

type Values = Parameters<typeof str>[0];

/** The ioredis client as far as this file uses it. */
interface IoRedisClient {
  status: string;
  connect(): Promise<void>;
  duplicate(): IoRedisClient;
  quit(): Promise<unknown>;
  disconnect(): void;
  call(command: string, args: string[]): Promise<unknown>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
}
type IoRedisConstructor = new (url: string, options: Record<string, unknown>) => IoRedisClient;

export const IOREDIS_MISSING = 'serve --redis: needs the ioredis package, which is not installed: run "npm i ioredis" where mcpkit is installed';

/** Loads ioredis (`load` is for tests); missing, a CommandError with the install line. */
export async function importIoRedis(load: (name: string) => Promise<unknown> = (name) => import(name)): Promise<IoRedisConstructor> {
  let mod: { Redis?: IoRedisConstructor; default?: IoRedisConstructor };
  try {
    mod = (await load('ioredis')) as typeof mod;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new CommandError(IOREDIS_MISSING, { cause: err });
    throw err;
  }
  const ctor = mod.Redis ?? mod.default;
  if (typeof ctor !== 'function') throw new CommandError('serve --redis: the installed ioredis exports no Redis class (ioredis 5 or 6 is needed)');
  return ctor;
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** How long running requests may finish on SIGTERM/SIGINT (`--shutdown-grace`), in ms. */
export function shutdownGraceMs(values: Values): number {
  return seconds(values, 'shutdown-grace', 10, 0, 3600) * 1000;
}

/** The Redis URL from --redis or REDIS_URL, or undefined for a single instance. */
export function redisUrl(values: Values, env: Record<string, string | undefined>): string | undefined {
  const url = str(values, 'redis') ?? (env.REDIS_URL || undefined);
  if (url === undefined) return undefined;
  if (!/^rediss?:\/\//.test(url)) throw new UsageError(`--redis: expected a redis:// or rediss:// URL, got "${url}"`);
  return url;
}

/** What `--redis` adds to a running server: stores, probes, and how to let go of Redis. */
export interface ScaledOut {
  /** The URL as it may be shown (no password). */
  readonly url: string;
  readonly instanceId: string;
  /** serve()'s options: the session and event stores, and probes gated on Redis. */
  readonly options: Pick<ServeOptions, 'sessionStore' | 'eventStore' | 'sessionCheckMs'> & { health: HealthOptions };
  /** Puts the server on the bus and its tasks in Redis. */
  share(server: Server): void;
  /** Gives the lease up (what this instance left running fails elsewhere at once) and disconnects. */
  close(): Promise<void>;
}

/** Connects to Redis (failing at once when it cannot be reached) and builds the stores. */
export async function scaleOut(url: string, values: Values, io: CliIo, load?: (name: string) => Promise<unknown>): Promise<ScaledOut> {
  const prefix = str(values, 'redis-prefix') ?? 'mcpkit:';
  if (prefix.length === 0 || prefix.length > 128) throw new UsageError('--redis-prefix: expected 1 to 128 characters');
  const leaseMs = seconds(values, 'redis-lease', 15, 0.1, 3600) * 1000;
  const check = str(values, 'session-check') === undefined ? undefined : seconds(values, 'session-check', 10, 0, 86_400) * 1000;
  const Redis = await importIoRedis(load);
  const where = shown(url);
  // Fail fast while Redis is away: no queue of commands waiting for it (a request would hang
  // on one), a bound on each command, and reconnection in the background. A connection attempt
  // may take its time (a loaded host): requests meanwhile are refused at once all the same.
  const options = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 10_000,
    commandTimeout: 5000,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 1000),
  };
  const client = new Redis(url, options);
  const subscriber = client.duplicate();
  let down = false;
  let closing = false;
  // Until the first connection is made, a failure is the start's failure, said once below.
  let started = false;
  let lastError: Error | undefined;
  const report = (e: Error) => {
    lastError ??= e;
    if (!started || down || closing) return;
    down = true;
    io.stderr.write(`mcpkit: Redis at ${where} is unreachable (${e.message}); requests get 503 until it is back\n`);
  };
  client.on('error', report);
  client.on('close', () => report(new Error('connection closed')));
  subscriber.on('error', () => {}); // its outage is the same one, reported once above
  try {
    await client.connect();
    await subscriber.connect();
  } catch (e) {
    client.disconnect();
    subscriber.disconnect();
    // ioredis rejects with "Connection is closed."; its error event said why (ECONNREFUSED...).
    const why = (lastError ?? (e as Error)).message;
    throw new CommandError(`serve --redis: cannot reach Redis at ${where}: ${why}`, { cause: e });
  }
  started = true;
  const lease = new RedisInstanceLease({ client, keyPrefix: prefix, leaseMs, onError: () => {} });
  await lease.start();
  client.on('ready', () => {
    if (down) io.stderr.write(`mcpkit: Redis at ${where} is reachable again\n`);
    down = false;
    // Redis may have restarted empty: say this instance lives before anyone asks.
    lease.renew().catch(() => {});
  });
  const unavailable = (): string | undefined =>
    client.status === 'ready' && subscriber.status === 'ready'
      ? undefined
      : `Redis at ${where} is unreachable; this instance cannot serve until it is back (retry shortly)`;
  return {
    url: where,
    instanceId: lease.instanceId,
    options: {
      sessionStore: new RedisSessionStore({ client, keyPrefix: prefix }),
      eventStore: new RedisEventStore({ client, keyPrefix: prefix, lease }),
      ...(check === undefined ? {} : { sessionCheckMs: check }),
      health: { unavailable },
    },
    share(server) {
      server.share({
        bus: new RedisBus({ client, subscriber, keyPrefix: prefix }),
        taskStore: new RedisTaskStore({ client, keyPrefix: prefix, lease }),
      });
    },
    async close() {
      closing = true;
      await lease.close();
      await Promise.allSettled([client.quit(), subscriber.quit()]);
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
