// The conversation in Anthropic Messages terms: the system prompt is a top-level field, a tool
// result is a `tool_result` block in a user message (it can hold images, and says `is_error`),
// consecutive user-side messages merge into one (the API wants the roles to alternate), and a
// tool call is a `tool_use` block whose `input` is parsed JSON.
import type { ModelContent, ModelMessage, ModelTool } from '../model.js';

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

/** The `system` field and the `messages` of a Messages API request. */
export function toAnthropicMessages(messages: readonly ModelMessage[]): { system: string | undefined; messages: AnthropicMessage[] } {
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

/** ModelTools as Messages API `tools`. */
export function toAnthropicTools(tools: readonly ModelTool[]): Block[] {
  return tools.map((t) => {
    const tool: Block = { name: t.name };
    if (t.description) tool.description = t.description;
    tool.input_schema = t.inputSchema;
    return tool;
  });
}

/** `toolChoice` in Anthropic's words: `required` is `any`. */
export function toAnthropicToolChoice(choice: 'auto' | 'none' | 'required'): Block {
  return { type: choice === 'required' ? 'any' : choice };
}
