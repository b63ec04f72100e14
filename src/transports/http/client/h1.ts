/**
 * HTTP/1.1 on keep-alive sockets, written and read here rather than by node:http, for the node
 * exchange (./node-exchange.ts). A request is one string handed to `socket.write`; the answer's
 * head is scanned in place and its body passed on as the socket delivered it, by Content-Length,
 * chunked coding, or to the connection's end. node:http's client (ClientRequest, the Agent and
 * its events, IncomingMessage streams) cost ~150k instructions per small POST, more than the
 * server answering it; this is a small fraction of that.
 *
 * One connection carries one exchange at a time (no pipelining). Idle connections are kept per
 * origin, unref'd, for a few seconds (less than the server's `Keep-Alive: timeout`), and a
 * connection silent for 300 s in the middle of an exchange fails it (undici's headers and body
 * timeouts). Both are checked by one unref'd timer per second while any connection is open,
 * not by a timer per request.
 */
import type { Socket } from 'node:net';
import { TCHAR } from './header-syntax.js';

/** The head of an answer: status, reason phrase, header lines (lower-case names). */
export class ResponseHead {
  constructor(
    readonly status: number,
    readonly statusText: string,
    /** Names and values, alternating; names lower-case, values trimmed. */
    readonly raw: string[],
  ) {}

  /** One header, repeated ones joined with ", " (as `Headers.get` joins them); null when absent. */
  get(name: string): string | null {
    const raw = this.raw;
    let out: string | null = null;
    for (let i = 0; i < raw.length; i += 2) if (raw[i] === name) out = out === null ? raw[i + 1] : `${out}, ${raw[i + 1]}`;
    return out;
  }
}

/** Where a connection delivers the answer to the exchange it carries. */
export interface H1Sink {
  /** The answer's head (1xx heads are skipped). */
  head(head: ResponseHead): void;
  /** Body bytes, content-coding not undone. */
  data(chunk: Buffer): void;
  /** The body is complete (the connection is back in its pool, or closed). */
  end(): void;
  /** The exchange failed. `answered`: some bytes of an answer had arrived. */
  fail(err: Error, answered: boolean): void;
}

/** Where a connection goes: the socket options of one origin, and its idle connections. */
export interface H1Origin {
  readonly https: boolean;
  readonly hostname: string;
  readonly port: number;
  /** TLS server name ('' for an IP address). */
  readonly servername: string;
  /** Idle connections, most recently used last. */
  readonly idle: H1Connection[];
}

enum Mode {
  Idle,
  Head,
  Length,
  Chunked,
  UntilClose,
}

enum Chunk {
  Size,
  Data,
  DataEnd,
  Trailer,
}

/** The largest head accepted (node:http's default --max-http-header-size). */
const MAX_HEAD = 16 * 1024;
/** An exchange silent this long fails (undici's headersTimeout and bodyTimeout). */
const SILENCE_S = 300;
/** How long an idle connection is kept, at most: under the 5 s keep-alive of Node's servers. */
const IDLE_S = 3;
/** Idle connections kept per origin beyond which released ones are closed (Agent's maxFreeSockets). */
const MAX_IDLE = 256;
const CRLFCRLF = Buffer.from('\r\n\r\n');

/** Seconds since the sweeper started: activity is stamped with it, cheaper than a clock read. */
let epoch = 0;
let sweeper: ReturnType<typeof setInterval> | undefined;
const open = new Set<H1Connection>();

function sweep(): void {
  epoch++;
  for (const c of open) {
    if (c.sink !== undefined) {
      if (epoch - c.seen > SILENCE_S) c.timedOut();
    } else if (epoch - c.seen >= c.idleFor) c.destroy();
  }
  if (open.size === 0 && sweeper !== undefined) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** A connection to `origin` to send one request on: an idle one, or a new one. */
export function acquire(origin: H1Origin): H1Connection {
  const idle = origin.idle;
  while (idle.length > 0) {
    const c = idle.pop()!;
    if (!c.socket.destroyed) return c;
  }
  return new H1Connection(origin);
}

function connect(o: H1Origin): Socket {
  if (o.https) {
    const tls = process.getBuiltinModule('node:tls');
    return tls.connect({ host: o.hostname, port: o.port, ...(o.servername ? { servername: o.servername } : {}), ALPNProtocols: ['http/1.1'] });
  }
  return process.getBuiltinModule('node:net').connect({ host: o.hostname, port: o.port });
}

/** One socket to one origin, carrying one exchange at a time. */
export class H1Connection {
  readonly socket: Socket;
  /** The exchange this connection carries, if any. */
  sink: H1Sink | undefined = undefined;
  /** Whether it carried an exchange before the current one. */
  reused = false;
  /** `epoch` at the last activity. */
  seen = epoch;
  /** Seconds an idle connection is kept. */
  idleFor = IDLE_S;
  private mode = Mode.Idle;
  /** Bytes of an unfinished head or chunk-size line. */
  private partial: Buffer | undefined = undefined;
  private remaining = 0;
  private chunk = Chunk.Size;
  private keepAlive = true;
  private answered = false;
  private error: Error | undefined = undefined;

  constructor(readonly origin: H1Origin) {
    const socket = connect(origin);
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (b: Buffer) => this.onData(b));
    socket.on('error', (err: Error) => {
      this.error ??= err;
    });
    socket.on('end', () => this.onClose());
    socket.on('close', () => this.onClose());
    open.add(this);
    sweeper ??= setInterval(sweep, 1000);
    sweeper.unref?.();
  }

  /** Sends one request (its head and body as one string) for `sink`. */
  send(sink: H1Sink, text: string): void {
    this.sink = sink;
    this.mode = Mode.Head;
    this.answered = false;
    this.seen = epoch;
    this.socket.ref();
    this.socket.write(text);
  }

  /** Stops the exchange in progress and closes the connection, telling the exchange nothing. */
  destroy(): void {
    if (this.sink === undefined) {
      const idle = this.origin.idle;
      const i = idle.lastIndexOf(this);
      if (i >= 0) idle.splice(i, 1);
    }
    this.sink = undefined;
    this.mode = Mode.Idle;
    open.delete(this);
    this.socket.destroy();
  }

  /** The exchange sits silent past the limit. */
  timedOut(): void {
    const sink = this.sink!;
    const answered = this.answered;
    this.destroy();
    sink.fail(new Error(answered ? 'Body Timeout Error' : 'Headers Timeout Error'), answered);
  }

  /** Whether the rest of the body is known to be at most `limit` bytes (it can be read and dropped). */
  bodyWithin(limit: number): boolean {
    return this.mode === Mode.Length && this.remaining <= limit;
  }

  /** Stops reading for a while (a slow consumer), or reads again. */
  pause(paused: boolean): void {
    if (paused) this.socket.pause();
    else this.socket.resume();
  }

  private onClose(): void {
    if (!open.has(this)) return;
    const { sink, mode, answered } = this;
    this.destroy();
    if (sink === undefined) return;
    if (mode === Mode.UntilClose) return sink.end();
    sink.fail(this.error ?? Object.assign(new Error(answered ? 'other side closed' : 'socket hang up'), { code: 'ECONNRESET' }), answered);
  }

  private fail(message: string): void {
    const sink = this.sink;
    const answered = this.answered;
    this.destroy();
    sink?.fail(new Error(message), answered);
  }

  /** The body is complete: the connection goes back to its pool (unless it cannot), then the sink hears. */
  private done(extra: boolean): void {
    const sink = this.sink!;
    this.sink = undefined;
    this.mode = Mode.Idle;
    if (!this.keepAlive || extra) this.destroy();
    else {
      this.reused = true;
      this.seen = epoch;
      const idle = this.origin.idle;
      if (idle.length >= MAX_IDLE) this.destroy();
      else {
        this.socket.unref();
        idle.push(this);
      }
    }
    sink.end();
  }

  private onData(b: Buffer): void {
    this.seen = epoch;
    let off = 0;
    const sink = this.sink;
    if (sink === undefined || this.mode === Mode.Idle) {
      // Bytes nobody asked for: the connection cannot be trusted with another request.
      this.destroy();
      return;
    }
    this.answered = true;
    while (off < b.length && this.sink === sink) {
      switch (this.mode) {
        case Mode.Head: {
          if (this.partial !== undefined) {
            b = Buffer.concat([this.partial, b.subarray(off)]);
            off = 0;
            this.partial = undefined;
          }
          const end = b.indexOf(CRLFCRLF, off);
          if (end < 0) {
            if (b.length - off > MAX_HEAD) return this.fail('Headers Overflow Error');
            this.partial = b.subarray(off);
            return;
          }
          if (end - off > MAX_HEAD) return this.fail('Headers Overflow Error');
          const head = parseHead(b.toString('latin1', off, end));
          off = end + 4;
          if (head === undefined) return this.fail('Invalid HTTP response head');
          if (!this.frame(head)) return;
          break;
        }
        case Mode.Length: {
          const n = Math.min(this.remaining, b.length - off);
          this.remaining -= n;
          sink.data(off === 0 && n === b.length ? b : b.subarray(off, off + n));
          off += n;
          if (this.remaining === 0 && this.sink === sink) this.done(off < b.length);
          return;
        }
        case Mode.Chunked:
          off = this.chunked(b, off, sink);
          break;
        default:
          sink.data(off === 0 ? b : b.subarray(off));
          return;
      }
    }
  }

  /** Decides how the body of `head` is framed; false when the exchange ended (or failed) here. */
  private frame(head: ResponseHead): boolean {
    const s = head.status;
    if (s < 200) {
      if (s === 101) {
        this.fail('Unexpected protocol switch (101)');
        return false;
      }
      return true; // 100, 103: the real answer follows
    }
    const te = head.get('transfer-encoding');
    const length = head.get('content-length');
    const connection = head.get('connection');
    // "keep-alive", what servers send on every answer, is known without a regular expression.
    this.keepAlive = connection === null || connection === 'keep-alive' || !/(^|,)\s*close\s*(,|$)/i.test(connection);
    const hint = head.get('keep-alive');
    if (hint !== null) {
      const t = hintSeconds(hint);
      if (t !== undefined) this.idleFor = Math.min(IDLE_S, t - 1);
      if (this.idleFor <= 0) this.keepAlive = false;
    }
    const sink = this.sink!;
    if (s === 204 || s === 205 || s === 304) {
      sink.head(head);
      if (this.sink === sink) this.done(false);
      return false;
    }
    if (te !== null) {
      if (/(^|,)\s*chunked\s*$/i.test(te)) {
        this.mode = Mode.Chunked;
        this.chunk = Chunk.Size;
        if (length !== null) this.keepAlive = false;
      } else {
        this.mode = Mode.UntilClose;
        this.keepAlive = false;
      }
    } else if (length !== null) {
      const n = contentLength(length);
      if (n < 0) {
        this.fail('Invalid Content-Length');
        return false;
      }
      this.mode = Mode.Length;
      this.remaining = n;
    } else {
      this.mode = Mode.UntilClose;
      this.keepAlive = false;
    }
    sink.head(head);
    if (this.sink !== sink) return false;
    if (this.mode === Mode.Length && this.remaining === 0) {
      this.done(false);
      return false;
    }
    return true;
  }

  /** Reads chunked coding from `b` at `off`; returns where it stopped. */
  private chunked(b: Buffer, off: number, sink: H1Sink): number {
    while (off < b.length && this.sink === sink) {
      if (this.chunk === Chunk.Data) {
        const n = Math.min(this.remaining, b.length - off);
        this.remaining -= n;
        sink.data(b.subarray(off, off + n));
        off += n;
        if (this.remaining === 0) {
          this.chunk = Chunk.DataEnd;
          this.remaining = 2;
        }
        continue;
      }
      if (this.chunk === Chunk.DataEnd) {
        // The CRLF after a chunk's data, possibly split across reads.
        const want = this.remaining === 2 ? 13 : 10;
        if (b[off] !== want) {
          this.fail('Invalid chunked encoding');
          return b.length;
        }
        off++;
        if (--this.remaining === 0) this.chunk = Chunk.Size;
        continue;
      }
      // A size line or a trailer line, possibly split across reads.
      const nl = b.indexOf(10, off);
      if (nl < 0) {
        const rest = b.subarray(off);
        this.partial = this.partial === undefined ? rest : Buffer.concat([this.partial, rest]);
        if (this.partial.length > MAX_HEAD) this.fail('Invalid chunked encoding');
        return b.length;
      }
      let line = b.toString('latin1', off, nl);
      off = nl + 1;
      if (this.partial !== undefined) {
        line = this.partial.toString('latin1') + line;
        this.partial = undefined;
      }
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (this.chunk === Chunk.Trailer) {
        if (line === '') {
          this.done(off < b.length);
          return b.length;
        }
        continue;
      }
      const semi = line.indexOf(';');
      const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) {
        this.fail('Invalid chunked encoding');
        return b.length;
      }
      this.remaining = Number.parseInt(hex, 16);
      this.chunk = this.remaining === 0 ? Chunk.Trailer : Chunk.Data;
    }
    return off;
  }
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: ([^\r\n]*))?$/;
const SP = 32;
const HTAB = 9;

/**
 * A Content-Length's value; -1 when it is not digits (at most 15), or when repeated values
 * ("5, 5", which must agree) disagree.
 */
function contentLength(value: string): number {
  let n = 0;
  let digits = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++digits > 15) return -1;
      n = n * 10 + (c - 48);
      continue;
    }
    // Not a single value: the slow reading, for a list.
    const values = value.split(',');
    const first = values[0].trim();
    if (!/^\d{1,15}$/.test(first) || values.some((v) => v.trim() !== first)) return -1;
    return Number(first);
  }
  return digits === 0 ? -1 : n;
}

/** The last Keep-Alive hint read, and its timeout: a server sends the same one on every answer. */
let lastHint = '';
let lastHintSeconds: number | undefined;

/** The `timeout=N` of a Keep-Alive header, in seconds; undefined when it has none. */
function hintSeconds(hint: string): number | undefined {
  if (hint !== lastHint) {
    const t = /timeout=(\d+)/i.exec(hint);
    lastHintSeconds = t ? Number(t[1]) : undefined;
    lastHint = hint;
  }
  return lastHintSeconds;
}

/** The status line and header lines of a head (its text up to the blank line); undefined when malformed. */
function parseHead(text: string): ResponseHead | undefined {
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = text.length;
  const status = STATUS_LINE.exec(text.slice(0, eol));
  if (!status) return undefined;
  const raw: string[] = [];
  let at = eol + 2;
  while (at < text.length) {
    let end = text.indexOf('\r\n', at);
    if (end < 0) end = text.length;
    // The name: a token up to the colon (no obsolete line folding, no space before the colon:
    // RFC 9112 §5), read character by character and lower-cased only when it has capitals.
    const colon = text.indexOf(':', at);
    if (colon <= at || colon > end) return undefined;
    let upper = false;
    for (let i = at; i < colon; i++) {
      const c = text.charCodeAt(i);
      const t = c < 128 ? TCHAR[c] : 0;
      if (t === 0) return undefined;
      if (t === 2) upper = true;
    }
    const name = upper ? text.slice(at, colon).toLowerCase() : text.slice(at, colon);
    // The value trimmed of spaces and tabs, sliced once when it has none to trim.
    let from = colon + 1;
    let to = end;
    while (from < to && (text.charCodeAt(from) === SP || text.charCodeAt(from) === HTAB)) from++;
    while (to > from && (text.charCodeAt(to - 1) === SP || text.charCodeAt(to - 1) === HTAB)) to--;
    raw.push(name, text.slice(from, to));
    at = end + 2;
  }
  const head = new ResponseHead(Number(status[2]), status[3] ?? '', raw);
  // HTTP/1.0 connections are not reused.
  if (status[1] === '0') raw.push('connection', 'close');
  return head;
}
