export { OAuthClientAuth } from './oauth.js';
export type { OAuthOptions, AuthorizationRequest } from './options.js';
export { MemoryOAuthStore, type OAuthStore, type StoredTokens } from './store.js';
export { OAuthFlowError } from './errors.js';
export type { ClientRegistration, OAuthTokens, TokenEndpointAuthMethod } from './token-endpoint.js';
export type { ClientKey, JwtAlgorithm } from './jwt.js';
export type { ProtectedResourceMetadata, AuthorizationServerMetadata } from './metadata.js';
export { parseBearerChallenge, type BearerChallenge } from './challenge.js';
export { loopbackAuthorization, type LoopbackOptions, type LoopbackAuthorization } from './loopback.js';
