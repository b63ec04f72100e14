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
