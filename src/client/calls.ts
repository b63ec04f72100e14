import type { JsonObject } from '../jsonrpc/messages.js';
import type { ProgressInfo, RequestOptions } from '../engine/peer.js';
import type { ClientRequestMap } from '../protocol/methods.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { LoggingLevel, Prompt, Resource, ResourceTemplate, Tool } from '../protocol/types.js';
import type {
  CallToolResult,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  InputResponses,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
  ReadResourceResult,
} from '../protocol/params.js';

export interface CallOptions extends RequestOptions {
  /** Called for each progress notification of this call. */
  onprogress?: (progress: ProgressInfo) => void;
  /**
   * 2026-07-28 tasks extension (the `tasks` client option): called with the task when the
   * server turns the call into one, then whenever a poll or a `notifications/tasks` shows its
   * status, status message or update time changed. `timeoutMs` then applies to each poll.
   * 2025-11-25 core tasks: called with the task as created and as it ended; `timeoutMs` then
   * bounds the whole wait for `tasks/result`.
   */
  ontask?: (task: DetailedTask) => void;
  /**
   * Handshake era at 2025-11-25 (core tasks): run a tools/call whose tool makes tasks
   * `'optional'` as a task (`true`, or with a TTL), or plainly (`false`), whatever the `tasks`
   * client option says. `'required'` tools are always run as tasks and others never.
   * Ignored in 2026-07-28, where the server decides.
   */
  task?: boolean | { ttlMs?: number };
  /**
   * 2026-07-28: the result as the server sent it, its `resultType` and the server's identity in
   * `_meta` kept, where callers otherwise get the same shape in both eras. For a relay answering
   * a caller of the same era, whose own server writes its identity over the one kept here.
   */
  asSent?: boolean;
}

type Paginated = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';
const ITEMS: Record<Paginated, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};
/** Guards against a server whose cursors never end. */
const MAX_PAGES = 10_000;

/** Typed calls for every server method, written once over `request`. */
export abstract class ServerCalls {
  abstract request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;

  ping(options?: RequestOptions): Promise<JsonObject> {
    return this.request('ping', undefined, options);
  }

  listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<ListToolsResult> {
    return this.request('tools/list', params, options) as Promise<ListToolsResult>;
  }
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult> {
    const params = nameAndArguments(name, args);
    return this.request('tools/call', params, options) as Promise<CallToolResult>;
  }
  listResources(params?: { cursor?: string }, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.request('resources/list', params, options) as Promise<ListResourcesResult>;
  }
  listResourceTemplates(params?: { cursor?: string }, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.request('resources/templates/list', params, options) as Promise<ListResourceTemplatesResult>;
  }
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', { uri }, options) as Promise<ReadResourceResult>;
  }
  subscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    return this.request('resources/subscribe', { uri }, options);
  }
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    return this.request('resources/unsubscribe', { uri }, options);
  }
  listPrompts(params?: { cursor?: string }, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.request('prompts/list', params, options) as Promise<ListPromptsResult>;
  }
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult> {
    const params = nameAndArguments(name, args);
    return this.request('prompts/get', params, options) as Promise<GetPromptResult>;
  }
  complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult> {
    return this.request('completion/complete', params as unknown as JsonObject, options) as Promise<CompleteResult>;
  }
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<JsonObject> {
    return this.request('logging/setLevel', { level }, options);
  }

  /**
   * 2026-07-28 tasks extension (and 2025-11-25 core tasks, whose `ttl`/`pollInterval` are
   * also given as `ttlMs`/`pollIntervalMs`): the task's state now (`result` once completed, `error` once
   * failed, `inputRequests` while it waits for input). Unknown or expired ids are -32602.
   */
  getTask(taskId: string, options?: RequestOptions): Promise<DetailedTask> {
    return this.request('tasks/get', { taskId }, options) as Promise<unknown> as Promise<DetailedTask>;
  }
  /** Answers some or all of a task's `inputRequests`, by key; applied by the server eventually. */
  async updateTask(taskId: string, inputResponses: InputResponses, options?: RequestOptions): Promise<void> {
    await this.request('tasks/update', { taskId, inputResponses: inputResponses as unknown as JsonObject }, options);
  }
  /** Asks the server to stop a task; the status becomes `cancelled` later, if at all. */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<void> {
    await this.request('tasks/cancel', { taskId }, options);
  }

  /** Walks every page of a list method, yielding items. */
  async *paginate<M extends Paginated>(method: M, options?: RequestOptions): AsyncGenerator<ItemOf<M>> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = (await this.request(method, cursor === undefined ? undefined : { cursor }, options)) as Record<string, unknown>;
      for (const item of (r[ITEMS[method]] as ItemOf<M>[] | undefined) ?? []) yield item;
      // Only a missing nextCursor ends the list; "" is a valid cursor in 2026-07-28.
      if (typeof r.nextCursor !== 'string') return;
      cursor = r.nextCursor;
    }
    throw new Error(`${method}: the server returned more than ${MAX_PAGES} pages`);
  }

  async listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return collect(this.paginate('tools/list', options));
  }
  async listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return collect(this.paginate('resources/list', options));
  }
  async listAllResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return collect(this.paginate('resources/templates/list', options));
  }
  async listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return collect(this.paginate('prompts/list', options));
  }
}

type ItemOf<M extends Paginated> = M extends 'tools/list'
  ? Tool
  : M extends 'resources/list'
    ? Resource
    : M extends 'resources/templates/list'
      ? ResourceTemplate
      : Prompt;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export type { ClientRequestMap };

/**
 * `{ name, arguments }`, filled into an empty object rather than written as a literal: V8 may
 * pretenure a literal's allocation site when a burst of calls keeps its objects alive at a GC,
 * and every later params object would then be born old (see Pending in engine/pending.ts).
 */
function nameAndArguments(name: string, args: Record<string, unknown> | undefined): JsonObject {
  const params: JsonObject = {};
  params.name = name;
  if (args !== undefined) params.arguments = args as JsonObject;
  return params;
}
