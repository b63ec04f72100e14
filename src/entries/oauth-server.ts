// mcpkit/oauth-server: a small OAuth 2.1 authorization server for MCP deployments (metadata,
// PKCE codes, rotated refresh tokens, bounded dynamic registration, client ID metadata documents,
// resource indicators, JWT access tokens), with sign-in by the application or federated to an
// upstream provider. The server and its fetch handler run in any runtime; `serveAuthorizationServer`
// is the node:http one. Its Redis store, `RedisAuthorizationStore`, is in mcpkit/redis.

export { AuthorizationServer, createAuthorizationServer, autoApprove } from '../serving/oauth-server/server.js';
export type {
  AuthorizationServerOptions,
  AuthorizationParams,
  ClientAuthMethod,
  ClientIdMetadataOptions,
  ClientRecord,
  ClientRegistrationKind,
  ConsentContext,
  ConsentDecider,
  DynamicRegistrationOptions,
  Login,
  LoginContext,
  LoginDecision,
  RegistrationRateLimit,
} from '../serving/oauth-server/options.js';
export {
  serveAuthorizationServer,
  type ServeAuthorizationServerOptions,
  type RunningAuthorizationServer,
} from '../serving/oauth-server/node.js';
export type { HostLookup } from '../serving/oauth-server/cimd-get.js';
export { InMemoryAuthorizationStore, type AuthorizationStore } from '../serving/oauth-server/store.js';
export { generateSigningKey, type PrivateJwk, type SigningAlgorithm, type SigningKeyInput } from '../serving/oauth-server/signing.js';
export {
  githubUpstream,
  googleUpstream,
  oidcUpstream,
  type GithubUpstreamOptions,
  type GoogleUpstreamOptions,
  type OidcUpstreamOptions,
  type Upstream,
  type UpstreamIdentity,
  type UpstreamTokens,
} from '../serving/oauth-server/upstream.js';
export type { HttpRequestView, HttpResponder } from '../serving/http/exchange.js';
