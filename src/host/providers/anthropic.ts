// The Anthropic Messages API provider: POST {baseUrl}/v1/messages, streamed as named SSE events
// (message_start, content_block_start/delta/stop, message_delta, message_stop, ping, error).
import { ModelError, type ModelEvent, type ModelProvider, type ModelRequest, type ModelResponse, type ModelToolCall } from '../model.js';
import { events, Exchange, isEventStream, type PostContext, type ProviderHttpOptions, parseEventData, postJson, readJson } from './http.js';
import { searchedTools, TOOL_SEARCH_TOOLS, toAnthropicMessages, toAnthropicToolChoice, toAnthropicTools } from './anthropic-messages.js';
import { sanitizeForAnthropic } from './schema.js';

export interface AnthropicProviderOptions extends ProviderHttpOptions {
  /** The API root (default https://api.anthropic.com); a trailing `/v1`, as OpenAI-style base URLs have, is taken too. */
  baseUrl?: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  model: string;
  /** `max_tokens` when the request sets none (the API requires one). Default 4096. */
  maxTokens?: number;
  /** The `anthropic-version` header (default 2023-06-01). */
  version?: string;
  /** Stream the answer (default true). */
  stream?: boolean;
  /**
   * Anthropic's tool search tool: when the host defers tool definitions, they are sent with
   * `defer_loading` and the API searches them (`bm25`: natural-language queries; `regex`:
   * patterns). Default: `bm25` with the real API (api.anthropic.com) and a model that has it
   * (Claude Opus or Sonnet 4.5 and later), off otherwise (the host's own `search_tools` then).
   */
  toolSearch?: boolean | 'bm25' | 'regex';
  /** `anthropic-beta` flags to send (none by default). */
  betas?: readonly string[];
}

/** Models with the tool search tool: Claude Opus and Sonnet from 4.5 on (later generations too). */
const TOOL_SEARCH_MODELS = /^claude-(opus|sonnet)-(4-[5-9]|[5-9])/;
const REAL_API = 'api.anthropic.com';

/** Tool names the Messages API accepts. */
export const ANTHROPIC_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const STOP_REASONS: Record<string, ModelResponse['stopReason']> = {
  end_turn: 'end',
  stop_sequence: 'end',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'refusal',
  // A long turn paused by the API (its server tools are still at work): sent back as it came, it goes on.
  pause_turn: 'pause',
};

interface Block {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}
interface Usage {
  input_tokens?: number;
  output_tokens?: number;
}

export class AnthropicProvider implements ModelProvider {
  readonly kind = 'anthropic';
  readonly model: string;
  readonly toolNamePattern = ANTHROPIC_TOOL_NAME;
  readonly nativeToolSearch: boolean;
  private readonly search: 'bm25' | 'regex' | undefined;
  private readonly ctx: PostContext;

  constructor(private readonly options: AnthropicProviderOptions) {
    if (!options.model) throw new TypeError('AnthropicProvider: a model is required');
    this.model = options.model;
    // `https://host/v1` (how OpenAI-style endpoints are given) means the same root as `https://host`.
    const base = (options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '').replace(/\/v1$/, '');
    this.ctx = { url: `${base}/v1/messages`, label: 'the Anthropic API' };
    const search = options.toolSearch;
    const auto = search === undefined && hostOf(base) === REAL_API && TOOL_SEARCH_MODELS.test(options.model);
    this.search = search === 'regex' ? 'regex' : search === true || search === 'bm25' || auto ? 'bm25' : undefined;
    this.nativeToolSearch = this.search !== undefined;
  }

  sanitizeSchema(schema: Record<string, unknown>): Record<string, unknown> {
    return sanitizeForAnthropic(schema);
  }

  /** The request body for `request`. */
  body(request: ModelRequest): Record<string, unknown> {
    const search = this.search;
    const { system, messages } = toAnthropicMessages(request.messages, search ? new Set(request.tools.map((t) => t.name)) : undefined);
    const body: Record<string, unknown> = { model: this.model, max_tokens: request.maxTokens ?? this.options.maxTokens ?? 4096, messages };
    if (system !== undefined) body.system = system;
    if (request.tools.length > 0) {
      const deferring = search !== undefined && request.tools.some((t) => t.defer);
      const tools = toAnthropicTools(request.tools, deferring);
      // The search tool itself is never deferred; it stays while the history holds its searches.
      if (search && (deferring || searchedTools(request.messages))) tools.unshift({ ...TOOL_SEARCH_TOOLS[search] });
      body.tools = tools;
      if (request.toolChoice) body.tool_choice = toAnthropicToolChoice(request.toolChoice);
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    body.stream = this.options.stream ?? true;
    return body;
  }

  async complete(request: ModelRequest, onEvent?: (event: ModelEvent) => void): Promise<ModelResponse> {
    const headers: Record<string, string> = { 'anthropic-version': this.options.version ?? '2023-06-01' };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    if (this.options.betas && this.options.betas.length > 0) headers['anthropic-beta'] = this.options.betas.join(',');
    const ctx: PostContext = {
      ...this.ctx,
      explain: (status, detail) =>
        explain(
          ctx,
          status,
          detail,
          request.tools.map((t) => t.name),
        ),
    };
    const exchange = new Exchange(ctx, this.options, request.signal);
    try {
      const response = await postJson(ctx, this.options, exchange, headers, this.body(request));
      if (!isEventStream(response)) return this.whole(await readJson(ctx, response, exchange), onEvent);
      const turn = new AnthropicTurn(ctx, onEvent);
      for await (const event of events(response, exchange)) {
        if (event.data.trim() === '') continue;
        if (turn.add(event.event, parseEventData(ctx, event.data))) break;
      }
      return turn.result();
    } finally {
      exchange.close();
    }
  }

  /** A non-streamed message. */
  private whole(body: unknown, onEvent: ((event: ModelEvent) => void) | undefined): ModelResponse {
    const message = body as { content?: Block[]; stop_reason?: string; usage?: Usage; model?: string };
    if (!Array.isArray(message?.content)) throw new ModelError(`malformed answer from ${this.ctx.label} at ${this.ctx.url}: no content`);
    let text = '';
    const toolCalls: ModelToolCall[] = [];
    for (const b of message.content) {
      if (b.type === 'text' && typeof b.text === 'string') {
        text += b.text;
        onEvent?.({ type: 'text', delta: b.text });
      } else if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') {
        const call = { id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) };
        onEvent?.({ type: 'tool_call_start', id: call.id, name: call.name });
        onEvent?.({ type: 'tool_call', call });
        toolCalls.push(call);
      }
    }
    const response: ModelResponse = { text, toolCalls, stopReason: STOP_REASONS[message.stop_reason ?? ''] ?? 'other' };
    // A paused turn goes back as-is, every block of it (the API continues from them).
    if (response.stopReason === 'pause') response.providerContent = { provider: 'anthropic', blocks: message.content };
    else if (message.content.some((b) => SEARCH_BLOCKS.has(b.type ?? ''))) {
      response.providerContent = { provider: 'anthropic', blocks: message.content.filter((b) => KEPT_BLOCKS.has(b.type ?? '')) };
    }
    if (message.usage) response.usage = { inputTokens: message.usage.input_tokens ?? 0, outputTokens: message.usage.output_tokens ?? 0 };
    if (message.model) response.model = message.model;
    return response;
  }
}

/** Blocks of a tool search the API ran: a turn holding them is kept in the API's own terms. */
const SEARCH_BLOCKS = new Set(['server_tool_use', 'tool_search_tool_result']);
/** Blocks whose deltas this provider does not keep. */
const THINKING = new Set(['thinking', 'redacted_thinking']);
/** The blocks such a turn is sent back with (thinking is not kept by this provider). */
const KEPT_BLOCKS = new Set(['text', 'tool_use', 'server_tool_use', 'tool_search_tool_result']);

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** Tool input JSON as an object (`{}` when it is not one). */
function inputOf(json: string): unknown {
  try {
    const v = JSON.parse(json.trim() === '' ? '{}' : json) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** A 400 about `tools.N.input_schema` is a refused tool schema; the message names tool N. */
function explain(ctx: PostContext, status: number, detail: string, tools: string[]): string | undefined {
  if (status !== 400 || !/input_schema|tools\.\d+/.test(detail)) return undefined;
  const index = /tools\.(\d+)/.exec(detail)?.[1];
  const name = index === undefined ? undefined : tools[Number(index)];
  return `${ctx.label} at ${ctx.url} refused a tool schema${name === undefined ? '' : ` (tool ${name})`} (${status}): ${detail}`;
}

/** One streamed turn: blocks by index, text deltas, tool input JSON in fragments. */
class AnthropicTurn {
  private text = '';
  private readonly blocks = new Map<number, { type: string; id: string; name: string; json: string; text: string; raw: Block }>();
  private readonly toolCalls: ModelToolCall[] = [];
  private stopReason: string | undefined;
  private inputTokens: number | undefined;
  private outputTokens: number | undefined;
  private model: string | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: PostContext,
    private readonly onEvent: ((event: ModelEvent) => void) | undefined,
  ) {}

  private malformed(what: string): ModelError {
    return new ModelError(`malformed stream from ${this.ctx.label} at ${this.ctx.url}: ${what}`);
  }

  /** Takes one event; true once the message is complete. */
  add(name: string, data: unknown): boolean {
    if (typeof data !== 'object' || data === null) throw this.malformed(`the ${name} event is not a JSON object`);
    const d = data as Record<string, unknown>;
    const type = name === 'message' ? String(d.type ?? '') : name;
    switch (type) {
      case 'ping':
        return false;
      case 'error': {
        const err = (d.error ?? {}) as { type?: string; message?: string };
        const detail = err.message ?? JSON.stringify(d);
        const status = err.type === 'overloaded_error' ? 529 : undefined;
        throw new ModelError(`${this.ctx.label} at ${this.ctx.url} failed mid-answer${err.type ? ` (${err.type})` : ''}: ${detail}`, { status, detail });
      }
      case 'message_start': {
        const m = (d.message ?? {}) as { model?: string; usage?: Usage };
        if (typeof m.model === 'string') this.model = m.model;
        this.usage(m.usage);
        return false;
      }
      case 'content_block_start': {
        const block = d.content_block as Block | undefined;
        if (typeof d.index !== 'number' || typeof block !== 'object' || block === null) throw this.malformed('content_block_start without index or block');
        const b = { type: String(block.type), id: String(block.id ?? ''), name: String(block.name ?? ''), json: '', text: '', raw: block };
        this.blocks.set(d.index, b);
        if (b.type === 'text' && typeof block.text === 'string' && block.text !== '') this.addText(block.text, b);
        if (b.type === 'tool_use') {
          if (b.id === '' || b.name === '') throw this.malformed('a tool_use block without id or name');
          this.onEvent?.({ type: 'tool_call_start', id: b.id, name: b.name });
        }
        return false;
      }
      case 'content_block_delta': {
        const block = this.blocks.get(d.index as number);
        const delta = (d.delta ?? {}) as { type?: string; text?: string; partial_json?: string };
        if (block === undefined) throw this.malformed(`content_block_delta for block ${String(d.index)}, which never started`);
        if (delta.type === 'text_delta' && typeof delta.text === 'string') this.addText(delta.text, block);
        else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') block.json += delta.partial_json;
        // thinking_delta, signature_delta, citations_delta: not part of the conversation kept here.
        return false;
      }
      case 'content_block_stop': {
        const block = this.blocks.get(d.index as number);
        if (block?.type === 'tool_use') {
          const call: ModelToolCall = { id: block.id, name: block.name, arguments: block.json.trim() === '' ? '{}' : block.json };
          this.toolCalls.push(call);
          this.onEvent?.({ type: 'tool_call', call });
        }
        return false;
      }
      case 'message_delta': {
        const delta = (d.delta ?? {}) as { stop_reason?: string | null };
        if (typeof delta.stop_reason === 'string') this.stopReason = delta.stop_reason;
        this.usage(d.usage as Usage | undefined);
        return false;
      }
      case 'message_stop':
        this.stopped = true;
        return true;
      default:
        return false; // new event types are ignored, as the API's versioning policy asks
    }
  }

  private addText(delta: string, block: { text: string }): void {
    block.text += delta;
    this.text += delta;
    this.onEvent?.({ type: 'text', delta });
  }

  /** `usage` of message_start (input) and message_delta (output, cumulative; input too on newer models). */
  private usage(u: Usage | undefined): void {
    if (typeof u?.input_tokens === 'number') this.inputTokens = u.input_tokens;
    if (typeof u?.output_tokens === 'number') this.outputTokens = u.output_tokens;
  }

  result(): ModelResponse {
    if (!this.stopped) throw this.malformed('it ended before message_stop');
    const response: ModelResponse = { text: this.text, toolCalls: this.toolCalls, stopReason: STOP_REASONS[this.stopReason ?? ''] ?? 'other' };
    if (this.inputTokens !== undefined || this.outputTokens !== undefined)
      response.usage = { inputTokens: this.inputTokens ?? 0, outputTokens: this.outputTokens ?? 0 };
    if (this.model) response.model = this.model;
    const ordered = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
    const paused = response.stopReason === 'pause';
    if (paused || ordered.some((b) => SEARCH_BLOCKS.has(b.type))) {
      const blocks: unknown[] = [];
      for (const b of ordered) {
        if (b.type === 'text') {
          if (b.text !== '') blocks.push({ type: 'text', text: b.text });
        } else if (b.type === 'tool_use' || b.type === 'server_tool_use') blocks.push({ type: b.type, id: b.id, name: b.name, input: inputOf(b.json) });
        else if (b.type === 'tool_search_tool_result') blocks.push(b.raw);
        // A paused turn keeps the results of the API's other server tools too (web search, fetch...),
        // whole as they came in their content_block_start; thinking is not kept by this provider.
        else if (paused && !THINKING.has(b.type)) blocks.push(b.raw);
      }
      response.providerContent = { provider: 'anthropic', blocks };
    }
    return response;
  }
}
