// The host loop: a user message, then model turns and tool calls until the model answers. Each
// step reads the tools offered from the pool anew (so a server's list_changed or a reconnect
// takes effect between steps), runs the step's calls in parallel, and gives the model one tool
// message per call, errors included, so that it can correct itself.
import { ModelError, type ModelMessage, type ModelResponse, type ModelTool, type ModelUsage } from '../model.js';
import type { Tool } from '../../protocol/types.js';
import type { HostTool } from '../../pool/tool-source.js';
import { approvalPolicy, type PolicyVerdict } from './approval.js';
import { type CallOutcome, runCall, type StepEnv } from './calls.js';
import { completeObserved, type LoopContext, safeCall } from './context.js';
import { HostCodeMode } from './code.js';
import { CutResults, DEFAULT_MAX_CHARS } from './results.js';
import { runSearch, searchTool, ToolIndex } from './search.js';
import { contextWindowOf, estimateTokens } from '../budget.js';
import type { Answer, ConversationOptions, HostEvent, SendOptions, ToolCallRecord, UserInput } from './types.js';

export type { LoopContext } from './context.js';

export const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_DEFER_THRESHOLD = 64;
export const DEFAULT_DEFER_SHARE = 0.1;
/** Anthropic's tool search takes at most this many tools; beyond, the host's own search. */
const NATIVE_SEARCH_MAX = 10_000;

/** The error `send` rejects with when its signal is aborted (name `AbortError`, the reason as `cause`). */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const error = new Error('The message was cancelled', { cause: reason });
  error.name = 'AbortError';
  return error;
}

/**
 * One conversation with the model: its message history, and the tools it found through
 * `search_tools` and the results it may still read in full. Made by `Host.conversation()`.
 * One message at a time: `send` while another is answered rejects.
 */
export class Conversation {
  private history: ModelMessage[] = [];
  private readonly cut: CutResults | undefined;
  /** Model-facing names `search_tools` returned: offered in every later step. */
  private readonly found = new Set<string>();
  /** Every name offered in this conversation (bounded by the tools servers ever had). */
  private readonly known = new Set<string>();
  private readonly policy: (tool: HostTool) => PolicyVerdict;
  private readonly schemas = new WeakMap<Tool, Record<string, unknown>>();
  /** Estimated tokens of each tool's definition, and of a whole listing (the pool's array, as long as it stands). */
  private readonly tokens = new WeakMap<Tool, number>();
  private listing: { of: readonly HostTool[]; tokens: number } | undefined;
  /** Code mode's tools, when `codeMode` is on: they stand in for every server's tools. */
  private readonly code: HostCodeMode | undefined;
  private busy = false;
  /** For observers (`gen_ai.conversation.id`): made the first time one asks. */
  private id: string | undefined;

  constructor(
    private readonly ctx: LoopContext,
    private readonly options: ConversationOptions = {},
  ) {
    const limit = ctx.options.resultLimit;
    this.cut = limit === false ? undefined : new CutResults(limit?.maxChars ?? DEFAULT_MAX_CHARS);
    this.policy = approvalPolicy(ctx.options.approval);
    const code = ctx.options.codeMode;
    this.code = code ? new HostCodeMode(ctx, code === true ? {} : code) : undefined;
  }

  /** The history so far (user, assistant and tool messages; the system prompt is not in it). */
  get messages(): readonly ModelMessage[] {
    return this.history;
  }

  /** Forgets the history, found tools and cut results. */
  reset(): void {
    if (this.busy) throw new Error('Cannot reset a conversation while a message is being answered');
    this.history = [];
    this.found.clear();
    this.known.clear();
    this.cut?.clear();
  }

  /**
   * Sends a user message and runs the loop until the model answers, the step limit is reached,
   * the signal is aborted (rejects with an AbortError), or the model fails (rejects with a
   * ModelError). A message that rejects leaves the history as it was before it.
   */
  async send(input: UserInput, options: SendOptions = {}): Promise<Answer> {
    if (this.busy) throw new Error('This conversation is still answering the previous message: wait for it, or abort it');
    const pair = options.signal ? eitherSignal(options.signal, this.ctx.closed) : undefined;
    const signal = pair?.signal ?? this.ctx.closed;
    if (signal.aborted) {
      pair?.dispose();
      throw abortError(signal);
    }
    this.busy = true;
    const listener = options.onEvent;
    if (listener) this.ctx.sends.add(listener);
    const emit = (event: HostEvent) => {
      this.ctx.emit(event);
      safeCall(listener, event);
    };
    const before = this.history.length;
    const observe = this.ctx.options.observer?.message;
    try {
      if (!observe) return await this.run(input, signal, emit);
      this.id ??= globalThis.crypto.randomUUID();
      return await observe.call(this.ctx.options.observer, { conversationId: this.id, signal }, () => this.run(input, signal, emit));
    } catch (err) {
      this.history.length = before;
      if (signal.aborted) throw abortError(signal);
      throw err;
    } finally {
      this.busy = false;
      pair?.dispose();
      if (listener) this.ctx.sends.delete(listener);
    }
  }

  private async run(input: UserInput, signal: AbortSignal, emit: (event: HostEvent) => void): Promise<Answer> {
    const o = this.ctx.options;
    const maxSteps = Math.max(1, o.maxSteps ?? DEFAULT_MAX_STEPS);
    const system = this.options.system ?? o.system;
    this.history.push({ role: 'user', content: input });
    const toolCalls: ToolCallRecord[] = [];
    let usage: ModelUsage | undefined;
    let malformedBefore: string | undefined;
    /** The text of the paused parts of this turn (Anthropic's pause_turn), before the part that ends it. */
    let paused = '';
    for (let step = 1; ; step++) {
      const { tools, offered } = this.stepTools();
      const last = step === maxSteps;
      emit({ type: 'model_start', step });
      const response: ModelResponse = await completeObserved(
        this.ctx,
        {
          messages: system ? [{ role: 'system', content: system }, ...this.history] : [...this.history],
          tools,
          signal,
          // The last step asks for an answer: tools cannot run after it.
          ...(last && tools.length > 0 ? { toolChoice: 'none' as const } : {}),
          ...(o.maxTokens === undefined ? {} : { maxTokens: o.maxTokens }),
          ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
        },
        (event) => {
          if (event.type === 'text') emit({ type: 'text', delta: event.delta });
        },
      );
      if (signal.aborted) throw abortError(signal);
      emit({ type: 'model_end', step, response });
      if (response.usage) {
        usage = {
          inputTokens: (usage?.inputTokens ?? 0) + response.usage.inputTokens,
          outputTokens: (usage?.outputTokens ?? 0) + response.usage.outputTokens,
        };
      }
      const calls = response.toolCalls;
      this.history.push({
        role: 'assistant',
        content: response.text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        ...(response.providerContent ? { providerContent: response.providerContent } : {}),
      });
      const finish = (stopReason: Answer['stopReason']): Answer => {
        const text = paused + response.text;
        emit({ type: 'answer', text });
        return { text, stopReason, steps: step, toolCalls, ...(usage ? { usage } : {}) };
      };
      if (calls.length === 0 && response.stopReason === 'pause') {
        // The provider paused a long turn: the next request sends it back as it came (the history
        // now ends with it) and the model continues it. A step like any other.
        if (last) return finish('max_steps');
        paused += response.text;
        continue;
      }
      if (calls.length === 0) return finish(response.stopReason);
      paused = '';
      if (last) {
        // Tool calls after the last step cannot be answered by the model: recorded, not run.
        for (const call of calls) {
          const text = `Not run: the limit of ${maxSteps} steps for one message was reached.`;
          emit({ type: 'tool_error', id: call.id, name: call.name, message: text });
          toolCalls.push({ id: call.id, name: call.name, server: undefined, tool: undefined, arguments: {}, error: text });
          this.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: [{ type: 'text', text }], isError: true });
        }
        return finish('max_steps');
      }
      const env: StepEnv = {
        ctx: this.ctx,
        policy: this.policy,
        signal,
        emit,
        cut: this.cut,
        offered,
        known: this.known,
        search: (args) => this.search(args, signal),
        ...(this.code ? { code: this.code } : {}),
      };
      const settled = await Promise.allSettled(calls.map((call) => runCall(env, call)));
      if (signal.aborted) throw abortError(signal);
      const outcomes: CallOutcome[] = settled.map((s) => {
        if (s.status === 'rejected') throw s.reason;
        return s.value;
      });
      for (const out of outcomes) {
        toolCalls.push(out.record, ...(out.inner ?? []));
        this.history.push(out.message);
      }
      const malformed = outcomes.flatMap((out) => (out.malformed ? [out.malformed] : []));
      if (malformed.length > 0 && malformedBefore !== undefined) {
        throw new ModelError(
          `The model made malformed tool calls in two steps in a row (first: ${malformedBefore}; then: ${malformed.join('; ')}). ` +
            'It may not support tool calling well: try another model, or fewer tools.',
        );
      }
      malformedBefore = malformed.length > 0 ? malformed.join('; ') : undefined;
    }
  }

  /** The tools for the next model turn, read from the pool now. */
  private stepTools(): { tools: ModelTool[]; offered: Set<string> } {
    const all = this.ctx.tools.tools();
    const defer = this.ctx.options.deferTools;
    let tools: ModelTool[];
    if (this.code) {
      tools = this.code.definitions();
    } else if (defer !== false && this.deferring(all)) {
      // The provider's own search (Anthropic's tool search tool) keeps what it found loaded
      // through the history; the host's search_tools through `found`.
      tools =
        this.ctx.model.nativeToolSearch && defer?.provider !== false && all.length <= NATIVE_SEARCH_MAX
          ? all.map((t) => ({ ...this.definition(t), defer: true }))
          : [searchTool(all.length), ...all.filter((t) => this.found.has(t.name)).map((t) => this.definition(t))];
    } else {
      tools = all.map((t) => this.definition(t));
    }
    if (this.cut && this.cut.size > 0) tools.push(this.cut.tool());
    for (const t of tools) this.known.add(t.name);
    return { tools, offered: new Set(tools.map((t) => t.name)) };
  }

  /**
   * Whether definitions are deferred: more tools than `deferTools.threshold`, or more estimated
   * tokens than `deferTools.share` of the model's context window.
   */
  private deferring(all: readonly HostTool[]): boolean {
    const o = this.ctx.options;
    const defer = o.deferTools || undefined;
    if (all.length > (defer?.threshold ?? DEFAULT_DEFER_THRESHOLD)) return true;
    const budget = (defer?.share ?? DEFAULT_DEFER_SHARE) * (o.contextWindow ?? contextWindowOf(this.ctx.model.model));
    return this.definitionTokens(all) > budget;
  }

  /** Estimated tokens of every definition in `all`, as the provider is sent them (each tool's estimate kept). */
  private definitionTokens(all: readonly HostTool[]): number {
    if (this.listing?.of === all) return this.listing.tokens;
    let total = 0;
    for (const t of all) {
      let n = this.tokens.get(t.tool);
      if (n === undefined) {
        const d = this.definition(t);
        n = estimateTokens(JSON.stringify({ name: d.name, description: d.description, input_schema: d.inputSchema }));
        this.tokens.set(t.tool, n);
      }
      total += n;
    }
    this.listing = { of: all, tokens: total };
    return total;
  }

  /** A tool as the model sees it; its schema sanitised once per listing of the tool. */
  private definition(t: HostTool): ModelTool {
    let schema = this.schemas.get(t.tool);
    if (!schema) {
      schema = this.ctx.model.sanitizeSchema((t.tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>);
      this.schemas.set(t.tool, schema);
    }
    const description = t.tool.description ?? t.tool.title;
    return description === undefined ? { name: t.name, inputSchema: schema } : { name: t.name, description, inputSchema: schema };
  }

  private async search(args: Record<string, unknown>, signal: AbortSignal): Promise<{ text: string; isError: boolean }> {
    const out = await runSearch(indexOf(this.ctx), args, (t) => this.definition(t), signal);
    for (const t of out.found) this.found.add(t.name);
    return out;
  }
}

/**
 * One search index per host (its conversations share it), brought up to date when the pool's
 * list changed: tools listed before keep their analysis, so only a changed server's are redone.
 */
const indexes = new WeakMap<LoopContext, { index: ToolIndex; of: readonly HostTool[] }>();
function indexOf(ctx: LoopContext): ToolIndex {
  const all = ctx.tools.tools();
  const held = indexes.get(ctx);
  if (held) {
    if (held.of !== all) {
      held.index.update(all);
      held.of = all;
    }
    return held.index;
  }
  const defer = ctx.options.deferTools || undefined;
  const index = new ToolIndex(all, {
    instructions: (server) => ctx.tools.instructions?.(server),
    ...(defer?.ranker ? { ranker: defer.ranker } : {}),
    ...(defer?.onRankerError ? { onRankerError: defer.onRankerError } : {}),
  });
  indexes.set(ctx, { index, of: all });
  return index;
}

/**
 * Aborted when either is, with its reason (AbortSignal.any is not in every Node 20). `dispose`
 * takes the listeners off when the message is done, so the Host's long-lived signal does not
 * collect one per message.
 */
function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const both = new AbortController();
  const onA = () => both.abort(a.reason);
  const onB = () => both.abort(b.reason);
  const dispose = () => {
    a.removeEventListener('abort', onA);
    b.removeEventListener('abort', onB);
  };
  if (a.aborted) onA();
  else if (b.aborted) onB();
  else {
    a.addEventListener('abort', onA, { once: true });
    b.addEventListener('abort', onB, { once: true });
  }
  return { signal: both.signal, dispose };
}
