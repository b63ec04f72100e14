export { McpClient, type ClientOptions, type SamplingHandler, type ElicitationHandler, type ReinitializeEvent } from './client.js';
export type { SessionState } from './reconnect.js';
export type { CallOptions } from './calls.js';
export type { HandshakeOutcome } from './handshake.js';
export type { ConnectOutcome } from './modern.js';
export type { Era, EraOption } from './era.js';
export type { Subscription, ListenNotification, ListenOptions, RelistenOptions } from './listen.js';
export { TaskCancelledError, type TaskOptions } from './tasks.js';
export { TASKS_EXTENSION, type Task, type DetailedTask, type CreateTaskResult, type TaskStatus } from '../protocol/tasks.js';
export { connect, type StdioTarget, type HttpTarget } from './connect.js';
export {
  OAuthClientAuth,
  OAuthFlowError,
  MemoryOAuthStore,
  loopbackAuthorization,
  idJagAssertion,
  type IdJagOptions,
  type AssertionTarget,
  parseBearerChallenge,
  parseAuthChallenge,
  type AuthChallenge,
  type DpopOptions,
  type OAuthOptions,
  type AuthorizationRequest,
  type OAuthStore,
  type StoredTokens,
  type ClientRegistration,
  type OAuthTokens,
  type TokenEndpointAuthMethod,
  type ClientKey,
  type JwtAlgorithm,
  type ProtectedResourceMetadata,
  type AuthorizationServerMetadata,
  type BearerChallenge,
  type LoopbackOptions,
  type LoopbackAuthorization,
} from './auth/index.js';
