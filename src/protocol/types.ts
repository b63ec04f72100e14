/**
 * MCP wire types covering revisions 2024-11-05 through 2026-07-28.
 *
 * One set of types serves every revision: anything that is missing from some revision is optional
 * here, and comments name the revision that introduced or dropped a field.
 *
 * Params, results and notification params are object type aliases rather than interfaces, so they
 * stay assignable to `JsonObject` (the JSON-RPC layer's params/result type) without an index
 * signature. They list known fields only. Peers may send extra keys, and the codec keeps them; the
 * types just don't name them.
 */
import type { JsonObject, RequestId } from '../jsonrpc/messages.js';

// ---------------------------------------------------------------------------------------------
// Versions and small shared aliases
// ---------------------------------------------------------------------------------------------

/** Every published revision, oldest first. */
export const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

export type ProgressToken = string | number;
/** Opaque pagination token. In 2026-07-28 an empty string is still a valid cursor. */
export type Cursor = string;
export type Role = 'user' | 'assistant';

/** Syslog severities (RFC 5424), least to most severe. */
export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

// ---------------------------------------------------------------------------------------------
// _meta
// ---------------------------------------------------------------------------------------------

/** The open `_meta` bag. Keys follow the spec's optional `prefix/name` rule. */
export interface Meta {
  [key: string]: unknown;
  progressToken?: ProgressToken;
}

/**
 * `_meta` on a client→server request. 2026-07-28 requires protocolVersion and clientCapabilities
 * on every request. They are optional here because legacy requests don't send them.
 */
export interface RequestMeta extends Meta {
  'io.modelcontextprotocol/protocolVersion'?: string;
  'io.modelcontextprotocol/clientCapabilities'?: ClientCapabilities;
  'io.modelcontextprotocol/clientInfo'?: Implementation;
  'io.modelcontextprotocol/logLevel'?: LoggingLevel;
}

export interface ResultMeta extends Meta {
  /** 2026-07-28. Self-reported, so use it for display and logging only. */
  'io.modelcontextprotocol/serverInfo'?: Implementation;
}

export interface NotificationMeta extends Meta {
  /** 2026-07-28. The id of the `subscriptions/listen` request this message belongs to. */
  'io.modelcontextprotocol/subscriptionId'?: RequestId;
}

// ---------------------------------------------------------------------------------------------
// Base shapes for params and results
// ---------------------------------------------------------------------------------------------

/** Base of every client→server request's params. */
export type RequestParams = { _meta?: RequestMeta };

/** Base of params for requests the server sends (or, in 2026-07-28, embeds in input requests). */
export type ServerRequestParams = { _meta?: Meta };

export type NotificationParams = { _meta?: NotificationMeta };

export type PaginatedParams = RequestParams & { cursor?: Cursor };

/**
 * 'complete' and 'input_required' are core. Extensions may add more (the tasks extension adds
 * 'task'). The `string & {}` keeps editor completion for the literal values.
 */
export type ResultType = 'complete' | 'input_required' | (string & {});

export type Result = {
  _meta?: ResultMeta;
  /** 2026-07-28. If it is missing, which is always the case for legacy peers, read it as 'complete'. */
  resultType?: ResultType;
};

/**
 * A finished result. `resultType` is narrowed to 'complete' here so that
 * `r.resultType === 'input_required'` separates it from `InputRequiredResult`.
 */
export type FinalResult = Result & { resultType?: 'complete' };

export type EmptyResult = FinalResult;

export type PaginatedResult = { nextCursor?: Cursor };

export type CacheScope = 'public' | 'private';

/** 2026-07-28 cache hints. Modern servers MUST send both on complete results of cacheable methods. */
export type CacheableResult = {
  /** Freshness lifetime in milliseconds. If it is missing or negative, read it as 0. */
  ttlMs?: number;
  cacheScope?: CacheScope;
};

// ---------------------------------------------------------------------------------------------
// Common data types
// ---------------------------------------------------------------------------------------------

/** Since 2025-11-25. */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  /** Since 2025-06-18. */
  title?: string;
  /** Since 2025-11-25. */
  description?: string;
  /** Since 2025-11-25. */
  websiteUrl?: string;
  /** Since 2025-11-25. */
  icons?: Icon[];
}

export interface Annotations {
  audience?: Role[];
  /** 0 (least important) to 1 (most important). */
  priority?: number;
  /** ISO 8601 timestamp. Since 2025-06-18. */
  lastModified?: string;
}

// ---------------------------------------------------------------------------------------------
// Content
// ---------------------------------------------------------------------------------------------

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ImageContent {
  type: 'image';
  /** base64 */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** Since 2025-03-26. */
export interface AudioContent {
  type: 'audio';
  /** base64 */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

interface ResourceContentsBase {
  uri: string;
  mimeType?: string;
  _meta?: Meta;
}

export interface TextResourceContents extends ResourceContentsBase {
  text: string;
}

export interface BlobResourceContents extends ResourceContentsBase {
  /** base64 */
  blob: string;
}

export type ResourceContents = TextResourceContents | BlobResourceContents;

export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

/** A pointer to a resource instead of its contents. Since 2025-06-18. */
export interface ResourceLink extends Resource {
  type: 'resource_link';
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** Sampling only, since 2025-11-25. The model asks to call a tool. */
export interface ToolUseContent {
  type: 'tool_use';
  id: string;
  name: string;
  input: { [key: string]: unknown };
  _meta?: Meta;
}

/** Sampling only, since 2025-11-25. Answers the `ToolUseContent` with the same id. */
export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Meta;
}

export type SamplingContentBlock = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export interface SamplingMessage {
  role: Role;
  /** A single block, or (since 2025-11-25) an array of blocks. */
  content: SamplingContentBlock | SamplingContentBlock[];
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Capabilities
// ---------------------------------------------------------------------------------------------

/** Experimental tasks as in 2025-11-25 only. 2026-07-28 moved tasks into an extension. */
export interface ClientTasksCapability {
  list?: JsonObject;
  cancel?: JsonObject;
  requests?: {
    sampling?: { createMessage?: JsonObject };
    elicitation?: { create?: JsonObject };
  };
}

/** Experimental tasks as in 2025-11-25 only. */
export interface ServerTasksCapability {
  list?: JsonObject;
  cancel?: JsonObject;
  requests?: {
    tools?: { call?: JsonObject };
  };
}

export interface ClientCapabilities {
  experimental?: { [name: string]: JsonObject };
  /** 2026-07-28. Keys are extension ids such as `io.modelcontextprotocol/tasks`. */
  extensions?: { [id: string]: JsonObject };
  /** In 2026-07-28 it is just `{}` (list_changed is gone). */
  roots?: { listChanged?: boolean };
  /** Sub-flags since 2025-11-25. */
  sampling?: { context?: JsonObject; tools?: JsonObject };
  /** Since 2025-06-18. Sub-flags since 2025-11-25. An empty object means form only. */
  elicitation?: { form?: JsonObject; url?: JsonObject };
  tasks?: ClientTasksCapability;
}

export interface ServerCapabilities {
  experimental?: { [name: string]: JsonObject };
  /** 2026-07-28. */
  extensions?: { [id: string]: JsonObject };
  logging?: JsonObject;
  /** Since 2025-03-26. Before that the method existed without a flag. */
  completions?: JsonObject;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  tasks?: ServerTasksCapability;
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/** A JSON Schema node. In 2020-12, `true` and `false` are valid schemas too. */
export type JsonSchema = boolean | { [keyword: string]: unknown };

/** Legacy revisions allow only type/properties/required here. 2026-07-28 allows any 2020-12 keyword. */
export type ToolInputSchema = {
  $schema?: string;
  type: 'object';
  properties?: { [name: string]: JsonSchema };
  required?: string[];
  [keyword: string]: unknown;
};

/** Legacy revisions require an object schema. 2026-07-28 allows any schema. */
export type ToolOutputSchema = {
  $schema?: string;
  [keyword: string]: unknown;
};

/** Hints only. Don't trust them unless the server is trusted. Since 2025-03-26. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** 2025-11-25 only. */
export interface ToolExecution {
  taskSupport?: 'forbidden' | 'optional' | 'required';
}

export interface Tool {
  name: string;
  /** Since 2025-06-18. */
  title?: string;
  description?: string;
  /** Since 2025-11-25. */
  icons?: Icon[];
  inputSchema: ToolInputSchema;
  /** Since 2025-06-18. */
  outputSchema?: ToolOutputSchema;
  annotations?: ToolAnnotations;
  execution?: ToolExecution;
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Resources, prompts, roots
// ---------------------------------------------------------------------------------------------

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, if known. */
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface ResourceTemplate {
  /** An RFC 6570 URI template. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface Root {
  /** Must be a `file://` URI. */
  uri: string;
  name?: string;
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------------------------

export interface ModelHint {
  /** A substring to match against model names. Advisory only. */
  name?: string;
}

export interface ModelPreferences {
  /** In order of preference. */
  hints?: ModelHint[];
  /** 0..1 */
  costPriority?: number;
  /** 0..1 */
  speedPriority?: number;
  /** 0..1 */
  intelligencePriority?: number;
}

/** Since 2025-11-25. */
export interface ToolChoice {
  mode?: 'auto' | 'required' | 'none';
}

/** 'thisServer' and 'allServers' are deprecated since 2025-11-25. */
export type IncludeContext = 'none' | 'thisServer' | 'allServers';

export type StopReason = 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});

/** 2025-11-25 task augmentation: ask the receiver to run the request as a task. */
export interface TaskMetadata {
  ttl?: number;
}

// ---------------------------------------------------------------------------------------------
// Elicitation schemas (flat objects of primitive fields only)
// ---------------------------------------------------------------------------------------------

export interface StringSchema {
  type: 'string';
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
}

export interface NumberSchema {
  type: 'number' | 'integer';
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
}

export interface BooleanSchema {
  type: 'boolean';
  title?: string;
  description?: string;
  default?: boolean;
}

export interface EnumOption {
  const: string;
  title: string;
}

export interface UntitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  default?: string;
}

export interface TitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  oneOf: EnumOption[];
  default?: string;
}

export interface UntitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
}

export interface TitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: EnumOption[] };
  default?: string[];
}

/** The 2025-06-18 form: labels in a parallel `enumNames` array. Still accepted. */
export interface LegacyTitledEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  default?: string;
}

export type SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema;
export type MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema;
export type EnumSchema = SingleSelectEnumSchema | MultiSelectEnumSchema | LegacyTitledEnumSchema;

export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;

export interface ElicitRequestedSchema {
  $schema?: string;
  type: 'object';
  properties: { [name: string]: PrimitiveSchemaDefinition };
  required?: string[];
}

export type ElicitAction = 'accept' | 'decline' | 'cancel';

/** One answered field. Arrays (multi-select) are allowed since 2025-11-25. */
export type ElicitValue = string | number | boolean | string[];

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
export type ListResourceTemplatesResult = FinalResult &
  PaginatedResult &
  CacheableResult & { resourceTemplates: ResourceTemplate[] };

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
