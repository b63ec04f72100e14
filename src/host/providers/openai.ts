// An OpenAI-compatible Chat Completions provider: OpenAI itself, and the servers that speak its
// API (Ollama, vLLM, LM Studio, llama.cpp's server, Gemini's OpenAI-compatible endpoint). One
// POST to {baseUrl}/chat/completions per turn, streamed as SSE (`data: {chunk}` ... `data: [DONE]`).
import { ModelError, type ModelEvent, type ModelProvider, type ModelRequest, type ModelResponse, type ModelTool } from '../model.js';
import { events, Exchange, isEventStream, type PostContext, type ProviderHttpOptions, parseEventData, postJson, readJson } from './http.js';
import { toChatMessages, toChatTools } from './openai-messages.js';
import { ChatAccumulator, type ChatChunk } from './openai-stream.js';
import { isStrictCompatible, restoreStrictArguments, sanitizeForGemini, sanitizeForOpenAI, sanitizeForOpenAIStrict } from './schema.js';

export interface OpenAIProviderOptions extends ProviderHttpOptions {
  /** The API root, up to and including `/v1` (default https://api.openai.com/v1). */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer`; local servers usually need none. */
  apiKey?: string;
  model: string;
  /**
   * OpenAI strict tool schemas: the model's arguments always match the schema. Schemas strict
   * mode cannot express are sent without it (see docs/host.md). A tool is sent strict when its
   * `inputSchema` is the very object `sanitizeSchema` returned (kept by identity, not copied).
   * Default false.
   */
  strict?: boolean;
  /** Which schema subset the endpoint accepts: `gemini` for Gemini's OpenAI-compatible endpoint. Default `openai`. */
  dialect?: 'openai' | 'gemini';
  /** Stream the answer (default true). False asks for one JSON completion. */
  stream?: boolean;
  /**
   * The field for the output limit: `max_completion_tokens` (what OpenAI's newer models require)
   * or `max_tokens` (what most compatible servers know). Default: the first for api.openai.com,
   * the second elsewhere.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

/** Tool names OpenAI accepts (compatible servers accept at least these). */
export const OPENAI_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class OpenAIProvider implements ModelProvider {
  readonly kind = 'openai';
  readonly model: string;
  readonly toolNamePattern = OPENAI_TOOL_NAME;
  private readonly url: string;
  private readonly ctx: PostContext;

  constructor(private readonly options: OpenAIProviderOptions) {
    if (!options.model) throw new TypeError('OpenAIProvider: a model is required');
    this.model = options.model;
    const base = (options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
    this.url = `${base}/chat/completions`;
    this.ctx = { url: this.url, label: options.dialect === 'gemini' ? 'the Gemini endpoint' : 'the OpenAI-compatible endpoint' };
  }

  sanitizeSchema(schema: Record<string, unknown>): Record<string, unknown> {
    if (this.options.dialect === 'gemini') return sanitizeForGemini(schema);
    return this.options.strict ? sanitizeForOpenAIStrict(schema) : sanitizeForOpenAI(schema);
  }

  /** The request body for `request` (exposed for tests and for debugging what is sent). */
  body(request: ModelRequest): Record<string, unknown> {
    const stream = this.options.stream ?? true;
    const body: Record<string, unknown> = {
      model: this.model,
      messages: toChatMessages(request.messages, { toolMessageName: this.options.dialect === 'gemini' }),
      stream,
    };
    if (stream) body.stream_options = { include_usage: true };
    if (request.tools.length > 0) {
      body.tools = toChatTools(request.tools, (t) => this.strictFor(t));
      if (request.toolChoice) body.tool_choice = request.toolChoice;
    }
    if (request.maxTokens !== undefined) {
      const field = this.options.maxTokensField ?? (new URL(this.url).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens');
      body[field] = request.maxTokens;
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    return body;
  }

  async complete(request: ModelRequest, onEvent?: (event: ModelEvent) => void): Promise<ModelResponse> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const tools = new Map(request.tools.map((t) => [t.name, t]));
    const finishArguments = (name: string, args: string) => {
      const tool = tools.get(name);
      if (tool === undefined || !this.strictFor(tool)) return args;
      try {
        return JSON.stringify(restoreStrictArguments(JSON.parse(args), tool.inputSchema));
      } catch {
        return args; // not JSON: the loop reports it to the model as it is
      }
    };
    const ctx: PostContext = { ...this.ctx, explain: (status, detail, body) => this.explain(status, detail, body, request.tools) };
    const exchange = new Exchange(ctx, this.options, request.signal);
    try {
      const response = await postJson(ctx, this.options, exchange, headers, this.body(request));
      const acc = new ChatAccumulator(onEvent, finishArguments);
      if (!isEventStream(response)) {
        const whole = (await readJson(this.ctx, response, exchange)) as ChatChunk;
        this.checkChunk(whole);
        acc.add(whole, true);
        return acc.result();
      }
      let done = false;
      for await (const event of events(response, exchange)) {
        const data = event.data.trim();
        if (data === '') continue;
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = parseEventData(this.ctx, data) as ChatChunk;
        this.checkChunk(chunk);
        acc.add(chunk);
      }
      if (!done && !acc.finished) throw new ModelError(`malformed stream from ${this.ctx.label} at ${this.url}: it ended before the turn finished`);
      return acc.result();
    } finally {
      exchange.close();
    }
  }

  private strictFor(tool: ModelTool): boolean {
    return this.options.strict === true && this.options.dialect !== 'gemini' && isStrictCompatible(tool.inputSchema);
  }

  /**
   * A chunk must be an object; one carrying `error` is the endpoint failing mid-stream. Chunks
   * without `choices` (Azure's prompt_filter_results, keep-alives) are let through and ignored.
   */
  private checkChunk(chunk: unknown): void {
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
      throw new ModelError(`malformed stream from ${this.ctx.label} at ${this.url}: a chunk is not a JSON object`);
    }
    const error = (chunk as ChatChunk).error;
    if (error !== undefined && error !== null) {
      const message = typeof error === 'string' ? error : String((error as { message?: unknown }).message ?? JSON.stringify(error));
      throw new ModelError(`${this.ctx.label} at ${this.url} failed mid-answer: ${message}`, { detail: message });
    }
  }

  /** A 400 about a tool's schema says so, naming the tool (OpenAI: "Invalid schema for function 'x'", `param: tools[3]...`). */
  private explain(status: number, detail: string, body: unknown, tools: readonly ModelTool[]): string | undefined {
    if (status !== 400 && status !== 422) return undefined;
    const err = (Array.isArray(body) ? body[0] : body) as { error?: { param?: unknown } } | undefined;
    const param = typeof err?.error?.param === 'string' ? err.error.param : '';
    const mentionsTools = param.startsWith('tools') || /invalid schema|tools\[\d+\]|function_declarations|function parameters|'parameters'/i.test(detail);
    if (!mentionsTools) return undefined;
    // Gemini says `tools[0].function_declarations[N]` (one tools entry holding every function).
    const where = `${param} ${detail}`;
    const index = /function_declarations\[(\d+)\]/.exec(where)?.[1] ?? /tools\[(\d+)\]/.exec(where)?.[1];
    const named = /function '([^']+)'/.exec(detail)?.[1] ?? (index === undefined ? undefined : tools[Number(index)]?.name);
    const tool = named === undefined ? '' : ` (tool ${named})`;
    return `${this.ctx.label} at ${this.url} refused a tool schema${tool} (${status}): ${detail}`;
  }
}
