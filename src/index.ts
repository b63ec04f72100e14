export * from './jsonrpc/index.js';
export * from './protocol/types.js';
export * from './protocol/methods.js';
export {
  HANDSHAKE_VERSIONS,
  MODERN_VERSIONS,
  LATEST_HANDSHAKE_VERSION,
  negotiateVersion,
  type HandshakeVersion,
} from './protocol/versions.js';
export * from './server/index.js';
// The tasks extension's wire types, for servers and clients alike (the client entry point
// re-exports some of these names too: an explicit list here settles which module they come from).
export {
  TASKS_EXTENSION,
  TASK_METHODS,
  TASK_NOTIFICATION,
  TERMINAL_STATUSES,
  REMOVED_TASK_METHODS,
  declaresTasks,
  type Task,
  type TaskStatus,
  type TaskSupport,
  type TaskMethod,
  type CreateTaskResult,
  type DetailedTask,
  type TaskIdParams,
  type UpdateTaskParams,
  type TaskNotificationParams,
} from './protocol/tasks.js';
export * from './client/index.js';
export type { Transport, FrameInfo, AuthInfo, SendOptions } from './engine/transport.js';
export { MemoryTransport, createLinkedPair } from './transports/memory/index.js';
export type { MessageMiddleware, Next } from './engine/middleware.js';
export type { ProgressInfo, RequestOptions } from './engine/peer.js';
export { compileSchema, type SchemaInput, type CompiledSchema } from './schema/index.js';
export { serveStdio, StdioServerTransport, StdioClientTransport, type ServeStdioOptions } from './transports/stdio/index.js';
export {
  serve,
  toNodeHandler,
  toFetchHandler,
  apiKeyGuard,
  InMemoryEventStore,
  StreamableHttpClientTransport,
  SseClientTransport,
  connectHttp,
  HttpStatusError,
  SessionExpiredError,
  type ServeOptions,
  type RunningServer,
  type HttpServerOptions,
  type EventStore,
} from './transports/http/index.js';
