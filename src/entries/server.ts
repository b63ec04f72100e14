// mcpkit/server: define a server (McpServer, or the low-level Server) and connect it to any
// transport. Runtime-neutral: nothing here imports node:*; serve it with mcpkit/http (fetch),
// mcpkit/node or mcpkit/stdio.

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
export { APPS_EXTENSION, APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY } from '../protocol/apps.js';
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
export type { SchemaInput } from '../schema/compile.js';
export { loadJsonSchemaSupport } from '../schema/json-schema-support.js';
export { MemoryTransport, createLinkedPair, type MemoryTransportOptions } from '../transports/memory/index.js';
export type { Transport, FrameInfo, AuthInfo, SendOptions } from '../engine/transport.js';
export type { MessageMiddleware, Next } from '../engine/middleware.js';
export type { ProgressInfo, RequestOptions } from '../engine/peer.js';
export { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
export {
  buildServerCard,
  type ServerCard,
  type ServerCardOptions,
  type CardRemote,
  type CardHeader,
  type CardInput,
  type CardRepository,
} from '../server/card.js';
// Every MCP wire type (JSON-RPC messages, params and results, content, capabilities, tasks, apps):
// one list, in src/protocol/surface.ts.
export type * from '../protocol/surface.js';
