/**
 * Maps from method name to wire types, used for typed requests and notifications.
 * Revision notes are in the comments. The maps cover every revision; the engine decides what a
 * given protocol version may send.
 */
import type {
  CallToolParams,
  CallToolResult,
  CancelledNotificationParams,
  CompleteParams,
  CompleteResult,
  CreateMessageParams,
  CreateMessageResult,
  DiscoverParams,
  DiscoverResult,
  ElicitParams,
  ElicitResult,
  ElicitationCompleteNotificationParams,
  EmptyNotificationParams,
  GetPromptParams,
  GetPromptResult,
  InitializeParams,
  InitializeResult,
  InputRequiredResult,
  ListPromptsParams,
  ListPromptsResult,
  ListResourceTemplatesParams,
  ListResourceTemplatesResult,
  ListResourcesParams,
  ListResourcesResult,
  ListRootsParams,
  ListRootsResult,
  ListToolsParams,
  ListToolsResult,
  LoggingMessageNotificationParams,
  PingParams,
  PingResult,
  ProgressNotificationParams,
  ReadResourceParams,
  ReadResourceResult,
  ResourceUpdatedNotificationParams,
  SetLevelParams,
  SetLevelResult,
  SubscribeParams,
  SubscribeResult,
  SubscriptionsAcknowledgedParams,
  SubscriptionsListenParams,
  SubscriptionsListenResult,
  UnsubscribeParams,
  UnsubscribeResult,
} from './params.js';
import type { CreateTaskResult, DetailedTask, TaskIdParams, TaskNotificationParams, UpdateTaskParams } from './tasks.js';

/** Requests a client sends to a server. */
export interface ClientRequestMap {
  /** Legacy only. */
  initialize: { params: InitializeParams; result: InitializeResult };
  /** Legacy only. */
  ping: { params: PingParams; result: PingResult };
  /** 2026-07-28. */
  'server/discover': { params: DiscoverParams; result: DiscoverResult };
  'tools/list': { params: ListToolsParams; result: ListToolsResult };
  /**
   * Can answer with input_required in 2026-07-28, and with a task when the client declared the
   * tasks extension.
   */
  'tools/call': { params: CallToolParams; result: CallToolResult | InputRequiredResult | CreateTaskResult };
  'resources/list': { params: ListResourcesParams; result: ListResourcesResult };
  'resources/templates/list': { params: ListResourceTemplatesParams; result: ListResourceTemplatesResult };
  /** Can answer with input_required in 2026-07-28. */
  'resources/read': { params: ReadResourceParams; result: ReadResourceResult | InputRequiredResult };
  /** Legacy only. */
  'resources/subscribe': { params: SubscribeParams; result: SubscribeResult };
  /** Legacy only. */
  'resources/unsubscribe': { params: UnsubscribeParams; result: UnsubscribeResult };
  'prompts/list': { params: ListPromptsParams; result: ListPromptsResult };
  /** Can answer with input_required in 2026-07-28. */
  'prompts/get': { params: GetPromptParams; result: GetPromptResult | InputRequiredResult };
  'completion/complete': { params: CompleteParams; result: CompleteResult };
  /** Legacy only. */
  'logging/setLevel': { params: SetLevelParams; result: SetLevelResult };
  /** 2026-07-28. A long-lived request. Its result only arrives when the stream ends. */
  'subscriptions/listen': { params: SubscriptionsListenParams; result: SubscriptionsListenResult };
  /** 2026-07-28, tasks extension. */
  'tasks/get': { params: TaskIdParams; result: DetailedTask };
  /** 2026-07-28, tasks extension: an empty ack. */
  'tasks/update': { params: UpdateTaskParams; result: SetLevelResult };
  /** 2026-07-28, tasks extension: an empty ack; the status settles later. */
  'tasks/cancel': { params: TaskIdParams; result: SetLevelResult };
}

/**
 * Requests a server sends to a client. These are real JSON-RPC requests in legacy revisions only.
 * In 2026-07-28, roots/sampling/elicitation arrive as `InputRequest`s and ping is gone.
 */
export interface ServerRequestMap {
  ping: { params: PingParams; result: PingResult };
  'roots/list': { params: ListRootsParams; result: ListRootsResult };
  'sampling/createMessage': { params: CreateMessageParams; result: CreateMessageResult };
  /** Since 2025-06-18. */
  'elicitation/create': { params: ElicitParams; result: ElicitResult };
}

/** Notifications a server sends. `undefined` means the params object may be left out. */
export interface ServerNotificationMap {
  'notifications/cancelled': CancelledNotificationParams;
  'notifications/progress': ProgressNotificationParams;
  'notifications/message': LoggingMessageNotificationParams;
  'notifications/resources/updated': ResourceUpdatedNotificationParams;
  'notifications/resources/list_changed': EmptyNotificationParams | undefined;
  'notifications/tools/list_changed': EmptyNotificationParams | undefined;
  'notifications/prompts/list_changed': EmptyNotificationParams | undefined;
  /** 2025-11-25 only. */
  'notifications/elicitation/complete': ElicitationCompleteNotificationParams;
  /** 2026-07-28. */
  'notifications/subscriptions/acknowledged': SubscriptionsAcknowledgedParams;
  /** 2026-07-28, tasks extension: on listen streams that asked for `taskIds`. */
  'notifications/tasks': TaskNotificationParams;
}

/** Notifications a client sends. In 2026-07-28 only `notifications/cancelled` remains. */
export interface ClientNotificationMap {
  /** Legacy only. */
  'notifications/initialized': EmptyNotificationParams | undefined;
  'notifications/cancelled': CancelledNotificationParams;
  /** Legacy only: client→server progress for server-initiated requests. */
  'notifications/progress': ProgressNotificationParams;
  /** Legacy only. */
  'notifications/roots/list_changed': EmptyNotificationParams | undefined;
}

export type ClientRequestMethod = keyof ClientRequestMap;
export type ServerRequestMethod = keyof ServerRequestMap;
export type ServerNotificationMethod = keyof ServerNotificationMap;
export type ClientNotificationMethod = keyof ClientNotificationMap;
export type RequestMethod = ClientRequestMethod | ServerRequestMethod;
export type NotificationMethod = ServerNotificationMethod | ClientNotificationMethod;

/** Every request and notification name, spelled once. */
export const METHODS = {
  initialize: 'initialize',
  ping: 'ping',
  serverDiscover: 'server/discover',
  toolsList: 'tools/list',
  toolsCall: 'tools/call',
  resourcesList: 'resources/list',
  resourcesTemplatesList: 'resources/templates/list',
  resourcesRead: 'resources/read',
  resourcesSubscribe: 'resources/subscribe',
  resourcesUnsubscribe: 'resources/unsubscribe',
  promptsList: 'prompts/list',
  promptsGet: 'prompts/get',
  completionComplete: 'completion/complete',
  loggingSetLevel: 'logging/setLevel',
  subscriptionsListen: 'subscriptions/listen',
  tasksGet: 'tasks/get',
  tasksUpdate: 'tasks/update',
  tasksCancel: 'tasks/cancel',
  rootsList: 'roots/list',
  samplingCreateMessage: 'sampling/createMessage',
  elicitationCreate: 'elicitation/create',

  initialized: 'notifications/initialized',
  cancelled: 'notifications/cancelled',
  progress: 'notifications/progress',
  message: 'notifications/message',
  resourcesUpdated: 'notifications/resources/updated',
  resourcesListChanged: 'notifications/resources/list_changed',
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  rootsListChanged: 'notifications/roots/list_changed',
  elicitationComplete: 'notifications/elicitation/complete',
  subscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
  tasks: 'notifications/tasks',
} as const satisfies Record<string, RequestMethod | NotificationMethod>;

export type MethodName = (typeof METHODS)[keyof typeof METHODS];
