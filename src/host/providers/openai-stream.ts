// A Chat Completions answer, assembled from stream chunks or read whole. Tool calls stream as
// deltas keyed by `index`: the id and name come first, the arguments in fragments to append.
// Compatible servers differ: Ollama sends each call whole, Gemini may leave out `index`, some
// servers omit the id or repeat the name in every delta; all of that is absorbed here.
import type { ModelEvent, ModelResponse, ModelToolCall } from '../model.js';

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
  started: boolean;
}

const STOP_REASONS: Record<string, ModelResponse['stopReason']> = {
  stop: 'end',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'length',
  content_filter: 'refusal',
};

/** A chunk or a whole completion as the endpoint sent it (only the fields read here). */
interface Choice {
  delta?: ChoiceMessage;
  message?: ChoiceMessage;
  finish_reason?: string | null;
}
interface ChoiceMessage {
  content?: string | null;
  refusal?: string | null;
  tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string | Record<string, unknown> } }>;
}
export interface ChatChunk {
  model?: string;
  choices?: Choice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}

export class ChatAccumulator {
  private text = '';
  private readonly calls: PendingCall[] = [];
  private finish: string | undefined;
  private refused = false;
  private usage: ModelResponse['usage'];
  private model: string | undefined;
  private generatedIds = 0;

  constructor(
    private readonly onEvent: ((event: ModelEvent) => void) | undefined,
    /** Rewrites a finished call's arguments (strict mode's nulls for optional properties). */
    private readonly finishArguments: (name: string, args: string) => string,
  ) {}

  /** Whether the endpoint said why it stopped (a stream without `[DONE]` is then still complete). */
  get finished(): boolean {
    return this.finish !== undefined;
  }

  /** One chunk of a stream (or a whole completion, `whole` set: `message` instead of `delta`). */
  add(chunk: ChatChunk, whole = false): void {
    if (typeof chunk.model === 'string') this.model = chunk.model;
    if (chunk.usage) {
      this.usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    }
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (choice === undefined) return;
    const delta = whole ? choice.message : choice.delta;
    if (delta) {
      if (typeof delta.content === 'string' && delta.content !== '') {
        this.text += delta.content;
        this.onEvent?.({ type: 'text', delta: delta.content });
      }
      if (typeof delta.refusal === 'string' && delta.refusal !== '') {
        this.refused = true;
        this.text += delta.refusal;
        this.onEvent?.({ type: 'text', delta: delta.refusal });
      }
      if (Array.isArray(delta.tool_calls)) for (const d of delta.tool_calls) this.addCallDelta(d, whole);
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') this.finish = choice.finish_reason;
  }

  private addCallDelta(d: NonNullable<ChoiceMessage['tool_calls']>[number], whole: boolean): void {
    let call: PendingCall | undefined;
    if (typeof d.index === 'number') call = this.calls[d.index];
    else if (whole) call = undefined;
    else if (d.id !== undefined) call = this.calls.find((c) => c.id === d.id);
    else call = this.calls[this.calls.length - 1];
    if (call === undefined) {
      call = { id: '', name: '', arguments: '', started: false };
      this.calls[typeof d.index === 'number' && !whole ? d.index : this.calls.length] = call;
    }
    if (typeof d.id === 'string' && d.id !== '' && call.id === '') call.id = d.id;
    const fn = d.function;
    if (typeof fn?.name === 'string' && fn.name !== '' && call.name === '') call.name = fn.name;
    if (typeof fn?.arguments === 'string') call.arguments += fn.arguments;
    // Some servers (Ollama's native shape leaking through) send the arguments as an object.
    else if (typeof fn?.arguments === 'object' && fn.arguments !== null) call.arguments += JSON.stringify(fn.arguments);
    if (!call.started && call.name !== '') {
      if (call.id === '') call.id = `call_${++this.generatedIds}_${Date.now().toString(36)}`;
      call.started = true;
      this.onEvent?.({ type: 'tool_call_start', id: call.id, name: call.name });
    }
  }

  /** The finished turn; emits a `tool_call` event per complete call, in index order. */
  result(): ModelResponse {
    const toolCalls: ModelToolCall[] = [];
    for (const c of this.calls) {
      if (c === undefined || c.name === '') continue;
      const call: ModelToolCall = { id: c.id, name: c.name, arguments: this.finishArguments(c.name, c.arguments.trim() === '' ? '{}' : c.arguments) };
      toolCalls.push(call);
      this.onEvent?.({ type: 'tool_call', call });
    }
    let stopReason = STOP_REASONS[this.finish ?? ''] ?? 'other';
    // Several servers say "stop" with tool calls in the turn (Ollama, llama.cpp): the calls decide.
    if (toolCalls.length > 0 && (stopReason === 'end' || stopReason === 'other')) stopReason = 'tool_calls';
    if (this.refused) stopReason = 'refusal';
    const response: ModelResponse = { text: this.text, toolCalls, stopReason };
    if (this.usage) response.usage = this.usage;
    if (this.model) response.model = this.model;
    return response;
  }
}
