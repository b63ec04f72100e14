export { toNodeHandler, serve, type ServeOptions, type RunningServer, type NodeRequestListener } from './node.js';
export { toFetchHandler, type FetchHandler } from './fetch.js';
export { McpHttpHandler, type HttpServerOptions } from './server/router.js';
export { StreamableHttpHandler, type StreamableHttpOptions } from './server/streamable.js';
export { LegacySseHandler, type LegacySseOptions } from './server/legacy-sse.js';
export { InMemoryEventStore, type EventStore, type InMemoryEventStoreOptions } from './server/event-store.js';
export { apiKeyGuard, extractApiKey, type Authenticate, type ApiKeyGuardOptions, type OriginPolicy } from './server/security.js';
export type { HttpRequestView, HttpResponder, StreamWriter, HeaderMap } from './server/exchange.js';
export { OAuthResourceGuard, type OAuthResourceOptions } from './server/oauth-resource.js';
export type { DpopResourceOptions, DpopNonceOptions, DpopNonceSource } from './server/dpop-proof.js';
export { jwtAccessTokens, type JwtAccessTokenOptions, type JwtAccessTokenVerifier, type JwtClaims, type JwsAlgorithm } from './server/jwt-access-token.js';
export type { AuthInfo } from '../transport.js';
export type { ResponseMode } from './server/channel.js';
export {
  StreamableHttpClientTransport,
  SseClientTransport,
  connectHttp,
  HttpStatusError,
  SessionExpiredError,
  type StreamableHttpClientTransportOptions,
  type SseClientTransportOptions,
  type ReconnectOptions,
  type ConnectHttpResult,
  type ConnectHttpTransportOptions,
  type HeadersOption,
} from './client/index.js';
export { encodeEvent, SseParser, readSseStream, type SseEvent } from './sse.js';
export { InMemorySessionStore, type SessionStore, type SessionRecord } from './server/session-store.js';
