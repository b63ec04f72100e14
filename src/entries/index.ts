// mcpkit: everything (Node-oriented): the server, the client, every transport and adapter,
// the all-in-one `connect` (URL, command or transport), and the JSON-RPC and protocol helpers.
// The subpath entries import less and (server, client, http) run in any JavaScript runtime.

export { isRequest, isNotification, isResponse, isErrorResponse } from '../jsonrpc/messages.js';
export { toErrorObject, ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
export {
  DEFAULT_LIMITS,
  decodeFrame,
  validateMessage,
  exceedsDepth,
  encodeMessage,
  errorResponse,
  type DecodeLimits,
  type Decoded,
  type BadResponse,
} from '../jsonrpc/codec.js';
export { PROTOCOL_VERSIONS, LOGGING_LEVELS } from '../protocol/types.js';
export { METHODS } from '../protocol/methods.js';
export {
  HANDSHAKE_VERSIONS,
  MODERN_VERSIONS,
  LATEST_HANDSHAKE_VERSION,
  negotiateVersion,
  type HandshakeVersion,
} from '../protocol/versions.js';
export { TASK_METHODS, TASK_NOTIFICATION, TERMINAL_STATUSES, REMOVED_TASK_METHODS, declaresTasks, TASKS_EXTENSION } from '../protocol/tasks.js';
export { compileSchema, type CompiledSchema, type CompileSchemaOptions, type SchemaInput } from '../schema/compile.js';
export { connectStdio, connectAny as connect, type StdioTarget } from '../client/connect-stdio.js';
export { ServerExitedError } from '../client/era.js';
// The connection doctor: which step of connecting fails, why, and the fix (Node: it spawns and dials).
export { diagnose } from '../host/doctor/diagnose.js';
export type { Diagnosis, DiagnoseOptions, DoctorCode, DoctorEvent, DoctorFailure, DoctorStep, DoctorTarget } from '../host/doctor/types.js';
export { McpServer, type McpServerOptions, type InferArgs } from '../server/mcp-server.js';
export {
  Server,
  type ServerOptions,
  type MethodHandler,
  type NotificationHandler,
  type RequestMiddleware,
} from '../server/server.js';
export { ServerSession } from '../server/session.js';
export type { RequestContext, InputOptions } from '../server/context.js';
export type { ElicitAnswer, ElicitSchema, ElicitSchemaParams } from '../server/elicit.js';
export type { ToolConfig, ToolHandler, ToolReturn, ToolReturnFor, ToolUpdate } from '../server/tools.js';
export type {
  ResourceConfig,
  ResourceHandler,
  ResourceReturn,
  ResourceUpdate,
  TemplateConfig,
  TemplateHandler,
  TemplateUpdate,
  Completer,
} from '../server/resources.js';
export type { PromptConfig, PromptHandler, PromptReturn, PromptUpdate } from '../server/prompts.js';
export type { Registered } from '../server/registry.js';
export { tasks, modernTasks, coreTasks, type TaskServerOptions, type ToolTaskOptions } from '../extensions/tasks/extension.js';
export type { LegacyTask } from '../extensions/tasks/legacy.js';
export {
  skills,
  SKILLS_EXTENSION,
  type SkillsOptions,
  type SkillDefinition,
  type SkillEntry,
  type FrontmatterParser,
} from '../extensions/skills/extension.js';
export {
  apps,
  clientSupportsApps,
  type AppsOptions,
  type AppResource,
  type AppHtml,
  type AppToolOptions,
} from '../extensions/apps/extension.js';
export { APPS_EXTENSION, APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY, toolUi } from '../protocol/apps.js';
export type {
  ServerExtension,
  ExtensionApi,
  ExtensionHooks,
  ExtensionMethodHandler,
  ToolHook,
  ContextBinding,
  ListenRequest,
  ExtensionResources,
} from '../server/extension.js';
export type { Session } from '../server/context.js';
export {
  InMemoryTaskStore,
  TaskLimitError,
  type InMemoryTaskStoreOptions,
  type TaskRecord,
  type TaskStore,
} from '../state/task-store.js';
export { MemoryBus, type MessageBus } from '../state/bus.js';
export { UriTemplate, type UriVariables } from '../server/uri-template.js';
export type { TemplateVariables } from '../server/template-variables.js';
export { loadJsonSchemaSupport } from '../schema/json-schema-support.js';
export {
  McpClient,
  type ClientOptions,
  type SamplingHandler,
  type ElicitationHandler,
  type ReinitializeEvent,
} from '../client/client.js';
export type { HttpTarget } from '../client/connect.js';
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
export { TaskCancelledError, type TaskOptions } from '../client/tasks.js';
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
export type { AuthInfo, Transport, FrameInfo, SendOptions } from '../engine/transport.js';
export {
  serve,
  toNodeHandler,
  type ServeOptions,
  type RunningServer,
  type NodeRequestListener,
} from '../serving/node.js';
export { loopbackAuthorization, type LoopbackOptions, type LoopbackAuthorization } from '../client/auth/loopback.js';
export { skillDirectory } from '../serving/skills-dir.js';
export { serveStdio, type ServeStdioOptions } from '../serving/stdio.js';
export { StdioServerTransport, type StdioServerTransportOptions } from '../transports/stdio/server.js';
export { StdioClientTransport, type StdioClientTransportOptions } from '../transports/stdio/client.js';
export { DEFAULT_INHERITED_ENV_VARS, defaultEnvironment } from '../transports/stdio/process.js';
export { LineReader, DEFAULT_MAX_LINE_LENGTH, type LineReaderOptions } from '../transports/stdio/line-reader.js';
export { MemoryTransport, createLinkedPair, type MemoryTransportOptions } from '../transports/memory/index.js';
export type { MessageMiddleware, Next } from '../engine/middleware.js';
export type { ProgressInfo, RequestOptions } from '../engine/peer.js';
export {
  buildServerCard,
  type ServerCard,
  type ServerCardOptions,
  type CardRemote,
  type CardHeader,
  type CardInput,
  type CardRepository,
} from '../server/card.js';
export type { ServerCardHostOptions } from '../serving/http/server-card.js';
export { addOpenApiTools, type OpenApiToolsOptions, type OpenApiTools } from '../gateway/openapi/tools.js';
export { loadSpec, type LoadSpecOptions, type LoadedSpec, type OpenApiDocument } from '../gateway/openapi/load.js';
export { OpenApiError } from '../gateway/openapi/errors.js';
export type { OpenApiAuth, ClientCredentials } from '../gateway/openapi/auth.js';
export type { CrossOriginRedirects } from '../gateway/openapi/redirects.js';
export type { OperationFilter } from '../gateway/openapi/filter.js';
export type { OpenApiOperation, ParameterSpec, BodySpec } from '../gateway/openapi/operations.js';
export type { SchemaOptions } from '../gateway/openapi/schema.js';
// Every MCP wire type (JSON-RPC messages, params and results, content, capabilities, tasks, apps):
// one list, in src/protocol/surface.ts.
export type * from '../protocol/surface.js';
