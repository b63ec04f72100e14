// mcpkit/client: McpClient, `connect` over HTTP or any transport, OAuth. Runtime-neutral;
// spawning a stdio server is mcpkit/stdio's `connect`, signing in through a local browser
// redirect is mcpkit/node's `loopbackAuthorization`.

export {
  McpClient,
  type ClientOptions,
  type SamplingHandler,
  type ElicitationHandler,
  type ReinitializeEvent,
} from '../client/client.js';
export { connect, type HttpTarget } from '../client/connect.js';
export type { SessionState } from '../client/reconnect.js';
export type { CallOptions } from '../client/calls.js';
export type { HandshakeOutcome } from '../client/handshake.js';
export type { ConnectOutcome } from '../client/modern.js';
export type { Era, EraOption } from '../client/era.js';
export type { Subscription, ListenNotification, ListenOptions, RelistenOptions } from '../client/listen.js';
export {
  listSkills,
  getSkill,
  readSkillFile,
  SkillVerificationError,
  SKILLS_EXTENSION_ID,
  type SkillInfo,
  type SkillsClient,
  type SkillFileContent,
  type ReadSkillFileOptions,
} from '../client/skills.js';
export {
  checkServerCard,
  fetchServerCard,
  type FetchedServerCard,
  type CardDifference,
  type ServerCardCheck,
  type CardCheckClient,
  type CheckServerCardOptions,
  type FetchServerCardOptions,
} from '../client/server-card.js';
export {
  modelTools,
  appTools,
  appResourceUri,
  readAppResource,
  fingerprintAppResource,
  AppApprovals,
  AppResourceError,
  type AppsClient,
  type AppResourceContent,
  type ApprovalStatus,
  type ReadAppResourceOptions,
} from '../client/apps.js';
export { APPS_EXTENSION, APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, toolUi } from '../protocol/apps.js';
export { TaskCancelledError, type TaskOptions } from '../client/tasks.js';
export { TASKS_EXTENSION } from '../protocol/tasks.js';
export { connectHttp, type ConnectHttpResult, type ConnectHttpTransportOptions } from '../client/connect-http.js';
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
  type ReconnectOptions,
} from '../transports/http/client/streamable.js';
export { SseClientTransport, type SseClientTransportOptions } from '../transports/http/client/sse-legacy.js';
export { HttpStatusError, SessionExpiredError, type HeadersOption } from '../transports/http/client/http-common.js';
export { OAuthFlowError } from '../client/auth/errors.js';
export { OAuthClientAuth } from '../client/auth/oauth.js';
export type { OAuthOptions, AuthorizationRequest, AssertionTarget } from '../client/auth/options.js';
export { idJagAssertion, type IdJagOptions } from '../client/auth/id-jag.js';
export { MemoryOAuthStore, type OAuthStore, type StoredTokens, type PendingAuthorization } from '../client/auth/store.js';
export { WebStorageOAuthStore, type WebStorageLike } from '../client/auth/web-storage.js';
export type { ClientRegistration, OAuthTokens, TokenEndpointAuthMethod } from '../client/auth/token-endpoint.js';
export type { ClientKey, JwtAlgorithm } from '../client/auth/jwt.js';
export type { ProtectedResourceMetadata, AuthorizationServerMetadata } from '../client/auth/metadata.js';
export {
  parseBearerChallenge,
  parseAuthChallenge,
  type AuthChallenge,
  type BearerChallenge,
} from '../client/auth/challenge.js';
export type { DpopOptions } from '../client/auth/dpop.js';
export { MemoryTransport, createLinkedPair, type MemoryTransportOptions } from '../transports/memory/index.js';
export type { Transport, FrameInfo, AuthInfo, SendOptions } from '../engine/transport.js';
export type { MessageMiddleware, Next } from '../engine/middleware.js';
export type { ProgressInfo, RequestOptions } from '../engine/peer.js';
export { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
// Every MCP wire type (JSON-RPC messages, params and results, content, capabilities, tasks, apps):
// one list, in src/protocol/surface.ts.
export type * from '../protocol/surface.js';
