// The conversation in Anthropic Messages terms: the system prompt is a top-level field, a tool
// result is a `tool_result` block in a user message (it can hold images, and says `is_error`),
// consecutive user-side messages merge into one (the API wants the roles to alternate), and a
// tool call is a `tool_use` block whose `input` is parsed JSON. A turn in which the API searched
// deferred tools is sent back with its own blocks (`server_tool_use`, `tool_search_tool_result`):
// the tools they reference stay loaded for the rest of the conversation.
import type { ModelContent, ModelMessage, ModelTool } from '../model.js';

/** Anthropic's tool search tools, by variant (docs: "Tool search tool"). */
export const TOOL_SEARCH_TOOLS = {
  bm25: { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
  regex: { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
} as const;

type Block = Record<string, unknown>;
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

function contentBlocks(content: readonly ModelContent[]): Block[] {
  return content.map((p) =>
    p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image', source: { type: 'base64', media_type: p.mimeType, data: p.data } },
  );
}

/** A tool call's arguments as the object `input` needs; arguments that are not a JSON object become `{}`. */
function parseInput(args: string): Record<string, unknown> {
  try {
    const v = JSON.parse(args === '' ? '{}' : args) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A turn's own blocks, sent back as the API gave them, except references to tools this request
 * does not define (a server went away since: the API refuses a reference to an undefined tool).
 */
function ownBlocks(blocks: readonly unknown[], defined: ReadonlySet<string> | undefined): Block[] {
  return blocks.map((raw) => {
    const b = raw as Block;
    const content = b.content as { tool_references?: Array<{ tool_name?: unknown }> } | undefined;
    if (b.type !== 'tool_search_tool_result' || !defined || !Array.isArray(content?.tool_references)) return b;
    const refs = content.tool_references.filter((r) => typeof r.tool_name === 'string' && defined.has(r.tool_name));
    return refs.length === content.tool_references.length ? b : { ...b, content: { ...content, tool_references: refs } };
  });
}

/** Whether a turn searched tools (its blocks name the tool search tool). */
export function searchedTools(messages: readonly ModelMessage[]): boolean {
  return messages.some((m) => m.role === 'assistant' && m.providerContent?.provider === 'anthropic');
}

/**
 * The `system` field and the `messages` of a Messages API request. `tools`: the names the
 * request defines, to drop a tool search's references to tools it no longer has.
 */
export function toAnthropicMessages(
  messages: readonly ModelMessage[],
  tools?: ReadonlySet<string>,
): { system: string | undefined; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) {
      // tool_result blocks must come first in a user message: they do, since results follow the call.
      last.content.push(...blocks);
    } else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        if (m.content !== '') system.push(m.content);
        break;
      case 'user':
        push('user', typeof m.content === 'string' ? (m.content === '' ? [] : [{ type: 'text', text: m.content }]) : contentBlocks(m.content));
        break;
      case 'assistant': {
        if (m.providerContent?.provider === 'anthropic') {
          push('assistant', ownBlocks(m.providerContent.blocks, tools));
          break;
        }
        const blocks: Block[] = [];
        if (m.content !== '') blocks.push({ type: 'text', text: m.content });
        for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: parseInput(c.arguments) });
        push('assistant', blocks);
        break;
      }
      case 'tool': {
        const block: Block = { type: 'tool_result', tool_use_id: m.toolCallId, content: contentBlocks(m.content) };
        if (m.isError) block.is_error = true;
        push('user', [block]);
        break;
      }
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}

/** ModelTools as Messages API `tools`; `defer` marks become `defer_loading` when the request has a tool search tool. */
export function toAnthropicTools(tools: readonly ModelTool[], deferring = false): Block[] {
  return tools.map((t) => {
    const tool: Block = { name: t.name };
    if (t.description) tool.description = t.description;
    tool.input_schema = t.inputSchema;
    if (deferring && t.defer) tool.defer_loading = true;
    return tool;
  });
}

/** `toolChoice` in Anthropic's words: `required` is `any`. */
export function toAnthropicToolChoice(choice: 'auto' | 'none' | 'required'): Block {
  return { type: choice === 'required' ? 'any' : choice };
}
