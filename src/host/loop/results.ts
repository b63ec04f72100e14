// A tool's CallToolResult as the model reads it: text and images as they are, everything else
// (audio, resource links, embedded resources, structuredContent) described in text, and text
// beyond the size limit cut to its head and tail, the rest kept for `read_full_result`.
import type { ContentBlock } from '../../protocol/types.js';
import type { CallToolResult } from '../../protocol/params.js';
import type { ModelContent, ModelTool } from '../model.js';

export const READ_FULL_RESULT = 'read_full_result';
export const DEFAULT_MAX_CHARS = 20_000;
/** Cut results kept per conversation; older ones are forgotten first. */
const KEPT_RESULTS = 32;

function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

function blockToModel(block: ContentBlock): ModelContent {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', data: block.data, mimeType: block.mimeType };
    case 'audio':
      return { type: 'text', text: `[audio (${block.mimeType}), ${base64Bytes(block.data)} bytes: not shown]` };
    case 'resource_link': {
      const mime = block.mimeType ? ` (${block.mimeType})` : '';
      const about = block.description ? `: ${block.description}` : '';
      return { type: 'text', text: `Resource link: ${block.title ?? block.name} <${block.uri}>${mime}${about}` };
    }
    case 'resource': {
      const r = block.resource;
      const mime = r.mimeType ? ` (${r.mimeType})` : '';
      if ('text' in r && typeof r.text === 'string') return { type: 'text', text: `Resource <${r.uri}>${mime}:\n${r.text}` };
      const blob = 'blob' in r && typeof r.blob === 'string' ? r.blob : '';
      if (r.mimeType?.startsWith('image/')) return { type: 'image', data: blob, mimeType: r.mimeType };
      return { type: 'text', text: `[Resource <${r.uri}>${mime}: ${base64Bytes(blob)} bytes of binary data, not shown]` };
    }
    default:
      return { type: 'text', text: `[content of type ${JSON.stringify((block as { type?: unknown }).type)}: not shown]` };
  }
}

/** Whether some text block already carries `value` as JSON (servers are asked to send both). */
function textCarries(content: ModelContent[], value: unknown): boolean {
  const json = JSON.stringify(value);
  return content.some((c) => {
    if (c.type !== 'text') return false;
    try {
      return JSON.stringify(JSON.parse(c.text)) === json;
    } catch {
      return false;
    }
  });
}

/** The model's view of a result (before any cut). */
export function resultToModel(result: CallToolResult): ModelContent[] {
  const content = (Array.isArray(result.content) ? result.content : []).map(blockToModel);
  if (result.structuredContent !== undefined && !textCarries(content, result.structuredContent)) {
    content.push({ type: 'text', text: `Structured result:\n${JSON.stringify(result.structuredContent, null, 2)}` });
  }
  if (content.length === 0) content.push({ type: 'text', text: result.isError ? 'The tool failed without saying why.' : '(the tool returned no content)' });
  return content;
}

/** An index into `text` moved off the second half of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return at > 0 && at < text.length && c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

/**
 * Results whose text went over the limit, by call id, for `read_full_result`. One per
 * conversation: the model may come back to a result in a later message.
 */
export class CutResults {
  private readonly full = new Map<string, string>();

  constructor(readonly maxChars: number) {}

  get size(): number {
    return this.full.size;
  }

  clear(): void {
    this.full.clear();
  }

  /**
   * `content` within the limit: when its text is longer, the text blocks become one block of
   * head, a note saying how to read the rest, and tail; images stay whole, after it.
   */
  limit(id: string, content: ModelContent[]): { content: ModelContent[]; truncated: boolean } {
    const texts = content.filter((c): c is Extract<ModelContent, { type: 'text' }> => c.type === 'text');
    const total = texts.reduce((n, c) => n + c.text.length, 0);
    if (total <= this.maxChars) return { content, truncated: false };
    const full = texts.map((c) => c.text).join('\n\n');
    const head = safeCut(full, Math.ceil(this.maxChars / 2));
    const tailStart = safeCut(full, full.length - (this.maxChars - head));
    this.full.delete(id);
    this.full.set(id, full);
    while (this.full.size > KEPT_RESULTS) this.full.delete(this.full.keys().next().value!);
    const note =
      `\n\n[... ${tailStart - head} of ${full.length} characters left out here. ` +
      `To read them call ${READ_FULL_RESULT} with {"id": ${JSON.stringify(id)}, "offset": ${head}} ...]\n\n`;
    const text = full.slice(0, head) + note + full.slice(tailStart);
    return { content: [{ type: 'text', text }, ...content.filter((c) => c.type !== 'text')], truncated: true };
  }

  /** The `read_full_result` tool, offered while some result was cut. */
  tool(): ModelTool {
    return {
      name: READ_FULL_RESULT,
      description: `Reads the part of a tool result that was left out because it was long (up to ${this.maxChars} characters per call).`,
      inputSchema: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The id given in the note where the result was cut' },
          offset: { type: 'integer', description: 'First character to read (default 0)' },
          length: { type: 'integer', description: `Characters to read (default and at most ${this.maxChars})` },
        },
        required: ['id'],
      },
    };
  }

  /** Answers a `read_full_result` call: the text, or an error the model can correct. */
  read(args: Record<string, unknown>): { text: string; isError: boolean } {
    const id = args.id;
    const full = typeof id === 'string' ? this.full.get(id) : undefined;
    if (full === undefined) {
      const known = [...this.full.keys()].map((k) => JSON.stringify(k)).join(', ');
      return { text: `No cut result has the id ${JSON.stringify(id)}. Ids of cut results: ${known || 'none'}.`, isError: true };
    }
    const offset = typeof args.offset === 'number' && args.offset > 0 ? Math.floor(args.offset) : 0;
    const length = typeof args.length === 'number' && args.length > 0 ? Math.min(Math.floor(args.length), this.maxChars) : this.maxChars;
    if (offset >= full.length) return { text: `The result has ${full.length} characters; offset ${offset} is past its end.`, isError: true };
    const end = Math.min(full.length, offset + length);
    const more =
      end < full.length ? `\n[characters ${end}..${full.length} remain: call ${READ_FULL_RESULT} with {"id": ${JSON.stringify(id)}, "offset": ${end}}]` : '';
    return { text: `[characters ${offset}..${end} of ${full.length}]\n${full.slice(offset, end)}${more}`, isError: false };
  }
}
