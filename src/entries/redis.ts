// mcpkit/redis: the shipped stores for running many instances behind a load balancer.
// Bring your own client (ioredis or node-redis); mcpkit imports neither. See docs/scaling.md.

export { RedisSessionStore, type RedisSessionStoreOptions } from '../state/redis/session-store.js';
export { RedisEventStore, type RedisEventStoreOptions } from '../state/redis/event-store.js';
export {
  toCommand,
  type RedisClientLike,
  type RedisCommand,
  type IoRedisLike,
  type NodeRedisLike,
} from '../state/redis/client.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from '../state/redis/task-store.js';
export {
  RedisBus,
  type RedisBusOptions,
  type IoRedisSubscriber,
  type NodeRedisSubscriber,
} from '../state/redis/bus.js';
export { RedisInstanceLease, type RedisInstanceLeaseOptions } from '../state/redis/lease.js';
export { RedisAuthorizationStore, type RedisAuthorizationStoreOptions } from '../serving/oauth-server/redis-store.js';
