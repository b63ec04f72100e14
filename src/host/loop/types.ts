// The shapes of the host library: what a Host is given (HostOptions), what it asks the user
// (HostInteraction), what it reports while it works (HostEvent) and what a message's turn
// ends with (Answer). docs/host.md "Library API" walks through them.
import type { CodeModeOptions } from '../../codemode/code-mode.js';
import type { ToolAnnotations } from '../../protocol/types.js';
import type { CallToolResult, CreateMessageParams, ElicitParams, ElicitResult } from '../../protocol/params.js';
import type { MessageMiddleware } from '../../engine/middleware.js';
import type { ModelContent, ModelProvider, ModelRequest, ModelResponse, ModelUsage } from '../model.js';
import type { ServerPool } from '../../pool/pool.js';
import type { PoolEvent, PoolOptions } from '../../pool/pool-types.js';
import type { ProviderConfig } from '../providers/index.js';
import type { ToolRanker } from '../../pool/search/tool-index.js';

/** What the policy does with a tool call: run it, ask the user first, or refuse it. */
export type ApprovalDecision = 'auto' | 'ask' | 'deny';

/**
 * Which tool calls run without asking. A tool's annotations are hints from its server: a call to
 * a tool with `readOnlyHint: true` takes `readOnly`, one with `destructiveHint: true` (and not
 * read-only) takes `destructive`, any other takes `default`. `tools` overrides all three by
 * name: keys are exact names or globs (`*`, `?`) matched against the model-facing name, the
 * server's own tool name, and `server/tool`; the first key (in the object's order) that matches
 * decides.
 */
export interface ApprovalPolicy {
  /** Default `auto`. */
  readOnly?: ApprovalDecision;
  /** Default `ask`. */
  destructive?: ApprovalDecision;
  /** Default `auto`. */
  default?: ApprovalDecision;
  tools?: Record<string, ApprovalDecision>;
}

/** A tool call the user is asked to allow. */
export interface ApprovalRequest {
  callId: string;
  /** The model-facing name. */
  name: string;
  server: string;
  /** The server's own tool name. */
  tool: string;
  arguments: Record<string, unknown>;
  annotations: ToolAnnotations | undefined;
  /** Why the user is asked (`destructive tool`, `policy for "fs_*"`, ...). */
  reason: string;
}

/** A server asks the user for input (`elicitation/create`: a form, or a URL to open). */
export interface ElicitationRequest {
  server: string;
  params: ElicitParams;
}

/** A server asks the host's model for a completion (`sampling/createMessage`). */
export interface SamplingRequest {
  server: string;
  params: CreateMessageParams;
}

/**
 * The user, as the host reaches them. Every member is optional: without `approve`, calls the
 * policy would ask about are refused; without `elicit`, elicitations are declined; without
 * `approveSampling`, sampling requests are refused.
 */
export interface HostInteraction {
  approve?(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> | boolean;
  elicit?(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitResult> | ElicitResult;
  approveSampling?(request: SamplingRequest, signal: AbortSignal): Promise<boolean> | boolean;
}

/** A tool call as `meta` sees it. */
export interface ToolCallInfo {
  id: string;
  name: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface ResultLimit {
  /** Characters of text a result may give the model; beyond it head and tail are kept. Default 20 000. */
  maxChars?: number;
}

/**
 * When tool definitions are deferred: the model then gets `search_tools` instead of every
 * definition (or, with a provider that searches deferred tools itself, every definition marked
 * for deferred loading), and the tools a search found stay offered for the rest of the conversation.
 */
export interface DeferToolsOptions {
  /** More tools than this are deferred, whatever their size. Default 64. */
  threshold?: number;
  /**
   * Definitions estimated to take more than this share of the model's context window
   * (`HostOptions.contextWindow`) are deferred, however few. Default 0.1 (10 %).
   */
  share?: number;
  /**
   * Let a provider that searches deferred tools itself do it (`ModelProvider.nativeToolSearch`:
   * Anthropic's tool search tool with the real API). Default true; false: always `search_tools`.
   */
  provider?: boolean;
  /**
   * A second ranker fused with the BM25F index (`EmbeddingRanker` over an `/embeddings`
   * endpoint). When it fails, `search_tools` answers from BM25F alone and `onRankerError` hears why.
   */
  ranker?: ToolRanker;
  onRankerError?: (error: unknown) => void;
}

/**
 * A Host: the servers (anything ServerPool takes, or a pool of your own), a model (a provider
 * config or a ModelProvider), and how the loop behaves.
 */
/** What a Host's own pool is given: every pool option but the ones the Host answers itself. */
export type HostPoolOptions = Omit<PoolOptions, 'handlers' | 'onEvent'>;

/**
 * @deprecated The pool options at the top of HostOptions, as before `pool` took them: they still
 * work (merged under `pool`, which wins), but give them as `pool: { servers, config, ... }`.
 */
export type FlatPoolOptions = HostPoolOptions;

export interface HostOptions extends FlatPoolOptions {
  /**
   * The servers: options of the Host's own ServerPool (`{ servers, config, cwd, era, ... }`), or
   * a pool made elsewhere (its own options stand; the Host's `close()` closes it).
   */
  pool?: HostPoolOptions | ServerPool;
  model: ModelProvider | ProviderConfig;
  /** The system prompt of every conversation (a conversation may set its own). */
  system?: string;
  approval?: ApprovalPolicy;
  interaction?: HostInteraction;
  /** Model turns per user message. Default 20. */
  maxSteps?: number;
  /**
   * Per tool call (ms); the server's progress restarts it. Default: the server's own `timeoutMs`,
   * else the pool's `requestTimeoutMs` (60 000). When set, it applies to every server.
   */
  toolTimeoutMs?: number;
  /** `false`: results reach the model whole. */
  resultLimit?: ResultLimit | false;
  /** `false`: every tool definition is always sent. */
  deferTools?: DeferToolsOptions | false;
  /**
   * The model's context window, in tokens: `deferTools.share` is a share of it. Default: from
   * the model's name (`contextWindowOf`: GPT, Claude, Gemini, Llama, Qwen, Mistral... families),
   * 32,768 for a model it does not know.
   */
  contextWindow?: number;
  /**
   * Code mode: the model gets two tools instead of the servers' (`search_api`, which finds
   * functions of a TypeScript API made of every tool, and `run_code`, which runs a JavaScript
   * program calling them in a sandbox); only what the program returns or prints reaches the
   * model. Each call a program makes is approved, reported and traced as a direct call is.
   * Needs the optional packages `quickjs-emscripten-core` and `@jitl/quickjs-wasmfile-release-sync`
   * (`start()` rejects without them). `deferTools` does not apply, except its `ranker`, which
   * `search_api` fuses in as `search_tools` does. Default off.
   */
  codeMode?: boolean | CodeModeOptions;
  /** Extra `params._meta` of a tool call. */
  meta?: (call: ToolCallInfo) => Record<string, unknown> | undefined;
  /** Temperature and token limit of the conversation's model turns. */
  temperature?: number;
  maxTokens?: number;
  onEvent?: (event: HostEvent) => void;
  /** Wraps the loop's work (tracing: `otelHost()` from `mcpkit/otel`). Unset, the loop calls straight through. */
  observer?: HostObserver;
}

/**
 * Around-hooks on what the loop does, for tracing and the like. Each gets what is about to
 * happen and `run`, which does it: the hook must call `run` once and return (or rethrow) what
 * it gives. Every member is optional.
 */
export interface HostObserver {
  /** One user message, from `send` until its answer. */
  message?(info: { conversationId: string; signal: AbortSignal }, run: () => Promise<Answer>): Promise<Answer>;
  /** One model turn: a step of a message, or the answer to a server's sampling request (`server` set). */
  modelCall?(info: ModelCallInfo, run: () => Promise<ModelResponse>): Promise<ModelResponse>;
  /** One call to a server's tool, after approval: `run` makes the `tools/call` (it rejects on timeout, cancellation, a protocol error). */
  toolCall?(info: ToolCallInfo & { signal: AbortSignal }, run: () => Promise<CallToolResult>): Promise<CallToolResult>;
  /** Waiting for the user to allow a tool call; `run` resolves with their answer. */
  approval?(info: ToolCallInfo & { reason: string; signal: AbortSignal }, run: () => Promise<boolean>): Promise<boolean>;
  /** Message middleware for the pool's client of `server` (called for each connection it opens; not used with a `pool` made elsewhere: give that pool `clientMiddleware`). */
  clientMiddleware?(server: string): MessageMiddleware[];
}

/** A model turn as a HostObserver sees it. */
export interface ModelCallInfo {
  /** `openai`, `anthropic` (the provider's `kind`). */
  provider: string;
  model: string;
  request: ModelRequest;
  /** The server whose sampling request this turn answers. */
  server?: string;
}

/** Everything the host does, as it happens. */
export type HostEvent =
  | { type: 'server'; event: PoolEvent }
  | { type: 'model_start'; step: number }
  | { type: 'text'; delta: string }
  | { type: 'model_end'; step: number; response: ModelResponse }
  | { type: 'tool_call'; id: string; name: string; server: string; tool: string; arguments: Record<string, unknown> }
  /** `by`: who decided; `nobody` when the call needed approval and there was no `approve` to ask. */
  | { type: 'approval'; id: string; name: string; approved: boolean; by: 'policy' | 'user' | 'nobody' }
  | { type: 'tool_progress'; id: string; progress: number; total?: number; message?: string }
  | {
      type: 'tool_result';
      id: string;
      name: string;
      server: string;
      result: CallToolResult;
      isError: boolean;
      /** Part of the text was kept back (the model can read it with `read_full_result`). */
      truncated: boolean;
      durationMs: number;
    }
  /** The call could not be made: unknown tool, bad JSON arguments, server down, timeout, cancelled, denied. */
  | { type: 'tool_error'; id: string; name: string; message: string }
  /** Code mode: a program starts (`id` is the run_code call's; its tool calls have ids `<id>.1`, `<id>.2`...). */
  | { type: 'code_run'; id: string; code: string }
  /** Code mode: a program ended; `text` is what the model reads. */
  | { type: 'code_result'; id: string; text: string; isError: boolean; calls: number; durationMs: number }
  | { type: 'sampling'; server: string; params: CreateMessageParams }
  | { type: 'elicitation'; server: string; params: ElicitParams }
  | { type: 'answer'; text: string };

export type HostEventType = HostEvent['type'];

/** One tool call of a turn and how it ended. */
export interface ToolCallRecord {
  id: string;
  /** The name the model used (it may name no tool). */
  name: string;
  server: string | undefined;
  tool: string | undefined;
  /** Parsed; `{}` when the model's JSON could not be read. */
  arguments: Record<string, unknown>;
  result?: CallToolResult;
  /** Why no result: the message the model was given. */
  error?: string;
}

/** What `send` resolves with. */
export interface Answer {
  /** The model's final text. */
  text: string;
  /** `max_steps` when the step limit ended the turn before the model did. */
  stopReason: ModelResponse['stopReason'] | 'max_steps';
  /** Model turns taken. */
  steps: number;
  /** The model's calls, each followed by the calls a code-mode program it ran made. */
  toolCalls: ToolCallRecord[];
  /** Summed over the steps, when the endpoint reported it. */
  usage?: ModelUsage;
}

export interface SendOptions {
  /** Aborting it aborts the model stream and every running tool call; `send` rejects with an AbortError. */
  signal?: AbortSignal;
  /** This message's events (the Host's `onEvent` sees them too). */
  onEvent?: (event: HostEvent) => void;
}

export interface ConversationOptions {
  /** This conversation's system prompt instead of the Host's. */
  system?: string;
}

/** What a user message may carry. */
export type UserInput = string | ModelContent[];
