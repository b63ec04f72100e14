// mcpkit/redis: the shipped stores for running many instances behind a load balancer.
// Bring your own client (ioredis or node-redis); mcpkit imports neither. See docs/scaling.md.
export { RedisSessionStore, type RedisSessionStoreOptions } from './session-store.js';
export { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
export { toCommand, type RedisClientLike, type RedisCommand, type IoRedisLike, type NodeRedisLike } from './client.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './task-store.js';
export { RedisBus, type RedisBusOptions, type IoRedisSubscriber, type NodeRedisSubscriber } from './bus.js';
