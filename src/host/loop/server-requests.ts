// What servers ask of the host: `sampling/createMessage`, answered by the host's model once the
// user allows it, and `elicitation/create`, put to the user. Both eras arrive here the same way
// (the client turns 2026-07-28 `input_required` rounds into these calls).
import { McpError } from '../../jsonrpc/errors.js';
import type { SamplingContentBlock, SamplingMessage } from '../../protocol/types.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult } from '../../protocol/params.js';
import type { ModelContent, ModelMessage, ModelProvider, ModelRequest, ModelResponse } from '../model.js';
import { completeObserved, type LoopContext } from './context.js';
import { resultToModel } from './results.js';

/** The code the spec suggests for a sampling request the user did not allow. */
const USER_REJECTED = -1;

function userContent(block: SamplingContentBlock): ModelContent | undefined {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'image') return { type: 'image', data: block.data, mimeType: block.mimeType };
  if (block.type === 'audio') return { type: 'text', text: `[audio (${block.mimeType}): not shown]` };
  return undefined;
}

/** A sampling conversation in the model's shape: tool uses become calls, tool results tool messages. */
export function samplingMessages(params: CreateMessageParams): ModelMessage[] {
  const out: ModelMessage[] = [];
  if (params.systemPrompt) out.push({ role: 'system', content: params.systemPrompt });
  const names = new Map<string, string>();
  for (const m of params.messages as SamplingMessage[]) {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    if (m.role === 'assistant') {
      const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const toolCalls = blocks.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }] : []));
      for (const c of toolCalls) names.set(c.id, c.name);
      out.push(toolCalls.length > 0 ? { role: 'assistant', content: text, toolCalls } : { role: 'assistant', content: text });
      continue;
    }
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const content = resultToModel({ content: b.content, structuredContent: b.structuredContent, isError: b.isError });
      out.push({ role: 'tool', toolCallId: b.toolUseId, name: names.get(b.toolUseId) ?? 'tool', content, ...(b.isError ? { isError: true } : {}) });
    }
    const content = blocks.flatMap((b) => userContent(b) ?? []);
    if (content.length > 0) out.push({ role: 'user', content: content.every((c) => c.type === 'text') ? content.map((c) => c.text).join('\n') : content });
  }
  return out;
}

function stopReasonOf(response: ModelResponse): string {
  switch (response.stopReason) {
    case 'tool_calls':
      return 'toolUse';
    case 'length':
      return 'maxTokens';
    case 'refusal':
      return 'refusal';
    default:
      return 'endTurn';
  }
}

/** The model's turn as a sampling result: text, or (when tools were offered and used) tool uses. */
export function samplingResult(response: ModelResponse, model: string): CreateMessageResult {
  const name = response.model ?? model;
  if (response.toolCalls.length === 0) {
    return { role: 'assistant', content: { type: 'text', text: response.text }, model: name, stopReason: stopReasonOf(response) };
  }
  const content: SamplingContentBlock[] = response.text ? [{ type: 'text', text: response.text }] : [];
  for (const c of response.toolCalls) {
    let input: unknown;
    try {
      input = JSON.parse(c.arguments || '{}');
    } catch {
      input = {};
    }
    content.push({
      type: 'tool_use',
      id: c.id,
      name: c.name,
      input: input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {},
    });
  }
  return { role: 'assistant', content, model: name, stopReason: 'toolUse' };
}

/**
 * Answers `sampling/createMessage` with the host's model, after `interaction.approveSampling`
 * said yes. Without an approver the request is refused: a server must not spend the user's
 * model unseen.
 */
export async function answerSampling(ctx: LoopContext, server: string, params: CreateMessageParams, signal: AbortSignal): Promise<CreateMessageResult> {
  ctx.broadcast({ type: 'sampling', server, params });
  const approve = ctx.interaction.approveSampling;
  if (!approve) {
    throw new McpError(
      USER_REJECTED,
      `Sampling refused: this host asks the user before answering sampling requests, and it has no way to ask (no approveSampling)`,
    );
  }
  if (!(await approve.call(ctx.interaction, { server, params }, signal))) throw new McpError(USER_REJECTED, 'The user rejected the sampling request');
  return samplingResult(await completeObserved(ctx, samplingRequest(ctx.model, params, signal), undefined, server), ctx.model.model);
}

/** A sampling request as one model turn: its messages, the tools it offers (schemas made for `model`), its limits. */
export function samplingRequest(model: Pick<ModelProvider, 'sanitizeSchema'>, params: CreateMessageParams, signal?: AbortSignal): ModelRequest {
  const tools = params.tools ?? [];
  const request: ModelRequest = {
    messages: samplingMessages(params),
    tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: model.sanitizeSchema(t.inputSchema as Record<string, unknown>) })),
    maxTokens: params.maxTokens,
  };
  if (signal) request.signal = signal;
  // No tools offered: none may be called. Otherwise what the server asked, or the endpoint's default.
  const choice = tools.length === 0 ? 'none' : params.toolChoice?.mode;
  if (choice) request.toolChoice = choice;
  if (params.temperature !== undefined) request.temperature = params.temperature;
  return request;
}

/** Puts `elicitation/create` to the user; without `interaction.elicit` it is declined. */
export async function answerElicitation(ctx: LoopContext, server: string, params: ElicitParams, signal: AbortSignal): Promise<ElicitResult> {
  ctx.broadcast({ type: 'elicitation', server, params });
  const elicit = ctx.interaction.elicit;
  if (!elicit) return { action: 'decline' };
  return await elicit.call(ctx.interaction, { server, params }, signal);
}
