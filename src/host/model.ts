// The seam between the host loop and a language model: one provider-neutral conversation shape.
// Providers (providers/openai.ts, providers/anthropic.ts) translate it to and from their wire
// formats; the loop (loop/) and the server pool (src/pool) never see a provider's JSON.

/** A piece of content in a message: what tool results and user input carry. */
export type ModelContent =
  | { type: 'text'; text: string }
  /** Base64 data, never truncated by the host. */
  | { type: 'image'; data: string; mimeType: string };

/** A tool call as the model produced it. `arguments` is the raw JSON text, parsed by the loop. */
export interface ModelToolCall {
  /** The provider's id for the call (`tool_call_id` / `tool_use_id`), echoed in the result. */
  id: string;
  /** The model-facing tool name (the registry maps it back to server and tool). */
  name: string;
  arguments: string;
}

export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ModelContent[] }
  | {
      role: 'assistant';
      content: string;
      toolCalls?: ModelToolCall[];
      /** The turn as its provider gave it (`ModelResponse.providerContent`), sent back to that provider as it was. */
      providerContent?: ProviderContent;
    }
  | {
      role: 'tool';
      /** The `id` of the call this answers. */
      toolCallId: string;
      /** The model-facing name of the tool called (Gemini's endpoint wants it). */
      name: string;
      content: ModelContent[];
      /** The result is an error the model should read and may correct (MCP `isError`). */
      isError?: boolean;
    };

/** A tool offered to the model: a model-facing name and a JSON Schema object for its arguments. */
export interface ModelTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /**
   * The provider keeps this definition out of the model's context until its own tool search
   * finds it (Anthropic's `defer_loading`). Set only for a provider whose `nativeToolSearch` is true.
   */
  defer?: boolean;
}

/**
 * A turn in a provider's own terms, for what the neutral shape cannot hold: Anthropic's tool
 * search blocks (`server_tool_use`, `tool_search_tool_result`), which must be sent back for the
 * tools they found to stay loaded. Only the provider named reads it; others use the neutral fields.
 */
export interface ProviderContent {
  provider: string;
  blocks: unknown[];
}

export interface ModelRequest {
  messages: ModelMessage[];
  tools: ModelTool[];
  /** Aborting it aborts the HTTP request and the stream. */
  signal?: AbortSignal;
  maxTokens?: number;
  temperature?: number;
  /** `none` forbids tool calls for this turn (a sampling request, the last step). */
  toolChoice?: 'auto' | 'none' | 'required';
}

/** What a provider reports while a turn streams in. */
export type ModelEvent =
  | { type: 'text'; delta: string }
  /** A tool call has started (its arguments are still streaming). */
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call'; call: ModelToolCall };

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A finished turn. */
export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  /**
   * Why the model stopped: `tool_calls` when it wants tools run, `length` when it hit the limit,
   * `pause` when the provider paused a long turn (Anthropic's `pause_turn`, while its server tools
   * such as the tool search run): the loop sends the turn back as it came, and the model goes on.
   */
  stopReason: 'end' | 'tool_calls' | 'length' | 'refusal' | 'pause' | 'other';
  usage?: ModelUsage;
  /** The model that answered, as the endpoint named it. */
  model?: string;
  /** The turn in the provider's own terms, when the neutral fields cannot hold all of it; the loop keeps it in the history. */
  providerContent?: ProviderContent;
}

/**
 * A language model behind some API. `complete` streams one turn, calling `onEvent` as text and
 * tool calls arrive, and resolves when the turn is finished. It throws a `ModelError` for a
 * failure the user must see (unreachable endpoint, HTTP error, schema refused, malformed stream).
 */
export interface ModelProvider {
  /** `openai` or `anthropic` (or a user's own). */
  readonly kind: string;
  readonly model: string;
  complete(request: ModelRequest, onEvent?: (event: ModelEvent) => void): Promise<ModelResponse>;
  /**
   * The JSON Schema this provider accepts for a tool's arguments, made from an MCP inputSchema
   * (OpenAI strict mode, Gemini's subset). The registry calls it once per tool and caches it.
   */
  sanitizeSchema(schema: Record<string, unknown>): Record<string, unknown>;
  /** Tool names this provider accepts (OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`). */
  readonly toolNamePattern: RegExp;
  /**
   * The provider searches deferred tools itself (Anthropic's tool search tool with a model that
   * has it): when the host defers definitions, it sends every tool marked `defer` and lets the
   * provider search, instead of offering its own `search_tools`.
   */
  readonly nativeToolSearch?: boolean;
}

/** A model endpoint failed in a way the user must see; `status` is the HTTP status when there was one. */
export class ModelError extends Error {
  readonly status: number | undefined;
  /** What the endpoint said, trimmed (its JSON error message when it sent one). */
  readonly detail: string | undefined;
  constructor(message: string, options: { status?: number; detail?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelError';
    this.status = options.status;
    this.detail = options.detail;
  }
}
