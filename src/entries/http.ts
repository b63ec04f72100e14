// mcpkit/http: serving over HTTP in any runtime (the fetch handler and the HTTP core it
// wraps, OAuth resource-server checks, event and session stores), and the HTTP client
// transports. The node:http adapter and `serve()` are in mcpkit/node.

export { toFetchHandler, type FetchHandler } from '../serving/fetch.js';
export { McpHttpHandler, type HttpServerOptions } from '../serving/http/router.js';
export type { HealthOptions } from '../serving/http/lifecycle.js';
export { StreamableHttpHandler, type StreamableHttpOptions } from '../serving/http/streamable.js';
export { LegacySseHandler, type LegacySseOptions } from '../serving/http/legacy-sse.js';
export { InMemoryEventStore, type EventStore, type InMemoryEventStoreOptions } from '../state/event-store.js';
export { InMemorySessionStore, type SessionStore, type SessionRecord } from '../state/session-store.js';
export {
  apiKeyGuard,
  extractApiKey,
  type Authenticate,
  type ApiKeyGuardOptions,
  type OriginPolicy,
} from '../serving/http/security.js';
export type { HttpRequestView, HttpResponder, StreamWriter, HeaderMap } from '../serving/http/exchange.js';
export { OAuthResourceGuard, type OAuthResourceOptions } from '../serving/http/oauth-resource.js';
export type { DpopResourceOptions, DpopNonceOptions, DpopNonceSource } from '../serving/http/dpop-proof.js';
export {
  jwtAccessTokens,
  type JwtAccessTokenOptions,
  type JwtAccessTokenVerifier,
  type JwtClaims,
  type JwsAlgorithm,
} from '../serving/http/jwt-access-token.js';
export type { ResponseMode } from '../serving/http/channel.js';
export { encodeEvent, SseParser, SseParseError, readSseStream, type SseEvent } from '../transports/http/sse.js';
export type { AuthInfo } from '../engine/transport.js';
export { connectHttp, type ConnectHttpResult, type ConnectHttpTransportOptions } from '../client/connect-http.js';
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
  type ReconnectOptions,
} from '../transports/http/client/streamable.js';
export { SseClientTransport, type SseClientTransportOptions } from '../transports/http/client/sse-legacy.js';
export { HttpStatusError, SessionExpiredError, type HeadersOption } from '../transports/http/client/http-common.js';
export { OAuthFlowError } from '../client/auth/errors.js';
export { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
export type { ServerCardHostOptions } from '../serving/http/server-card.js';
