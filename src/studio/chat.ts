// The chat panel's side in the studio: the mcpkit/host loop (Host and Conversation) over the
// studio's own pool, so the model gets the connected servers' tools and its calls show in the
// timeline like any other. The model endpoint (OpenAI Chat Completions or Anthropic Messages) and
// its key are given on the studio's command line or config; the key stays in this process: the
// page is told the provider, model and endpoint (without credentials), never the key.
// Every tool call is put to the approval mode the page chose (ask for all, for those not marked
// read-only, or none); a call the mode does not let through waits for Allow or Deny in the page.
import { Host } from '../host/host.js';
import type { Conversation } from '../host/loop/conversation.js';
import type { ApprovalRequest, HostEvent, HostOptions } from '../host/loop/types.js';
import type { ModelMessage, ModelProvider } from '../host/model.js';
import { createProvider, type ProviderConfig } from '../host/providers/index.js';
import { ToolIndex } from '../pool/search/tool-index.js';
import type { ServerPool } from '../pool/pool.js';
import type { HostTool } from '../pool/tool-source.js';
import type { CreateMessageParams } from '../protocol/params.js';
import { draftSampling, type SamplingDraft } from './sampling.js';
import type { ApprovalMode, ChatApproval, ChatEvent, ChatHistoryItem, ChatInfo, ChatMessage, ChatTool, ToolSearchMode } from './chat-types.js';

interface Conv {
  id: string;
  conversation: Conversation;
  busy: AbortController | undefined;
}

interface Waiting {
  approval: ChatApproval;
  resolve(allowed: boolean): void;
}

/** What names a conversation: the page makes them. */
const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class ChatError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The endpoint as shown: origin and path, no user, password, query or fragment. */
export function shownEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

function historyOf(messages: readonly ModelMessage[]): ChatHistoryItem[] {
  const textOf = (c: string | Array<{ type: string; text?: string }>) =>
    typeof c === 'string' ? c : c.map((p) => (p.type === 'text' ? (p.text ?? '') : `[${p.type}]`)).join('\n');
  return messages.flatMap((m): ChatHistoryItem[] => {
    if (m.role === 'user') return [{ role: 'user', text: textOf(m.content) }];
    if (m.role === 'assistant') return [{ role: 'assistant', text: m.content, ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}) }];
    if (m.role === 'tool') return [{ role: 'tool', id: m.toolCallId, name: m.name, text: textOf(m.content), isError: m.isError === true }];
    return [];
  });
}

export class StudioChat {
  private readonly provider: ModelProvider | undefined;
  private readonly why: string | undefined;
  private readonly endpoint: string | undefined;
  private host: Host | undefined;
  private readonly options: HostOptions | undefined;
  private readonly convs = new Map<string, Conv>();
  private readonly waiting = new Map<string, Waiting>();
  /** Which conversation a tool call belongs to, and who let it through. */
  private readonly calls = new Map<string, { conversation: string; by?: 'mode' | 'user' }>();
  private index: { index: ToolIndex; of: readonly HostTool[] } | undefined;
  approval: ApprovalMode = 'writes';
  toolSearch: ToolSearchMode = 'auto';

  constructor(
    private readonly pool: ServerPool,
    config: ProviderConfig | undefined,
    private readonly emit: (m: ChatMessage) => void,
  ) {
    if (!config) {
      this.why =
        'The studio was started without a model. Give one on its command line (--model NAME, with --base-url URL and --provider openai|anthropic; the key from OPENAI_API_KEY or ANTHROPIC_API_KEY, or --api-key-env VAR) or in the config file ("model": {...}).';
      return;
    }
    try {
      this.provider = createProvider(config);
      this.endpoint = shownEndpoint(config.baseUrl ?? (config.provider === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1'));
      this.options = {
        pool,
        model: this.provider,
        // Every call reaches approve(): the page's mode decides there, and can change at any time.
        approval: { readOnly: 'ask', destructive: 'ask', default: 'ask' },
        interaction: { approve: (request, signal) => this.approve(request, signal) },
        deferTools: {},
      };
    } catch (err) {
      this.why = `The model configuration is not usable: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  info(): ChatInfo {
    const tools: ChatTool[] = this.pool.tools().map((t) => ({
      name: t.name,
      server: t.server,
      tool: t.tool.name,
      ...(t.tool.description ? { description: t.tool.description } : {}),
      readOnly: t.tool.annotations?.readOnlyHint === true,
    }));
    const base = { approval: this.approval, toolSearch: this.toolSearch, tools, pending: [...this.waiting.values()].map((w) => w.approval) };
    const conversations = [...this.convs.values()].map((c) => ({ id: c.id, busy: c.busy !== undefined, history: historyOf(c.conversation.messages) }));
    if (!this.provider) return { configured: false, why: this.why, ...base, conversations };
    return { configured: true, provider: this.provider.kind, model: this.provider.model, endpoint: this.endpoint, ...base, conversations };
  }

  /** The model as the page may see it (never the key); undefined without a usable one. */
  shown(): { provider: string; model: string; endpoint: string } | undefined {
    return this.provider ? { provider: this.provider.kind, model: this.provider.model, endpoint: this.endpoint ?? '' } : undefined;
  }

  /** The model's draft answer to a server's sampling request, for the user to check before it is sent. */
  async draft(params: CreateMessageParams, signal: AbortSignal): Promise<SamplingDraft> {
    if (!this.provider) throw new ChatError(409, this.why ?? 'No model is configured');
    try {
      return await draftSampling(this.provider, params, signal);
    } catch (err) {
      if (signal.aborted) throw new ChatError(409, 'The request was withdrawn (or the page went away) before the model answered');
      throw new ChatError(502, `The model did not answer: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  settings(o: { approval?: unknown; toolSearch?: unknown }): ChatInfo {
    if (o.approval !== undefined) {
      if (o.approval !== 'ask' && o.approval !== 'writes' && o.approval !== 'auto') throw new ChatError(400, 'approval must be ask, writes or auto');
      this.approval = o.approval;
    }
    if (o.toolSearch !== undefined) {
      if (o.toolSearch !== 'auto' && o.toolSearch !== 'always' && o.toolSearch !== 'off') throw new ChatError(400, 'toolSearch must be auto, always or off');
      this.toolSearch = o.toolSearch;
      // Read by the loop at each step, so a change applies from the next one.
      if (this.options) this.options.deferTools = o.toolSearch === 'off' ? false : o.toolSearch === 'always' ? { threshold: 0 } : {};
    }
    return this.info();
  }

  private conv(id: unknown): Conv {
    if (typeof id !== 'string' || !CONVERSATION_ID.test(id)) throw new ChatError(400, 'conversation must be an id of letters, digits, _ and - (at most 64)');
    if (!this.options) throw new ChatError(409, this.why ?? 'No model is configured');
    let c = this.convs.get(id);
    if (!c) {
      this.host ??= new Host(this.options);
      c = { id, conversation: this.host.conversation(), busy: undefined };
      this.convs.set(id, c);
    }
    return c;
  }

  /** Sends a user message and waits for the answer; its events go to the page as they happen. */
  async send(id: unknown, text: unknown): Promise<{ text?: string; stopReason?: string; steps?: number; error?: string }> {
    if (typeof text !== 'string' || text.trim() === '') throw new ChatError(400, 'text must be a non-empty string');
    const c = this.conv(id);
    if (c.busy) throw new ChatError(409, 'This conversation is still answering: wait for it, or stop it');
    const ctl = new AbortController();
    c.busy = ctl;
    const say = (event: ChatEvent) => this.emit({ conversation: c.id, event });
    say({ type: 'user', text });
    try {
      const answer = await c.conversation.send(text, { signal: ctl.signal, onEvent: (e) => this.forward(c.id, e) });
      say({ type: 'done', stopReason: answer.stopReason, steps: answer.steps, ...(answer.usage ? { usage: answer.usage } : {}) });
      return { text: answer.text, stopReason: answer.stopReason, steps: answer.steps };
    } catch (err) {
      const message = ctl.signal.aborted ? 'Stopped.' : err instanceof Error ? err.message : String(err);
      say({ type: 'failed', message });
      return { error: message };
    } finally {
      c.busy = undefined;
    }
  }

  cancel(id: unknown): boolean {
    const c = this.conv(id);
    c.busy?.abort(new Error('Stopped in the studio'));
    return c.busy !== undefined;
  }

  reset(id: unknown): void {
    const c = this.conv(id);
    if (c.busy) throw new ChatError(409, 'Stop the message being answered first');
    c.conversation.reset();
    this.emit({ conversation: c.id, event: { type: 'reset' } });
  }

  /** The page's answer to a call waiting for approval; false when none waits under that id. */
  answer(callId: string, allowed: boolean): boolean {
    const w = this.waiting.get(callId);
    if (!w) return false;
    this.waiting.delete(callId);
    w.resolve(allowed);
    return true;
  }

  /** The tools that best match `query`, ranked as `search_tools` ranks them for the model. */
  searchTools(query: unknown): Array<ChatTool & { score: number }> {
    if (typeof query !== 'string' || query.trim() === '') throw new ChatError(400, 'query must be a non-empty string');
    const all = this.pool.tools();
    if (!this.index) this.index = { index: new ToolIndex(all, { instructions: (s) => this.pool.instructions(s) }), of: all };
    else if (this.index.of !== all) {
      this.index.index.update(all);
      this.index.of = all;
    }
    return this.index.index.scored(query, 10).map(({ tool: t, score }) => ({
      name: t.name,
      server: t.server,
      tool: t.tool.name,
      ...(t.tool.description ? { description: t.tool.description } : {}),
      readOnly: t.tool.annotations?.readOnlyHint === true,
      score,
    }));
  }

  close(): void {
    for (const c of this.convs.values()) c.busy?.abort(new Error('The studio is closing'));
    for (const id of [...this.waiting.keys()]) this.answer(id, false);
  }

  private approve(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> | boolean {
    const call = this.calls.get(request.callId);
    const readOnly = request.annotations?.readOnlyHint === true;
    if (this.approval === 'auto' || (this.approval === 'writes' && readOnly)) {
      if (call) call.by = 'mode';
      return true;
    }
    if (call) call.by = 'user';
    const approval: ChatApproval = {
      id: request.callId,
      conversation: call?.conversation ?? '',
      name: request.name,
      server: request.server,
      tool: request.tool,
      arguments: request.arguments,
      reason: request.reason,
      readOnly,
    };
    return new Promise<boolean>((resolve) => {
      const onAbort = () => this.answer(request.callId, false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(request.callId, {
        approval,
        resolve: (allowed) => {
          signal.removeEventListener('abort', onAbort);
          resolve(allowed);
        },
      });
      this.emit({ conversation: approval.conversation, event: { type: 'approval_request', approval } });
    });
  }

  /** A Host event as the page gets it (server events and the like are the timeline's business). */
  private forward(conversation: string, e: HostEvent): void {
    let event: ChatEvent | undefined;
    switch (e.type) {
      case 'model_end': {
        const r = e.response;
        event = { type: 'model_end', step: e.step, text: r.text, toolCalls: r.toolCalls, stopReason: r.stopReason, ...(r.usage ? { usage: r.usage } : {}) };
        if (r.model) event.model = r.model;
        break;
      }
      case 'tool_call':
        this.calls.set(e.id, { conversation });
        event = e;
        break;
      case 'approval': {
        const by = this.calls.get(e.id)?.by;
        event = { ...e, by: e.by === 'user' && by ? by : e.by };
        break;
      }
      case 'tool_result':
        this.calls.delete(e.id);
        event = { ...e, result: e.result as unknown as Record<string, unknown> };
        break;
      case 'tool_error':
        this.calls.delete(e.id);
        event = e;
        break;
      case 'model_start':
      case 'text':
      case 'tool_progress':
      case 'answer':
        event = e;
        break;
      default:
        return;
    }
    this.emit({ conversation, event });
  }
}
