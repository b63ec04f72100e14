/** Params and results of every method, notification params, and the multi round-trip (input request) types that embed them. */
import type { JsonObject, RequestId } from '../jsonrpc/messages.js';
import type {
  CacheableResult,
  ClientCapabilities,
  ContentBlock,
  EmptyResult,
  FinalResult,
  Implementation,
  LoggingLevel,
  NotificationParams,
  PaginatedParams,
  PaginatedResult,
  ProgressToken,
  Prompt,
  PromptMessage,
  RequestParams,
  Resource,
  ResourceContents,
  ResourceTemplate,
  ResultMeta,
  Root,
  SamplingMessage,
  ServerCapabilities,
  ServerRequestParams,
  Tool,
} from './types.js';
import type {
  ElicitAction,
  ElicitRequestedSchema,
  ElicitValue,
  IncludeContext,
  ModelPreferences,
  StopReason,
  TaskMetadata,
  ToolChoice,
} from './client-types.js';

// ---------------------------------------------------------------------------------------------
// Method params and results
// ---------------------------------------------------------------------------------------------

// initialize (legacy only; removed in 2026-07-28)
export type InitializeParams = RequestParams & {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
};
export type InitializeResult = FinalResult & {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
};

// ping (legacy only). Either side may send it.
export type PingParams = RequestParams;
export type PingResult = EmptyResult;

// server/discover (2026-07-28)
export type DiscoverParams = RequestParams;
export type DiscoverResult = FinalResult &
  CacheableResult & {
    supportedVersions: string[];
    capabilities: ServerCapabilities;
    instructions?: string;
  };

// tools
export type ListToolsParams = PaginatedParams;
export type ListToolsResult = FinalResult & PaginatedResult & CacheableResult & { tools: Tool[] };

export type CallToolParams = RequestParams &
  InputResponseParams & {
    name: string;
    arguments?: { [key: string]: unknown };
    /** 2025-11-25 only. */
    task?: TaskMetadata;
  };
export type CallToolResult = FinalResult & {
  content: ContentBlock[];
  /** Since 2025-06-18. An object in legacy revisions; any JSON value in 2026-07-28. */
  structuredContent?: unknown;
  isError?: boolean;
};

// resources
export type ListResourcesParams = PaginatedParams;
export type ListResourcesResult = FinalResult & PaginatedResult & CacheableResult & { resources: Resource[] };

export type ListResourceTemplatesParams = PaginatedParams;
export type ListResourceTemplatesResult = FinalResult & PaginatedResult & CacheableResult & { resourceTemplates: ResourceTemplate[] };

export type ReadResourceParams = RequestParams & InputResponseParams & { uri: string };
export type ReadResourceResult = FinalResult & CacheableResult & { contents: ResourceContents[] };

// resources/subscribe and resources/unsubscribe (legacy only; 2026-07-28 uses subscriptions/listen)
export type SubscribeParams = RequestParams & { uri: string };
export type SubscribeResult = EmptyResult;
export type UnsubscribeParams = RequestParams & { uri: string };
export type UnsubscribeResult = EmptyResult;

// prompts
export type ListPromptsParams = PaginatedParams;
export type ListPromptsResult = FinalResult & PaginatedResult & CacheableResult & { prompts: Prompt[] };

export type GetPromptParams = RequestParams &
  InputResponseParams & {
    name: string;
    arguments?: { [name: string]: string };
  };
export type GetPromptResult = FinalResult & {
  description?: string;
  messages: PromptMessage[];
};

// completion/complete
export interface PromptReference {
  type: 'ref/prompt';
  name: string;
  title?: string;
}
/** Called `ResourceReference` before 2025-06-18. Same wire shape. */
export interface ResourceTemplateReference {
  type: 'ref/resource';
  /** A URI or a URI template. */
  uri: string;
}
export type CompleteParams = RequestParams & {
  ref: PromptReference | ResourceTemplateReference;
  argument: { name: string; value: string };
  /** Since 2025-06-18. Values of arguments that are already filled in. */
  context?: { arguments?: { [name: string]: string } };
};
export type CompleteResult = FinalResult & {
  completion: {
    /** At most 100 entries. */
    values: string[];
    total?: number;
    hasMore?: boolean;
  };
};

// logging/setLevel (legacy only; 2026-07-28 uses the per-request logLevel _meta key)
export type SetLevelParams = RequestParams & { level: LoggingLevel };
export type SetLevelResult = EmptyResult;

// roots/list (server→client in legacy; an input request in 2026-07-28)
export type ListRootsParams = ServerRequestParams;
/** Never carries `resultType`. */
export type ListRootsResult = FinalResult & { roots: Root[] };

// sampling/createMessage
export type CreateMessageParams = ServerRequestParams & {
  messages: SamplingMessage[];
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  includeContext?: IncludeContext;
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  /** Provider-specific data passed through as-is. */
  metadata?: JsonObject;
  /** Since 2025-11-25. Only if the client declared `sampling.tools`. */
  tools?: Tool[];
  /** Since 2025-11-25. */
  toolChoice?: ToolChoice;
  /** 2025-11-25 only. */
  task?: TaskMetadata;
};
/** Never carries `resultType`. */
export type CreateMessageResult = FinalResult &
  SamplingMessage & {
    model: string;
    stopReason?: StopReason;
  };

// elicitation/create (since 2025-06-18)
export type ElicitFormParams = ServerRequestParams & {
  /** Omitted means form. */
  mode?: 'form';
  message: string;
  requestedSchema: ElicitRequestedSchema;
  /** 2025-11-25 only. */
  task?: TaskMetadata;
};
/** Since 2025-11-25. */
export type ElicitUrlParams = ServerRequestParams & {
  mode: 'url';
  message: string;
  url: string;
  /** 2025-11-25 only. Removed in 2026-07-28. */
  elicitationId?: string;
  /** 2025-11-25 only. */
  task?: TaskMetadata;
};
export type ElicitParams = ElicitFormParams | ElicitUrlParams;
/** Never carries `resultType`. In URL mode, 'accept' only means the user agreed to open the URL. */
export type ElicitResult = FinalResult & {
  action: ElicitAction;
  content?: { [name: string]: ElicitValue };
};

// subscriptions/listen (2026-07-28)
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** URIs to watch for `notifications/resources/updated`. */
  resourceSubscriptions?: string[];
  /** Tasks extension only. */
  taskIds?: string[];
}
export type SubscriptionsListenParams = RequestParams & { notifications: SubscriptionFilter };
/** Sent only when the server ends the stream gracefully. */
export type SubscriptionsListenResult = FinalResult & {
  _meta: ResultMeta & { 'io.modelcontextprotocol/subscriptionId': RequestId };
};

// ---------------------------------------------------------------------------------------------
// Notification params
// ---------------------------------------------------------------------------------------------

export type CancelledNotificationParams = NotificationParams & {
  /** Optional only in 2025-11-25 (tasks are cancelled another way). Required in every other revision. */
  requestId?: RequestId;
  reason?: string;
};

export type ProgressNotificationParams = NotificationParams & {
  progressToken: ProgressToken;
  /** Must increase with every notification. May be fractional. */
  progress: number;
  total?: number;
  /** Since 2025-03-26. */
  message?: string;
};

export type LoggingMessageNotificationParams = NotificationParams & {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
};

export type ResourceUpdatedNotificationParams = NotificationParams & { uri: string };

/** 2025-11-25 only. */
export type ElicitationCompleteNotificationParams = NotificationParams & { elicitationId: string };

/** 2026-07-28. The first message on a listen stream. */
export type SubscriptionsAcknowledgedParams = NotificationParams & {
  /** The part of the requested filter that the server will honour. */
  notifications: SubscriptionFilter;
};

/** Params of notifications that carry nothing but `_meta` (initialized, the list_changed family). */
export type EmptyNotificationParams = NotificationParams;

// ---------------------------------------------------------------------------------------------
// Multi round-trip requests (2026-07-28)
// ---------------------------------------------------------------------------------------------

/** A server→client request embedded in an `InputRequiredResult`. It has no jsonrpc or id. */
export type InputRequest =
  | { method: 'elicitation/create'; params: ElicitParams }
  | { method: 'sampling/createMessage'; params: CreateMessageParams }
  | { method: 'roots/list'; params?: ListRootsParams };

export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;

export type InputRequests = { [key: string]: InputRequest };
export type InputResponses = { [key: string]: InputResponse };

/** The server needs more from the client. The client retries with a new id (and `InputResponseParams`). */
export type InputRequiredResult = {
  _meta?: ResultMeta;
  resultType: 'input_required';
  inputRequests?: InputRequests;
  /** Opaque to the client. Echo it back unchanged. */
  requestState?: string;
};

/** Retry fields, accepted on tools/call, resources/read and prompts/get. */
export type InputResponseParams = {
  inputResponses?: InputResponses;
  requestState?: string;
};
