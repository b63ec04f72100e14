// A tool's CallToolResult as a program sees it, and a run's outcome as the model reads it.
import type { ContentBlock } from '../protocol/types.js';
import type { CallToolResult } from '../protocol/params.js';
import { SandboxCallError, type ProgramResult } from './limits.js';

function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** Text that is a JSON object or array becomes that value; any other text stays text. */
function textValue(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('{') && t.endsWith('}')) && !(t.startsWith('[') && t.endsWith(']'))) return text;
  try {
    return JSON.parse(t);
  } catch {
    return text;
  }
}

/** A content block as a value: binary data is described, not copied in. */
function blockValue(block: ContentBlock): unknown {
  switch (block.type) {
    case 'text':
      return textValue(block.text);
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType, bytes: base64Bytes(block.data) };
    case 'resource_link':
      return { type: 'resource_link', uri: block.uri, name: block.name, ...(block.mimeType ? { mimeType: block.mimeType } : {}) };
    case 'resource': {
      const r = block.resource;
      if ('text' in r && typeof r.text === 'string') return { type: 'resource', uri: r.uri, ...(r.mimeType ? { mimeType: r.mimeType } : {}), text: r.text };
      const blob = 'blob' in r && typeof r.blob === 'string' ? r.blob : '';
      return { type: 'resource', uri: r.uri, ...(r.mimeType ? { mimeType: r.mimeType } : {}), bytes: base64Bytes(blob) };
    }
    default:
      return { type: (block as { type?: unknown }).type };
  }
}

/**
 * What a call gives the program: the tool's `structuredContent` when it has one; else its
 * content (one block: that block's value, several: an array), where text holding a JSON object
 * or array is parsed. A result with `isError` throws a ToolError carrying its text.
 */
export function toolValue(path: string, result: CallToolResult): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = content
      .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
      .map((b) => b.text)
      .join('\n')
      .trim();
    throw new SandboxCallError(`${path} returned an error: ${text || 'the tool failed without saying why'}`);
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (content.length === 0) return null;
  if (content.length === 1) return blockValue(content[0]);
  return content.map(blockValue);
}

/** Where in the program, in words. */
function where(e: NonNullable<ProgramResult['error']>): string {
  if (e.line === undefined) return '';
  return e.column === undefined ? ` at line ${e.line}` : ` at line ${e.line}, column ${e.column}`;
}

/** A run's outcome as the text the model reads. */
export function describeRun(r: ProgramResult, limits: { outputChars: number }): { text: string; isError: boolean } {
  const parts: string[] = [];
  if (r.ok) {
    parts.push(r.value === undefined ? 'The program returned nothing.' : `Returned:\n${r.value}`);
  } else {
    const e = r.error!;
    const head =
      e.kind === 'syntax'
        ? `The program could not be read: ${e.name}${where(e)}: ${e.message}. Write plain JavaScript: no TypeScript types, no import or export.`
        : e.kind === 'timeout'
          ? `The program was stopped: ${e.message}.`
          : e.kind === 'memory'
            ? `The program ran out of memory${where(e)}: it may use at most its memory limit; keep less data (filter as you go).`
            : e.kind === 'stack'
              ? `The program failed${where(e)}: ${e.message}.`
              : e.kind === 'deadlock'
                ? `The program never finished: ${e.message}.`
                : e.kind === 'cancelled'
                  ? 'The program was cancelled.'
                  : `The program failed${where(e)}: ${e.name}: ${e.message}`;
    parts.push(head);
  }
  if (r.output !== '') parts.push(`${r.ok ? 'Printed' : 'Printed before it ended'}:\n${r.output}`);
  const notes: string[] = [];
  if (r.truncated) notes.push(`output beyond ${limits.outputChars} characters was cut: return or print less (filter, count, or pick fields)`);
  if (r.unawaited > 0)
    notes.push(
      `${r.unawaited} tool call${r.unawaited === 1 ? ' was' : 's were'} still running when the program returned (a missing await?); they finished, unseen`,
    );
  if (r.late > 0)
    notes.push(`${r.late} tool call${r.late === 1 ? ' was' : 's were'} made after the program had returned and ${r.late === 1 ? 'was' : 'were'} not run`);
  notes.push(`${r.calls} tool call${r.calls === 1 ? '' : 's'} made`);
  parts.push(`[${notes.join('; ')}]`);
  return { text: parts.join('\n'), isError: !r.ok };
}
