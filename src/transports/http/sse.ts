/**
 * Server-Sent Events, as the WHATWG HTML standard defines the `text/event-stream` format: an
 * encoder for servers and an incremental parser for clients. Shared by every HTTP transport.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `id` field of this event's block, when it had one (ids containing NUL are ignored). */
  id?: string;
  /** The `event` field; `'message'` when absent or empty. */
  event: string;
  /** The `data` lines joined with `\n` (`''` for a block without data). */
  data: string;
  /** The `retry` field of this event's block (reconnection delay in ms), when it had a valid one. */
  retry?: number;
}

/** What {@link encodeEvent} writes. */
export interface SseEventInit {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

function checkField(name: string, value: string): void {
  if (/[\r\n\0]/.test(value)) throw new TypeError(`SSE "${name}" must not contain a line break or NUL: ${JSON.stringify(value)}`);
}

/**
 * One SSE event as text, ending with the blank line that dispatches it. Multi-line data becomes
 * several `data:` lines (the parser joins them back with `\n`; CRLF and CR become LF).
 */
export function encodeEvent(init: SseEventInit): string {
  let out = '';
  if (init.id !== undefined) {
    checkField('id', init.id);
    out += `id: ${init.id}\n`;
  }
  if (init.event !== undefined) {
    checkField('event', init.event);
    out += `event: ${init.event}\n`;
  }
  if (init.retry !== undefined) {
    if (!Number.isInteger(init.retry) || init.retry < 0) throw new TypeError(`SSE "retry" must be a non-negative integer, got ${init.retry}`);
    out += `retry: ${init.retry}\n`;
  }
  for (const line of init.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return out + '\n';
}

/** A comment frame (ignored by parsers), e.g. `: keepalive` to keep idle connections open. */
export function encodeComment(text = 'keepalive'): string {
  return (
    text
      .split(LINE_BREAK)
      .map((l) => `: ${l}\n`)
      .join('') + '\n'
  );
}

export interface SseParserOptions {
  /** Called with the text of each comment line (without the leading colon and one space). */
  onComment?: (text: string) => void;
  /**
   * Largest accepted event (pending line plus data buffered so far), in UTF-16 code units.
   * Beyond it {@link SseParser.feed} throws. Default 16 MiB.
   */
  maxEventSize?: number;
}

export class SseParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SseParseError';
  }
}

/**
 * Incremental `text/event-stream` parser: feed it decoded text in chunks split anywhere (even
 * between the CR and LF of a line break) and it returns the events completed by each chunk.
 *
 * It follows the standard's field rules, with one deliberate difference: a block that carries
 * fields but no data (such as the MCP "priming" event, an `id` with empty data) is still
 * emitted, with `data: ''`, so that consumers learn its id and retry. Consumers that deliver
 * payloads skip events whose data is empty. An incomplete block at end of stream is discarded.
 */
export class SseParser {
  /** The last event id seen (it persists across events, as in EventSource); `''` when none or reset. */
  lastEventId = '';
  /** The last valid `retry` value seen, in ms. */
  retry: number | undefined;

  private readonly onComment?: (text: string) => void;
  private readonly maxEventSize: number;
  private parts: string[] = [];
  private partsLength = 0;
  private sawCR = false;
  private started = false;
  // Current block.
  private data: string[] = [];
  private dataLength = 0;
  private eventType = '';
  private blockId: string | undefined;
  private blockRetry: number | undefined;
  private hasFields = false;

  constructor(options: SseParserOptions = {}) {
    this.onComment = options.onComment;
    this.maxEventSize = options.maxEventSize ?? 16 * 1024 * 1024;
  }

  /** Parses a chunk of decoded text; returns the events it completed, in order. */
  feed(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    let start = 0;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) start = 1;
    }
    if (this.sawCR && chunk.length > start) {
      // The LF of a CRLF that a chunk boundary split: already counted as one line break.
      if (chunk.charCodeAt(start) === 10) start++;
      this.sawCR = false;
    }
    let i = start;
    while (i < chunk.length) {
      const c = chunk.charCodeAt(i);
      if (c !== 10 && c !== 13) {
        i++;
        continue;
      }
      let line = chunk.slice(start, i);
      if (this.parts.length > 0) {
        line = this.parts.join('') + line;
        this.parts = [];
        this.partsLength = 0;
      }
      if (c === 13) {
        if (i + 1 < chunk.length) {
          if (chunk.charCodeAt(i + 1) === 10) i++;
        } else {
          this.sawCR = true;
        }
      }
      i++;
      start = i;
      this.line(line, out);
    }
    if (start < chunk.length) {
      const rest = chunk.slice(start);
      this.parts.push(rest);
      this.partsLength += rest.length;
      this.checkSize();
    }
    return out;
  }

  /** Forgets any incomplete block (what end of stream does). Ids and retry are kept. */
  reset(): void {
    this.parts = [];
    this.partsLength = 0;
    this.sawCR = false;
    this.clearBlock();
  }

  private checkSize(): void {
    if (this.partsLength + this.dataLength > this.maxEventSize) {
      this.reset();
      throw new SseParseError(`SSE event larger than the limit of ${this.maxEventSize} characters`);
    }
  }

  private clearBlock(): void {
    this.data = [];
    this.dataLength = 0;
    this.eventType = '';
    this.blockId = undefined;
    this.blockRetry = undefined;
    this.hasFields = false;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.hasFields) {
        const ev: SseEvent = { event: this.eventType || 'message', data: this.data.join('\n') };
        if (this.blockId !== undefined) ev.id = this.blockId;
        if (this.blockRetry !== undefined) ev.retry = this.blockRetry;
        out.push(ev);
      }
      this.clearBlock();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      this.onComment?.(line.charCodeAt(1) === 32 ? line.slice(2) : line.slice(1));
      return;
    }
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.dataLength += value.length + 1;
        this.hasFields = true;
        this.checkSize();
        break;
      case 'event':
        this.eventType = value;
        this.hasFields = true;
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.lastEventId = value;
          this.blockId = value;
          this.hasFields = true;
        }
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) {
          this.retry = Number(value);
          this.blockRetry = this.retry;
          this.hasFields = true;
        }
        break;
      default:
        // Unknown fields are ignored.
        break;
    }
  }
}

export interface ReadSseOptions extends SseParserOptions {
  /** Stops reading (the iterator ends) when aborted. */
  signal?: AbortSignal;
}

/**
 * Reads a byte stream as SSE events. UTF-8 is decoded in streaming mode, so a character whose
 * bytes are split across chunks is decoded whole. Ending the iteration early cancels the stream.
 * Read errors (a dropped connection, an abort) are thrown from the iterator.
 */
export async function* readSseStream(body: ReadableStream<Uint8Array>, options: ReadSseOptions = {}): AsyncGenerator<SseEvent, void, undefined> {
  const parser = new SseParser(options);
  const decoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  const { signal } = options;
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  let done = false;
  try {
    if (signal?.aborted) return;
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        // Flush a dangling partial character; an unterminated block is then dropped.
        const tail = decoder.decode();
        if (tail) yield* parser.feed(tail);
        return;
      }
      const events = parser.feed(decoder.decode(r.value, { stream: true }));
      for (const e of events) yield e;
      if (signal?.aborted) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
