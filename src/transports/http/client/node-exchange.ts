/**
 * The HTTP exchange for the client transports on Node: HTTP/1.1 on keep-alive sockets of our own
 * (./h1.ts), the request written as one string, the answer read without node:http's request and
 * response objects or web streams. Node's `fetch` (undici) costs ~1 M instructions per small POST
 * in a busy client and node:http's client ~150k, more than the server's cost of answering it;
 * this path is a fraction of that.
 *
 * It keeps what the fetch path does, so the transports cannot tell them apart: redirects are
 * followed as fetch follows them (up to 20; 303, and 301/302 after a POST, become a GET without
 * the body; a cross-origin hop drops credentials); no answer head within 300 s, or a body idle
 * for 300 s, fails the request (undici's two timeouts); a network failure rejects with a
 * TypeError "fetch failed" whose cause is the socket's error, as fetch's does, so messages and
 * callers matching them stay the same; an abort rejects with the signal's reason and ends the
 * body. It sends the `user-agent` and `accept-encoding` fetch sends, and decodes gzip, deflate
 * and br answers.
 *
 * node:net and node:tls are reached through `process.getBuiltinModule`, never imported: runtimes
 * that imitate Node (Bun, Deno) load this file too, and are told here to keep fetch (see
 * pick-exchange.ts).
 */
import type { Transform } from 'node:stream';
import { SseParser, type SseEvent } from '../sse.js';
import type { AbortInput, ExchangeResponse, HttpExchange } from './exchange.js';
import { acquire, type H1Connection, type H1Origin, type H1Sink, type ResponseHead } from './h1.js';
import { isBadValue, isToken } from './header-syntax.js';

const MAX_REDIRECTS = 20;
/** A body up to this size is read and dropped when discarded, so its connection can be reused. */
const DRAIN_LIMIT = 64 * 1024;
/** Chunks of a body read as events that may wait for the reader before the socket is paused. */
const QUEUE_LIMIT = 16;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
/** The request headers fetch drops when a redirect turns a POST into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
/** The request headers fetch drops on a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];
/** What fetch rejects with for a network failure: the reason is the cause. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/** What reading a fetch body rejects with when the connection breaks. */
function terminated(cause: unknown): TypeError {
  return new TypeError('terminated', { cause });
}

export const nodeExchange: HttpExchange = (method, url, headers, body, signal) =>
  new Promise<ExchangeResponse>((resolve, reject) => {
    new NodeCall(method, url, headers, body, signal, resolve, reject).start();
  });

/**
 * The node exchange for a transport to `url`, or undefined where fetch must stay: not Node
 * itself (Bun, Deno and workerd imitate parts of it), not an http(s) URL, MCPKIT_HTTP_CLIENT=fetch,
 * or `fetch` routed somewhere this would not go (NODE_USE_ENV_PROXY; an undici global
 * dispatcher other than the plain Agent Node's fetch installs on first use: a proxy, a mock).
 * Asked per transport: a dispatcher can be installed at any time.
 */
export function nodeExchangeFor(url: URL): HttpExchange | undefined {
  const { versions, env } = process;
  if (versions.bun || versions.deno || (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers') return undefined;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (env.MCPKIT_HTTP_CLIENT === 'fetch' || env.NODE_USE_ENV_PROXY) return undefined;
  const dispatcher = (globalThis as Record<symbol, { constructor?: { name?: string } } | undefined>)[Symbol.for('undici.globalDispatcher.1')];
  if (dispatcher !== undefined && dispatcher.constructor?.name !== 'Agent') return undefined;
  return nodeExchange;
}

/** The connections of one origin (scheme, host, port): shared by every URL there. */
const origins = new Map<string, H1Origin>();

/** Where a URL's requests go, worked out once per URL object (a transport keeps its own). */
class Target {
  readonly origin: H1Origin;
  readonly path: string;
  /** The Host header: host and port as the URL spells them (the default port left out). */
  readonly host: string;

  constructor(url: URL) {
    const https = url.protocol === 'https:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
    const key = `${https ? 'https' : 'http'} ${hostname} ${port}`;
    let origin = origins.get(key);
    if (origin === undefined) {
      // The TLS server name (SNI): none for an IP address, as Node's agent finds it.
      const servername = https && process.getBuiltinModule('node:net').isIP(hostname) === 0 ? hostname : '';
      origin = { https, hostname, port, servername, idle: [] };
      origins.set(key, origin);
    }
    this.origin = origin;
    this.path = url.pathname + url.search;
    this.host = url.host;
  }
}

const targets = new WeakMap<URL, Target>();

function targetOf(url: URL): Target {
  let t = targets.get(url);
  if (t === undefined) {
    t = new Target(url);
    targets.set(url, t);
  }
  return t;
}

/** The request's head and body as one string; undefined when a header cannot be sent. */
function requestText(method: string, target: Target, h: Record<string, string>, body: string | undefined): string | undefined {
  let text = `${method} ${target.path} HTTP/1.1\r\n`;
  if (h.host === undefined) text += `host: ${target.host}\r\n`;
  for (const k in h) {
    const v = h[k];
    if (!isToken(k) || isBadValue(v)) return undefined;
    text += `${k}: ${v}\r\n`;
  }
  // What fetch adds when the caller did not say.
  if (h.accept === undefined) text += 'accept: */*\r\n';
  if (h['user-agent'] === undefined) text += 'user-agent: node\r\n';
  if (h['accept-encoding'] === undefined) text += 'accept-encoding: gzip, deflate, br\r\n';
  if (body === undefined) return `${text}\r\n`;
  return `${text}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** One exchange, across its redirects and a retry on a keep-alive connection the server had closed. */
class NodeCall implements H1Sink {
  private url: URL;
  private method: string;
  private headers: Record<string, string>;
  private body: string | undefined;
  readonly signal: AbortInput;
  private redirects = 0;
  private retried = false;
  private conn: H1Connection | undefined = undefined;
  /** The answer handed out (its body is being read), once resolved. */
  private res: NodeResponse | undefined = undefined;
  /** A redirect whose body is being dropped before it is followed. */
  private next: URL | undefined = undefined;
  private nextStatus = 0;
  private listening = false;

  constructor(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortInput,
    private readonly resolve: (res: ExchangeResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.body = body;
    this.signal = signal;
  }

  start(): void {
    const signal = this.signal;
    if (signal) {
      if (signal.aborted) return this.reject(signal.reason);
      // The call itself is the listener (handleEvent): no closure per request.
      signal.addEventListener('abort', this);
      this.listening = true;
    }
    this.send();
  }

  /** The signal aborted. */
  handleEvent(): void {
    const reason = this.signal!.reason;
    const conn = this.conn;
    this.conn = undefined;
    conn?.destroy();
    this.finish();
    if (this.res === undefined) this.reject(reason);
    else this.res.failed(reason instanceof Error ? reason : new Error(String(reason)));
  }

  /** Stops listening to the signal: the body has been read, dropped, or failed. */
  finish(): void {
    if (this.listening) {
      this.listening = false;
      this.signal!.removeEventListener('abort', this);
    }
  }

  private failBeforeAnswer(err: unknown): void {
    this.finish();
    this.reject(err);
  }

  private send(): void {
    const url = this.url;
    if (url.username || url.password)
      return this.failBeforeAnswer(new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url.href}`));
    const target = targetOf(url);
    const text = requestText(this.method, target, this.headers, this.body);
    // An invalid header name or value: fetch refuses those before sending too.
    if (text === undefined) return this.failBeforeAnswer(fetchFailed(new TypeError('Invalid header name or value')));
    const conn = acquire(target.origin);
    this.conn = conn;
    conn.send(this, text);
  }

  head(head: ResponseHead): void {
    const status = head.status;
    const location = REDIRECT_STATUS.has(status) ? head.get('location') : null;
    if (location !== null) {
      // Its body is dropped first (the connection is reused), then the redirect is followed.
      try {
        this.next = new URL(location, this.url);
      } catch (err) {
        return this.abandon(fetchFailed(err));
      }
      this.nextStatus = status;
      return;
    }
    this.res = new NodeResponse(this, head);
    this.resolve(this.res);
  }

  data(chunk: Buffer): void {
    this.res?.push(chunk);
  }

  end(): void {
    this.conn = undefined;
    if (this.next !== undefined) return this.redirect(this.next, this.nextStatus);
    this.res?.push(null);
  }

  fail(err: Error, answered: boolean): void {
    const conn = this.conn;
    this.conn = undefined;
    if (this.res !== undefined) return this.res.failed(terminated(err));
    // A pooled keep-alive connection that broke before any answer: most likely the server
    // closed it while idle, as the request went out. A GET or DELETE (idempotent) is sent again,
    // once, on a fresh connection; a POST is not, since the server may have acted on it.
    const code = (err as NodeJS.ErrnoException).code;
    if (conn?.reused && !answered && !this.retried && this.method !== 'POST' && (code === 'ECONNRESET' || code === 'EPIPE')) {
      this.retried = true;
      return this.send();
    }
    this.failBeforeAnswer(fetchFailed(err));
  }

  /** Gives up on the connection and the request. */
  private abandon(err: unknown): void {
    const conn = this.conn;
    this.conn = undefined;
    conn?.destroy();
    this.failBeforeAnswer(err);
  }

  /** Follows a redirect the way fetch's "follow" mode does. */
  private redirect(next: URL, status: number): void {
    this.next = undefined;
    if (next.protocol !== 'http:' && next.protocol !== 'https:') return this.failBeforeAnswer(fetchFailed(new Error('URL scheme must be a HTTP(S) scheme')));
    if (++this.redirects > MAX_REDIRECTS) return this.failBeforeAnswer(fetchFailed(new Error('redirect count exceeded')));
    const headers = { ...this.headers };
    if (status === 303 ? this.method !== 'GET' : (status === 301 || status === 302) && this.method === 'POST') {
      this.method = 'GET';
      this.body = undefined;
      for (const h of BODY_HEADERS) delete headers[h];
    }
    if (next.origin !== this.url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
    this.headers = headers;
    this.url = next;
    this.retried = false;
    this.send();
  }

  /**
   * Drops the rest of the body: read to its end when short (false: the connection stays), else,
   * or `always`, the connection goes (true).
   */
  discard(always: boolean): boolean {
    const conn = this.conn;
    if (conn === undefined) return true;
    if (!always && conn.bodyWithin(DRAIN_LIMIT)) return false;
    this.conn = undefined;
    conn.destroy();
    return true;
  }

  pause(paused: boolean): void {
    this.conn?.pause(paused);
  }
}

/** The answer: its head, and its body as it arrives (queued until it is read). */
class NodeResponse implements ExchangeResponse {
  private _headers: Headers | undefined;
  /** Body chunks not yet read; null marks the end. */
  private queue: Array<Buffer | null> = [];
  private error: Error | undefined = undefined;
  private wake: (() => void) | undefined = undefined;
  private dropping = false;
  private decoder: Transform | undefined;

  constructor(
    private readonly call: NodeCall,
    private readonly head: ResponseHead,
  ) {
    const encoding = head.get('content-encoding')?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') this.decoder = decoderFor(encoding, this);
  }

  get status(): number {
    return this.head.status;
  }
  get statusText(): string {
    return this.head.statusText;
  }
  get ok(): boolean {
    const s = this.head.status;
    return s >= 200 && s < 300;
  }
  get hasBody(): boolean {
    return !NULL_BODY_STATUS.has(this.head.status);
  }
  header(name: string): string | null {
    return this.head.get(name);
  }
  get headers(): Headers {
    if (!this._headers) {
      const h = new Headers();
      const raw = this.head.raw;
      for (let i = 0; i < raw.length; i += 2) {
        try {
          h.append(raw[i], raw[i + 1]);
        } catch {
          // A value fetch would not have let through either.
        }
      }
      this._headers = h;
    }
    return this._headers;
  }

  /** Body bytes from the connection (null: the end), through the decoder when there is one. */
  push(chunk: Buffer | null): void {
    const d = this.decoder;
    if (d !== undefined) {
      if (chunk === null) d.end();
      else d.write(chunk);
      return;
    }
    this.decoded(chunk);
  }

  /** Body bytes as the reader gets them. */
  decoded(chunk: Buffer | null): void {
    if (this.dropping || this.error !== undefined) return;
    this.queue.push(chunk);
    if (chunk === null) this.call.finish();
    else if (this.queue.length > QUEUE_LIMIT) this.call.pause(true);
    const wake = this.wake;
    if (wake !== undefined) {
      this.wake = undefined;
      wake();
    }
  }

  failed(err: Error): void {
    if (this.error !== undefined || this.queue[this.queue.length - 1] === null) return;
    this.error = err;
    this.call.finish();
    this.decoder?.destroy();
    const wake = this.wake;
    if (wake !== undefined) {
      this.wake = undefined;
      wake();
    }
  }

  /** The next chunk: a Buffer, null at the end; rejects when the body failed. */
  private next(): Buffer | null | Promise<Buffer | null> {
    if (this.queue.length > 0) {
      const c = this.queue.shift()!;
      if (this.queue.length === QUEUE_LIMIT) this.call.pause(false);
      return c;
    }
    if (this.error !== undefined) throw this.error;
    return new Promise<void>((resolve) => (this.wake = resolve)).then(() => this.next());
  }

  textNow(): string | undefined {
    // The usual answer: all of it has arrived with its head, in one piece.
    const q = this.queue;
    if (q.length !== 2 || q[1] !== null || this.error !== undefined) return undefined;
    const bytes = q[0]!;
    q.length = 0;
    return utf8Text(bytes);
  }

  async text(): Promise<string> {
    const now = this.textNow();
    if (now !== undefined) return now;
    const parts: Buffer[] = [];
    for (let c = await this.next(); c !== null; c = await this.next()) parts.push(c);
    this.queue.length = 0;
    return utf8Text(parts.length === 1 ? parts[0] : Buffer.concat(parts));
  }

  async *events(): AsyncGenerator<SseEvent, void, undefined> {
    const signal = this.call.signal;
    const utf8 = new TextDecoder();
    const parser = new SseParser();
    let ended = false;
    try {
      if (signal?.aborted) return;
      for (let c = await this.next(); c !== null; c = await this.next()) {
        for (const e of parser.feed(utf8.decode(c, { stream: true }))) yield e;
        if (signal?.aborted) return;
      }
      ended = true;
    } catch (err) {
      if (signal?.aborted) return;
      throw err instanceof TypeError && err.message === 'terminated' ? err : terminated(err);
    } finally {
      this.call.finish();
      if (!ended) this.discardNow(true);
    }
  }

  discard(): void {
    this.discardNow(false);
  }

  private discardNow(always: boolean): void {
    this.queue.length = 0;
    this.dropping = true;
    this.call.finish();
    // Read to its end (a complete body must still be consumed to free the connection), unless
    // it may be long or endless: then the connection goes, as when fetch cancels a body.
    if (this.call.discard(always)) this.decoder?.destroy();
  }
}

/** A decompressor for a content-coding fetch decodes, feeding `res`; undefined for others. */
function decoderFor(encoding: string, res: NodeResponse): Transform | undefined {
  const zlib = process.getBuiltinModule('node:zlib');
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : encoding === 'deflate'
        ? zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : encoding === 'br'
          ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
          : undefined;
  if (decoder === undefined) return undefined;
  decoder.on('data', (c: Buffer) => res.decoded(c));
  decoder.on('end', () => res.decoded(null));
  decoder.on('error', (err: Error) => res.failed(terminated(err)));
  return decoder;
}

/** A body's bytes as text, as fetch's text() decodes them (with a BOM check: a leading U+FEFF goes). */
function utf8Text(bytes: Buffer | undefined): string {
  const text = bytes === undefined || bytes.length === 0 ? '' : bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
