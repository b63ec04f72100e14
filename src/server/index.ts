export { McpServer, type McpServerOptions, type InferArgs } from './mcp-server.js';
export { Server, type ServerOptions, type MethodHandler, type NotificationHandler, type RequestMiddleware } from './server.js';
export { ServerSession } from './session.js';
export type { RequestContext, InputOptions } from './context.js';
export type { ToolConfig, ToolHandler, ToolReturn, ToolUpdate } from './tools.js';
export type {
  ResourceConfig,
  ResourceHandler,
  ResourceReturn,
  ResourceUpdate,
  TemplateConfig,
  TemplateHandler,
  TemplateUpdate,
  Completer,
} from './resources.js';
export type { PromptConfig, PromptHandler, PromptReturn, PromptUpdate } from './prompts.js';
export type { Registered } from './registry.js';
export type { ServerExtension, ExtensionApi, ExtensionHooks, ExtensionMethodHandler, ToolHook, ContextBinding, ListenRequest } from './extension.js';
export type { Session } from './context.js';
export { tasks, modernTasks, coreTasks, type TaskServerOptions, type ToolTaskOptions } from '../extensions/tasks/extension.js';
export type { LegacyTask } from '../extensions/tasks/legacy.js';
export { InMemoryTaskStore, TaskLimitError, type InMemoryTaskStoreOptions, type TaskRecord, type TaskStore } from '../state/task-store.js';
export { MemoryBus, type MessageBus } from '../state/bus.js';
export { UriTemplate, type UriVariables } from './uri-template.js';
