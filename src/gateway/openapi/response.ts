// An API's answer as a tool result: JSON as structuredContent (when it is an object) plus its
// text; text types as text; images and audio as such; other binary as an embedded blob; all of
// it capped in size. An HTTP error status is an `isError` result with the status and the start
// of the body, so the model can read what went wrong.
import { bytesToBase64 } from '../../protocol/encoding.js';
import type { ContentBlock } from '../../protocol/types.js';
import type { CallToolResult } from '../../protocol/params.js';

export interface ReadBody {
  bytes: Uint8Array;
  /** The body was longer than the cap and was cut. */
  truncated: boolean;
}

/** Reads at most `max` bytes of a response body, then stops the download. */
export async function readCapped(res: Response, max: number): Promise<ReadBody> {
  if (!res.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      size = max;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, truncated };
}

const ERROR_EXCERPT = 2000;

const isText = (type: string) => type === '' || type.startsWith('text/') || /json|xml|yaml|javascript|x-www-form-urlencoded|csv|graphql/.test(type);

/** The result of one call, from its status, media type and (capped) body. */
export function toToolResult(res: Response, body: ReadBody, what: string, max: number): CallToolResult {
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const status = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
  const cut = body.truncated ? `\n[truncated: the response is larger than ${max} bytes]` : '';
  if (res.status >= 400) {
    const text = isText(type) ? new TextDecoder().decode(body.bytes) : `(${body.bytes.byteLength} bytes of ${type || 'unknown type'})`;
    const excerpt = text.length > ERROR_EXCERPT ? `${text.slice(0, ERROR_EXCERPT)}…` : text;
    return { isError: true, content: [{ type: 'text', text: `${what} failed: ${status}${excerpt ? `\n${excerpt}` : ''}` }] };
  }
  if (body.bytes.byteLength === 0) return { content: [{ type: 'text', text: `${status} (no content)` }] };
  if (isText(type)) {
    const text = new TextDecoder().decode(body.bytes);
    if (/json/.test(type) && !body.truncated) {
      try {
        const value: unknown = JSON.parse(text);
        const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(value) }] };
        // structuredContent is an object; an array or a scalar stays in the text.
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) result.structuredContent = value as Record<string, unknown>;
        return result;
      } catch {
        // Not JSON after all: sent as text.
      }
    }
    return { content: [{ type: 'text', text: text + cut }] };
  }
  if (body.truncated) {
    return { content: [{ type: 'text', text: `${status}: ${type} content larger than ${max} bytes, not returned (raise the response size limit to get it)` }] };
  }
  const data = bytesToBase64(body.bytes);
  let block: ContentBlock;
  if (type.startsWith('image/')) block = { type: 'image', data, mimeType: type };
  else if (type.startsWith('audio/')) block = { type: 'audio', data, mimeType: type };
  else block = { type: 'resource', resource: { uri: res.url || 'about:blank', mimeType: type || 'application/octet-stream', blob: data } };
  return { content: [block] };
}
