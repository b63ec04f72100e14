/**
 * The head of an HTTP/1.1 request, read only when it is plainly one the fast front may serve
 * (./front.ts): a POST to the MCP endpoint in origin form, `HTTP/1.1`, CRLF line ends, header
 * names that are tokens, values of printable ASCII, each header once, one Host, one
 * Content-Length of digits, and no Transfer-Encoding, Expect or Upgrade. Anything else, however
 * legitimate, is `OTHER`: node:http serves that connection from then on, with its own parser and
 * its own answers to malformed requests. What is accepted here is a strict subset of what node:http
 * accepts, and read as node:http reads it (names lower-case, values trimmed of spaces and tabs),
 * so the two can never disagree on where a request ends (request smuggling) or what it says.
 */

/** A request head the fast front serves. */
export class RequestHead {
  constructor(
    /** The request target: path and query, as sent. */
    readonly target: string,
    /** Where the path ends in `target` (its length when there is no query). */
    readonly pathEnd: number,
    /** Header names (lower case) and values (trimmed), alternating; each name once. */
    readonly fields: string[],
    readonly contentLength: number,
    /** `Connection: close` was sent: the connection ends after the answer. */
    readonly close: boolean,
    /** Bytes of the head, its blank line included: where the body starts. */
    readonly size: number,
  ) {}

  /** A header's value by lower-case name. A short list scanned, cheaper here than a hash. */
  get(name: string): string | undefined {
    const f = this.fields;
    for (let i = 0; i < f.length; i += 2) if (f[i] === name) return f[i + 1];
    return undefined;
  }
}

/** The head is not complete yet. */
export const PARTIAL = 0;
/** Not a request the fast front serves: hand the connection to node:http. */
export const OTHER = 1;

export interface HeadLimits {
  /** The MCP endpoint's path: the only one served. */
  readonly endpoint: string;
  /** Longest head, in bytes; a longer one is OTHER (node:http then answers 431). */
  readonly maxHeadBytes: number;
  /** Largest body; a larger declared one is OTHER (node:http streams it, the core refuses it). */
  readonly maxBodyBytes: number;
}

const TAB = 9;
const LF = 10;
const CR = 13;
const SP = 32;
const COLON = 58;
const ZERO = 48;
const NINE = 57;
const QUESTION = 63;
/** Most header lines read; more is OTHER. */
const MAX_HEADERS = 64;
const POST = Buffer.from('POST ', 'latin1');
const VERSION = Buffer.from(' HTTP/1.1\r\n', 'latin1');
/** 1 for the bytes of a token (RFC 9110 tchar), 2 for upper-case letters, 0 for the rest. */
const TCHAR = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') TCHAR[c.charCodeAt(0)] = 2;

/**
 * Reads the request head at the start of `buf`, byte by byte: the head, PARTIAL (wait for more
 * bytes), or OTHER (not ours: node:http takes the connection, bytes and all). A request that is
 * not a POST is OTHER from its first bytes, without waiting for the rest of its head.
 */
export function readRequestHead(buf: Buffer, limits: HeadLimits): RequestHead | typeof PARTIAL | typeof OTHER {
  const len = Math.min(buf.length, limits.maxHeadBytes);
  const more = buf.length >= limits.maxHeadBytes ? OTHER : PARTIAL;
  // "POST "
  for (let i = 0; i < POST.length; i++) {
    if (i >= len) return more;
    if (buf[i] !== POST[i]) return OTHER;
  }
  // The target in origin form: visible ASCII up to the space.
  let pos = POST.length;
  let query = -1;
  for (;;) {
    if (pos >= len) return more;
    const b = buf[pos];
    if (b === SP) break;
    if (b < 0x21 || b > 0x7e) return OTHER;
    if (b === QUESTION && query < 0) query = pos;
    pos++;
  }
  const targetEnd = pos;
  // The path must be the endpoint's (its bytes compared here, the string made with the rest).
  const endpoint = limits.endpoint;
  const pathEnd = (query < 0 ? targetEnd : query) - POST.length;
  if (pathEnd !== endpoint.length) return OTHER;
  for (let i = 0; i < pathEnd; i++) if (buf[POST.length + i] !== endpoint.charCodeAt(i)) return OTHER;
  // " HTTP/1.1\r\n"
  for (let i = 0; i < VERSION.length; i++, pos++) {
    if (pos >= len) return more;
    if (buf[pos] !== VERSION[i]) return OTHER;
  }
  // The header lines, checked byte by byte for their form; what they say is read after the
  // blank line, from one string of the whole head (one copy out of the buffer, not two per line).
  // Per line: where the name starts and ends, where the value starts and ends.
  const spans: number[] = [];
  let upper = false;
  for (;;) {
    if (pos >= len) return more;
    if (buf[pos] === CR) {
      // The blank line that ends the head.
      if (pos + 1 >= len) return more;
      if (buf[pos + 1] !== LF) return OTHER;
      pos += 2;
      break;
    }
    if (spans.length >= 4 * MAX_HEADERS) return OTHER;
    // The name: a token (so no leading whitespace, which would be obs-fold, and none before the colon).
    const nameStart = pos;
    for (;;) {
      if (pos >= len) return more;
      const t = TCHAR[buf[pos]];
      if (t === 0) break;
      if (t === 2) upper = true;
      pos++;
    }
    if (pos === nameStart || buf[pos] !== COLON) return OTHER;
    const nameEnd = pos++;
    // The value: printable ASCII, spaces and tabs, trimmed of them at both ends; then CRLF.
    // Anything else (a lone CR or LF, a NUL, a byte past ASCII) is OTHER.
    while (pos < len && (buf[pos] === SP || buf[pos] === TAB)) pos++;
    const valueStart = pos;
    let valueEnd = pos;
    for (;;) {
      if (pos >= len) return more;
      const b = buf[pos];
      if (b === CR) break;
      if (b === TAB || b === SP) {
        pos++;
        continue;
      }
      if (b < 0x21 || b > 0x7e) return OTHER;
      pos++;
      valueEnd = pos;
    }
    if (pos + 1 >= len) return more;
    if (buf[pos + 1] !== LF) return OTHER;
    pos += 2;
    spans.push(nameStart, nameEnd, valueStart, valueEnd);
  }
  const text = buf.toString('latin1', 0, pos);
  const fields: string[] = [];
  let contentLength = -1;
  let close = false;
  let host = false;
  for (let s = 0; s < spans.length; s += 4) {
    let name = text.slice(spans[s], spans[s + 1]);
    if (upper) name = name.toLowerCase();
    for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return OTHER;
    const value = text.slice(spans[s + 2], spans[s + 3]);
    switch (name) {
      case 'content-length': {
        if (value.length === 0 || value.length > 15) return OTHER;
        let n = 0;
        for (let i = 0; i < value.length; i++) {
          const d = value.charCodeAt(i);
          if (d < ZERO || d > NINE) return OTHER;
          n = n * 10 + (d - ZERO);
        }
        if (n > limits.maxBodyBytes) return OTHER;
        contentLength = n;
        break;
      }
      case 'connection': {
        const v = value.toLowerCase();
        if (v === 'close') close = true;
        else if (v !== 'keep-alive') return OTHER;
        break;
      }
      case 'host':
        host = true;
        break;
      // They change how the message is framed or answered: node:http's business.
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
      case 'http2-settings':
        return OTHER;
    }
    fields.push(name, value);
  }
  if (contentLength < 0 || !host) return OTHER;
  return new RequestHead(text.slice(POST.length, targetEnd), pathEnd, fields, contentLength, close, pos);
}
