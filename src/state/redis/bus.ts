import type { MessageBus } from '../bus.js';
import { checkPrefix, toCommand, type RedisClientLike, type RedisCommand } from './client.js';

/** An ioredis client in subscriber mode: `subscribe(channel)`, then 'message' events. */
export interface IoRedisSubscriber {
  call(command: string, args: string[]): Promise<unknown>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  off(event: 'message', listener: (channel: string, message: string) => void): unknown;
}

/** A node-redis client in subscriber mode: `subscribe(channel, listener)`. */
export interface NodeRedisSubscriber {
  sendCommand(args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener?: (message: string, channel: string) => void): Promise<unknown>;
}

export interface RedisBusOptions {
  /** Publishes: any client the other Redis stores accept. */
  client: RedisClientLike;
  /**
   * Receives: a connection of its own (a subscribed Redis connection can do nothing else), e.g.
   * `client.duplicate()`. The bus subscribes it to one channel and unsubscribes on close.
   */
  subscriber: IoRedisSubscriber | NodeRedisSubscriber;
  /** Namespace of the channel, `<prefix>bus`: instances with the same prefix share it. Default 'mcpkit:'. */
  keyPrefix?: string;
}

/**
 * The message bus of a deployment over Redis pub/sub (`new McpServer({ bus })`): what one
 * instance raises reaches the clients of the others (see docs/scaling.md). Pub/sub is
 * fire-and-forget: an instance that is down or reconnecting misses what is sent meanwhile.
 */
export class RedisBus implements MessageBus {
  readonly channel: string;
  private readonly command: RedisCommand;
  private readonly subscriber: IoRedisSubscriber | NodeRedisSubscriber;

  constructor(options: RedisBusOptions) {
    this.command = toCommand(options.client);
    this.subscriber = options.subscriber;
    this.channel = `${checkPrefix(options.keyPrefix ?? 'mcpkit:')}bus`;
    if (!isIoRedis(this.subscriber) && typeof (this.subscriber as Partial<NodeRedisSubscriber>).subscribe !== 'function') {
      throw new TypeError('subscriber must be an ioredis or node-redis client of its own (e.g. client.duplicate())');
    }
  }

  async publish(message: string): Promise<void> {
    await this.command(['PUBLISH', this.channel, message], this.channel);
  }

  async subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const sub = this.subscriber;
    const channel = this.channel;
    if (isIoRedis(sub)) {
      const listener = (ch: string, message: string) => {
        if (ch === channel) onMessage(message);
      };
      sub.on('message', listener);
      await sub.subscribe(channel);
      return async () => {
        sub.off('message', listener);
        await sub.unsubscribe(channel);
      };
    }
    const listener = (message: string) => onMessage(message);
    await sub.subscribe(channel, listener);
    return async () => {
      await sub.unsubscribe(channel, listener);
    };
  }
}

function isIoRedis(s: IoRedisSubscriber | NodeRedisSubscriber): s is IoRedisSubscriber {
  return typeof (s as Partial<IoRedisSubscriber>).call === 'function' && typeof (s as Partial<IoRedisSubscriber>).on === 'function';
}
