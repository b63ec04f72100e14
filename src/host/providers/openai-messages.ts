// The conversation in Chat Completions terms. One limit shapes it: a `tool` message carries text
// only, so an image a tool returned is sent in a `user` message after the run of tool messages
// (the tool message says so), because the API wants every tool answer right after the
// assistant's tool calls, before any other message.
import type { ModelContent, ModelMessage, ModelTool } from '../model.js';

export type ChatMessage = Record<string, unknown>;

/** `data:` URL of an image part (what `image_url` takes; remote URLs are not used: MCP images are inline). */
const dataUrl = (part: { data: string; mimeType: string }) => `data:${part.mimeType};base64,${part.data}`;

function userContent(content: string | ModelContent[]): unknown {
  if (typeof content === 'string') return content;
  // Text only: a plain string, which every compatible server accepts (some refuse part arrays).
  if (content.every((p) => p.type === 'text')) return content.map((p) => (p as { text: string }).text).join('\n');
  return content.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: dataUrl(p) } }));
}

export interface ChatMappingOptions {
  /** Gemini's endpoint wants the tool's `name` on a tool message; OpenAI's refuses unknown fields there. */
  toolMessageName: boolean;
}

/** ModelMessages as Chat Completions `messages`. */
export function toChatMessages(messages: readonly ModelMessage[], options: ChatMappingOptions): ChatMessage[] {
  const out: ChatMessage[] = [];
  // Images of the current run of tool messages, flushed as one user message when the run ends.
  let pendingImages: Array<{ type: string; [k: string]: unknown }> = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    out.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') flushImages();
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: m.content });
        break;
      case 'user':
        out.push({ role: 'user', content: userContent(m.content) });
        break;
      case 'assistant': {
        const msg: ChatMessage = { role: 'assistant', content: m.content === '' && m.toolCalls?.length ? null : m.content };
        if (m.toolCalls?.length) {
          msg.tool_calls = m.toolCalls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments === '' ? '{}' : c.arguments },
          }));
        }
        out.push(msg);
        break;
      }
      case 'tool': {
        const texts: string[] = [];
        const images = m.content.filter((p) => p.type === 'image');
        for (const p of m.content) if (p.type === 'text') texts.push(p.text);
        if (images.length > 0) {
          texts.push(`[${images.length} image${images.length > 1 ? 's' : ''} returned by this call follow in the next user message]`);
          pendingImages.push({ type: 'text', text: `Image${images.length > 1 ? 's' : ''} returned by tool call ${m.toolCallId} (${m.name}):` });
          for (const img of images) pendingImages.push({ type: 'image_url', image_url: { url: dataUrl(img as { data: string; mimeType: string }) } });
        }
        let text = texts.join('\n');
        // No error flag in the chat API: the words say it, so the model can correct its call.
        if (m.isError) text = `Error: ${text}`;
        const msg: ChatMessage = { role: 'tool', tool_call_id: m.toolCallId, content: text };
        if (options.toolMessageName) msg.name = m.name;
        out.push(msg);
        break;
      }
    }
  }
  flushImages();
  return out;
}

/** ModelTools as Chat Completions `tools`; `strictFor` says which may be sent with `strict: true`. */
export function toChatTools(tools: readonly ModelTool[], strictFor: (tool: ModelTool) => boolean): unknown[] {
  return tools.map((t) => {
    const fn: Record<string, unknown> = { name: t.name };
    if (t.description) fn.description = t.description;
    fn.parameters = t.inputSchema;
    if (strictFor(t)) fn.strict = true;
    return { type: 'function', function: fn };
  });
}
