import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { HeaderMap, HttpRequestView, HttpResponder, StreamWriter } from '../http/exchange.js';
import type { RequestHead } from './head.js';

/** What an exchange tells the connection that carries it. */
export interface ExchangeOwner {
  readonly socket: Socket;
  /** The end of a kept-alive answer's head: `connection` and `keep-alive` lines and the blank line. */
  readonly keepAlive: string;
  /** The answer has been written whole: the connection may read the next request. */
  finished(exchange: H1Exchange, close: boolean): void;
}

/**
 * One request read by the fast front, as the HTTP core's request view and responder at once (like
 * NodeExchange for node:http). The body is already in memory: the front dispatches a request only
 * once all of it has arrived. An answer is written as one string: head and body in one write.
 */
export class H1Exchange implements HttpRequestView, HttpResponder {
  readonly method = 'POST';
  readonly path: string;
  readonly query: string;
  readonly remoteAddress: string | undefined;
  readonly authInfo = undefined;
  /** Headers added with setHeader, written with the answer's own. */
  private extra: HeaderMap | undefined;
  /** The head has been written (the answer started); `done`: it is complete. */
  private started = false;
  private done = false;
  private aborted: (() => void)[] | undefined;
  /** The SSE answer being written, told when the connection closes. */
  private writer: H1StreamWriter | undefined;
  private body: string | undefined;

  constructor(
    private readonly owner: ExchangeOwner,
    private readonly head: RequestHead,
    body: string,
  ) {
    this.body = body;
    const { target, pathEnd } = head;
    this.path = pathEnd === target.length ? target : target.slice(0, pathEnd);
    this.query = pathEnd === target.length ? '' : target.slice(pathEnd + 1);
    this.remoteAddress = owner.socket.remoteAddress;
  }

  /** Like NodeExchange's: http, since the fast front serves plain TCP only. */
  get urlOrigin(): string {
    return `http://${this.head.get('host') || 'localhost'}`;
  }

  header(name: string): string | undefined {
    return this.head.get(name);
  }

  bodyNow(limit: number): string | null {
    const body = this.body;
    // A UTF-16 unit is at most 3 bytes of UTF-8: a short body needs no byte count.
    if (body === undefined || body.length > limit || (body.length * 3 > limit && Buffer.byteLength(body) > limit)) return null;
    this.body = undefined;
    return body;
  }

  readBody(limit: number): Promise<string | undefined> {
    const body = this.body;
    if (body === undefined) return Promise.reject(new Error('body already read'));
    this.body = undefined;
    return Promise.resolve(body.length > limit || Buffer.byteLength(body) > limit ? undefined : body);
  }

  send(status: number, headers: HeaderMap, body?: string): void {
    if (this.started) return;
    const socket = this.owner.socket;
    const close = this.head.close || headers.connection === 'close' || socket.writableEnded;
    const bodyless = status === 204 || status === 304 || body === undefined || body === '';
    // Built before the answer counts as started: a header that cannot be written throws, and the
    // caller's 500 can still go out.
    const head = responseHead(
      status,
      headers,
      this.extra,
      close ? CLOSE : this.owner.keepAlive,
      status === 204 || status === 304 ? -1 : bodyless ? 0 : Buffer.byteLength(body),
    );
    this.started = true;
    if (!socket.writableEnded && !socket.destroyed) socket.write(bodyless ? head : head + body);
    this.finish(close);
  }

  stream(status: number, headers: HeaderMap): StreamWriter {
    if (this.started) throw new Error('the answer has already started');
    const writer = new H1StreamWriter(this, status, headers, this.extra);
    this.started = true;
    this.writer = writer;
    return writer;
  }

  setHeader(name: string, value: string): void {
    if (!this.started) (this.extra ??= {})[name.toLowerCase()] = value;
  }

  onAbort(listener: () => void): void {
    if (this.done) return;
    (this.aborted ??= []).push(listener);
  }

  /** @internal The connection closed: an answer not complete yet was abandoned by the client. */
  closed(): void {
    const listeners = this.aborted;
    this.aborted = undefined;
    if (!this.done && listeners) for (const l of listeners) l();
    this.writer?.fire();
  }

  /** Whether the answer has started (its head is written or held to be). */
  get answered(): boolean {
    return this.started;
  }

  /** @internal */
  get keepAlive(): string {
    return this.owner.keepAlive;
  }

  /** @internal */
  get socket(): Socket {
    return this.owner.socket;
  }

  /** @internal The answer is complete. */
  finish(close: boolean): void {
    if (this.done) return;
    this.done = true;
    this.aborted = undefined;
    this.owner.finished(this, close || this.head.close);
  }

  /** @internal Whether the answer must close the connection (`Connection: close` asked). */
  get closing(): boolean {
    return this.head.close;
  }
}

/**
 * An SSE answer in chunked coding. What is written in the tick that opens it is held until the
 * next tick so that the head and the first events leave in one write; a stream that also ends in
 * that tick (a POST answered with one event) is sent as a whole, with a Content-Length. The head is
 * never held longer than that tick: a client may be waiting for it before any event comes.
 */
class H1StreamWriter implements StreamWriter {
  private held: string | undefined = '';
  private ended = false;
  private listeners: (() => void)[] | undefined;
  private fired = false;
  /** The head but its framing, built (and checked) when the stream opens. */
  private readonly start: string;

  constructor(
    private readonly exchange: H1Exchange,
    status: number,
    private readonly headers: HeaderMap,
    extra: HeaderMap | undefined,
  ) {
    this.start = headStart(status, headers, extra);
    process.nextTick(() => this.flush());
  }

  private get close(): boolean {
    return this.exchange.closing || this.headers.connection === 'close';
  }

  private get ending(): string {
    return this.close ? CLOSE : this.exchange.keepAlive;
  }

  private flush(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    if (this.closed) return;
    const head = framed(this.start, this.ending, undefined);
    this.exchange.socket.write(held === '' ? head : head + chunk(held));
  }

  write(text: string): boolean {
    if (this.closed) return false;
    if (this.held !== undefined) {
      this.held += text;
      return true;
    }
    return text === '' ? true : this.exchange.socket.write(chunk(text));
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const socket = this.exchange.socket;
    const held = this.held;
    this.held = undefined;
    if (!socket.writableEnded && !socket.destroyed) {
      if (held !== undefined) socket.write(framed(this.start, this.ending, Buffer.byteLength(held)) + held);
      else socket.write('0\r\n\r\n');
    }
    this.exchange.finish(this.close);
    this.fire();
  }

  get closed(): boolean {
    const socket = this.exchange.socket;
    return this.ended || socket.destroyed || socket.writableEnded;
  }

  onClose(listener: () => void): void {
    if (!this.fired) (this.listeners ??= []).push(listener);
  }

  /** The answer ended or the connection closed: once. */
  fire(): void {
    if (this.fired) return;
    this.fired = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const l of listeners) l();
  }
}

function chunk(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

const CLOSE = 'connection: close\r\n\r\n';

/** The end of a kept-alive answer's head, telling the client how long the server keeps it idle (as node:http does). */
export function keepAliveEnding(keepAliveTimeoutMs: number): string {
  const s = Math.floor(keepAliveTimeoutMs / 1000);
  return s > 0 ? `connection: keep-alive\r\nkeep-alive: timeout=${s}\r\n\r\n` : 'connection: keep-alive\r\n\r\n';
}

/** Names the answer's framing owns: a core's value for them is never written. */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A value that could end its header line early (response splitting), as node:http refuses. */
const UNSAFE_VALUE = /[\0\r\n]/;
const checkedNames = new Set<string>();

/**
 * The head of an answer. `length`: a Content-Length, -1 for none (204, 304), undefined for a
 * chunked body. Like node:http's writeHead, a header name or value that cannot be written
 * safely throws, before anything is written.
 */
function responseHead(status: number, headers: HeaderMap, extra: HeaderMap | undefined, ending: string, length: number | undefined): string {
  return framed(headStart(status, headers, extra), ending, length);
}

/** The status line and the answer's own headers, checked (throws on a header unsafe to write). */
function headStart(status: number, headers: HeaderMap, extra: HeaderMap | undefined): string {
  let out = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
  if (extra !== undefined) out += lines(extra, headers);
  return out + lines(headers, undefined);
}

/** The head completed with its framing, date and connection headers. */
function framed(start: string, ending: string, length: number | undefined): string {
  let out = start;
  if (length === undefined) out += 'transfer-encoding: chunked\r\n';
  else if (length >= 0) out += `content-length: ${length}\r\n`;
  return `${out}date: ${httpDate()}\r\n${ending}`;
}

function lines(headers: HeaderMap, over: HeaderMap | undefined): string {
  let out = '';
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || FRAMING.has(name.toLowerCase()) || (over !== undefined && name in over)) continue;
    if (!checkedNames.has(name)) {
      if (!TOKEN.test(name)) throw new TypeError(`invalid header name ${JSON.stringify(name)}`);
      if (checkedNames.size < 256) checkedNames.add(name);
    }
    if (UNSAFE_VALUE.test(value)) throw new TypeError(`invalid character in the value of header ${name}`);
    out += `${name}: ${value}\r\n`;
  }
  return out;
}

let date = '';
/** The Date header's value, made at most once a second (RFC 9110 asks origin servers to send it). */
function httpDate(): string {
  if (date === '') {
    date = new Date().toUTCString();
    setTimeout(() => (date = ''), 1000 - (Date.now() % 1000)).unref();
  }
  return date;
}
