export { toNodeHandler, serve, type ServeOptions, type RunningServer, type NodeRequestListener } from '../../hosting/node.js';
export { toFetchHandler, type FetchHandler } from '../../hosting/fetch.js';
export { McpHttpHandler, type HttpServerOptions } from '../../hosting/http/router.js';
export { StreamableHttpHandler, type StreamableHttpOptions } from '../../hosting/http/streamable.js';
export { LegacySseHandler, type LegacySseOptions } from '../../hosting/http/legacy-sse.js';
export { InMemoryEventStore, type EventStore, type InMemoryEventStoreOptions } from '../../state/event-store.js';
export { apiKeyGuard, extractApiKey, type Authenticate, type ApiKeyGuardOptions, type OriginPolicy } from '../../hosting/http/security.js';
export type { HttpRequestView, HttpResponder, StreamWriter, HeaderMap } from '../../hosting/http/exchange.js';
export { OAuthResourceGuard, type OAuthResourceOptions } from '../../hosting/http/oauth-resource.js';
export type { DpopResourceOptions, DpopNonceOptions, DpopNonceSource } from '../../hosting/http/dpop-proof.js';
export { jwtAccessTokens, type JwtAccessTokenOptions, type JwtAccessTokenVerifier, type JwtClaims, type JwsAlgorithm } from '../../hosting/http/jwt-access-token.js';
export type { AuthInfo } from '../../engine/transport.js';
export type { ResponseMode } from '../../hosting/http/channel.js';
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
export { InMemorySessionStore, type SessionStore, type SessionRecord } from '../../state/session-store.js';
