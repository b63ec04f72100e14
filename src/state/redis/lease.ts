import { randomBytes } from 'node:crypto';
import { asError, checkPrefix, defaultOnError, toCommand, ttlArg, type RedisClientLike, type RedisCommand } from './client.js';

export interface RedisInstanceLeaseOptions {
  /** An ioredis or node-redis client (connected), or a raw command function. */
  client: RedisClientLike;
  /** Namespace of every key; an instance's key is `<prefix>instance:<instanceId>`. Default 'mcpkit:'. */
  keyPrefix?: string;
  /** This instance's name (letters, digits, `_`, `-`; at most 64). Default: random. */
  instanceId?: string;
  /**
   * How long the key outlives the last renewal: an instance that stops renewing (killed, frozen,
   * cut off from Redis) counts as gone this long after. Renewed every third of it. Default 15 s.
   */
  leaseMs?: number;
  /** Where a failed renewal is reported. Default: stderr. */
  onError?: (error: Error) => void;
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * That an instance is alive, as a key with an expiry it keeps pushing back. What another
 * instance left behind (a response stream cut halfway, a task in `working`) is only ever
 * finished elsewhere once its instance's key is gone: a process killed with SIGKILL cannot say
 * it died, so its silence must. Shared by RedisEventStore and RedisTaskStore (`lease` option).
 */
export class RedisInstanceLease {
  readonly instanceId: string;
  readonly leaseMs: number;
  private readonly command: RedisCommand;
  private readonly prefix: string;
  private readonly ttl: string;
  private readonly onError: (error: Error) => void;
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(options: RedisInstanceLeaseOptions) {
    this.command = toCommand(options.client);
    this.prefix = `${checkPrefix(options.keyPrefix ?? 'mcpkit:')}instance:`;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.ttl = ttlArg(this.leaseMs, 'leaseMs');
    this.instanceId = options.instanceId ?? randomBytes(6).toString('base64url');
    if (!INSTANCE_ID.test(this.instanceId)) throw new TypeError('instanceId must be 1 to 64 letters, digits, "_" or "-"');
    this.onError = options.onError ?? defaultOnError;
  }

  /** The Redis key of an instance's lease (for inspection and tests). */
  key(instanceId: string = this.instanceId): string {
    return this.prefix + instanceId;
  }

  /**
   * Takes the lease and keeps renewing it until `close`. Rejects when the first write fails
   * (renewals after that report to `onError` and go on: Redis may come back).
   */
  async start(): Promise<void> {
    if (this.timer !== undefined || this.stopped) return;
    await this.renew();
    if (this.stopped) return;
    this.timer = setInterval(
      () => {
        this.renew().catch((e: unknown) => this.onError(asError(e)));
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    this.timer.unref?.();
  }

  /** Renews the lease now (after Redis came back, perhaps empty). */
  async renew(): Promise<void> {
    if (this.stopped) return;
    const key = this.key();
    await this.command(['SET', key, String(process.pid), 'PX', this.ttl], key);
  }

  /** Whether `instanceId` has renewed its lease lately (this instance: whether it runs). */
  async alive(instanceId: string): Promise<boolean> {
    if (instanceId === this.instanceId) return !this.stopped;
    if (!INSTANCE_ID.test(instanceId)) return false;
    const key = this.key(instanceId);
    return Number(await this.command(['EXISTS', key], key)) === 1;
  }

  /** Stops renewing and gives the lease up at once: what this instance left is others' to finish now. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    const key = this.key();
    await this.command(['DEL', key], key).catch((e: unknown) => this.onError(asError(e)));
  }
}
