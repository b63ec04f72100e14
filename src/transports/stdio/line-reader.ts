/**
 * Incremental newline splitter for the stdio transports.
 *
 * Bytes arrive in arbitrary chunks; a line (and a multi-byte UTF-8 character inside it) may be
 * cut anywhere. Pieces of the current line are kept as raw Buffers and decoded once, when the
 * terminating `\n` arrives, so a split character is never mangled and no work is repeated.
 *
 * Memory stays bounded: once the current line grows past `maxLineLength` bytes its pieces are
 * dropped and the rest of it is skipped (only counted) until its newline shows up.
 */

/** 4 MiB, the same figure as the codec's default message limit. */
export const DEFAULT_MAX_LINE_LENGTH = 4 * 1024 * 1024;

const NEWLINE = 0x0a;

export interface LineReaderOptions {
  /** Called with each complete, non-blank line: trailing `\r` removed, UTF-8 decoded. */
  onLine: (line: string) => void;
  /**
   * Called once per over-long line, as soon as it passes the limit (not at its end, which may
   * never come). `lengthSoFar` is the number of bytes of that line seen when the limit was hit.
   */
  onOversize?: (lengthSoFar: number) => void;
  /** Largest accepted line in bytes, not counting the `\n`. Default 4 MiB. */
  maxLineLength?: number;
}

export class LineReader {
  readonly maxLineLength: number;
  private readonly onLine: (line: string) => void;
  private readonly onOversize: ((lengthSoFar: number) => void) | undefined;
  /** Pieces of the current, still unterminated line. */
  private pieces: Buffer[] = [];
  private pendingBytes = 0;
  /** True while skipping the remainder of an over-long line. */
  private discarding = false;

  constructor(options: LineReaderOptions) {
    const max = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    if (!Number.isInteger(max) || max <= 0) throw new RangeError(`maxLineLength must be a positive integer, got ${max}`);
    this.maxLineLength = max;
    this.onLine = options.onLine;
    this.onOversize = options.onOversize;
  }

  /** Bytes currently held for an unterminated line (never more than `maxLineLength`). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Feeds one chunk. Callbacks run synchronously; the reader's own state is updated before
   * each call, so a callback that throws leaves the reader consistent (the exception propagates
   * and the rest of this chunk is not processed).
   */
  push(chunk: Buffer): void {
    let start = 0;
    const len = chunk.length;
    while (start < len) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? len : nl;
      const next = nl === -1 ? len : nl + 1;

      if (this.discarding) {
        // Skipping the tail of an over-long line: nothing to keep, just find its end.
        if (nl !== -1) this.discarding = false;
        start = next;
        continue;
      }

      const total = this.pendingBytes + (end - start);
      if (total > this.maxLineLength) {
        this.pieces = [];
        this.pendingBytes = 0;
        this.discarding = nl === -1;
        start = next;
        this.onOversize?.(total);
        continue;
      }

      if (nl === -1) {
        // Copy so a small tail does not pin a large chunk in memory.
        const piece = Buffer.from(chunk.subarray(start, end));
        this.pieces.push(piece);
        this.pendingBytes = total;
        return;
      }

      let line: Buffer;
      if (this.pieces.length === 0) {
        line = chunk.subarray(start, end);
      } else {
        this.pieces.push(chunk.subarray(start, end));
        line = Buffer.concat(this.pieces, total);
        this.pieces = [];
        this.pendingBytes = 0;
      }
      start = next;
      this.emit(line);
    }
  }

  /**
   * End of input: a final line without a trailing newline is still delivered (lenient; the
   * spec requires the newline). An over-long unterminated line was already reported.
   */
  end(): void {
    const pieces = this.pieces;
    const total = this.pendingBytes;
    this.reset();
    if (pieces.length > 0) this.emit(Buffer.concat(pieces, total));
  }

  /** Forgets any partial line. */
  reset(): void {
    this.pieces = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }

  private emit(bytes: Buffer): void {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    if (end === 0) return;
    const text = bytes.toString('utf8', 0, end);
    if (isBlank(text)) return;
    this.onLine(text);
  }
}

/** Cheap test for whitespace-only text: a JSON message starts with `{` or `[` right away. */
function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first === 0x7b || first === 0x5b) return false;
  return text.trim().length === 0;
}
