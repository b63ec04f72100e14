/**
 * The HTTP exchange over node:http / node:https, for the client transports on Node: one shared
 * keep-alive agent per scheme, the request written with its body in one `end()`, the answer read
 * from the IncomingMessage without web streams. Node's `fetch` (undici) costs ~1 M instructions
 * per small POST in a busy client, many times the server's cost of answering it; this path is a
 * small fraction of that.
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
 * node:http is reached through `process.getBuiltinModule`, never imported: runtimes that imitate
 * Node (Bun, Deno) load this file too, and are told here to keep fetch (see pick-exchange.ts).
 */
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { SseParser, type SseEvent } from '../sse.js';
import type { AbortInput, ExchangeResponse, HttpExchange } from './exchange.js';

type Http = typeof import('node:http');

function isIP(host: string): number {
  return (netModule ??= process.getBuiltinModule('node:net')).isIP(host);
}
let netModule: typeof import('node:net') | undefined;

interface Stack {
  module: Pick<Http, 'request'>;
  agent: Agent;
}

let httpStack: Stack | undefined;
let httpsStack: Stack | undefined;

function stackFor(https: boolean): Stack {
  if (https) {
    if (!httpsStack) {
      const m = process.getBuiltinModule('node:https');
      httpsStack = { module: m, agent: new m.Agent({ keepAlive: true }) };
    }
    return httpsStack;
  }
  if (!httpStack) {
    const m = process.getBuiltinModule('node:http');
    httpStack = { module: m, agent: new m.Agent({ keepAlive: true }) };
  }
  return httpStack;
}

/** undici's headersTimeout and bodyTimeout defaults. */
const IDLE_TIMEOUT_MS = 300_000;
const MAX_REDIRECTS = 20;
/** A body up to this size is read and dropped when discarded, so its connection can be reused. */
const DRAIN_LIMIT = 64 * 1024;
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
 * The node:http exchange for a transport to `url`, or undefined where fetch must stay: not Node
 * itself (Bun, Deno and workerd imitate parts of it), not an http(s) URL, MCPKIT_HTTP_CLIENT=fetch,
 * or `fetch` routed somewhere node:http would not go (NODE_USE_ENV_PROXY; an undici global
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

/** Where a URL's requests go, worked out once per URL object (a transport keeps its own). */
class Target {
  readonly stack: Stack;
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
  /** The Host header: host and port as the URL spells them (the default port left out). */
  readonly host: string;
  /** The TLS server name (SNI): '' for http: and for an IP address, as Node's agent finds it. */
  readonly servername: string;

  constructor(url: URL) {
    const https = url.protocol === 'https:';
    this.stack = stackFor(https);
    this.hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = url.port;
    this.path = url.pathname + url.search;
    this.host = url.host;
    this.servername = https && isIP(this.hostname) === 0 ? this.hostname : '';
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

/** http.request's options, as an object of a class: see the header list in NodeCall.send. */
class Options {
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
  readonly agent: Agent;
  readonly servername: string;
  readonly timeout = IDLE_TIMEOUT_MS;
  constructor(
    readonly method: string,
    target: Target,
    readonly headers: string[],
  ) {
    this.hostname = target.hostname;
    this.port = target.port;
    this.path = target.path;
    this.agent = target.stack.agent;
    this.servername = target.servername;
  }
}

/**
 * The listeners this file puts on node:http's requests and responses are module functions that
 * find their exchange through a property of the emitter, never closures over it. V8 pretenures
 * allocation sites by chance (after a burst of requests that were all alive at a GC; see
 * Pending in engine/pending.ts), including the literals node:http and streams make per request,
 * such as an emitter's `_events` record. A closure stored in such an old record would keep the
 * exchange, its promise and whatever awaits it alive through every scavenge after the request
 * ended: measured, 58k instructions per call in GC alone. An old record pointing at a module
 * function keeps nothing alive.
 */
const CALL = Symbol('mcpkit.exchange');
const READER = Symbol('mcpkit.body');

interface Tagged {
  [CALL]?: NodeCall;
  [READER]?: BodyReader;
}

function requestResponse(this: ClientRequest, res: IncomingMessage): void {
  (this as Tagged)[CALL]!.onResponse(this, res);
}

function requestError(this: ClientRequest, err: NodeJS.ErrnoException): void {
  (this as Tagged)[CALL]!.onError(this, err);
}

function requestTimeout(this: ClientRequest): void {
  (this as Tagged)[CALL]!.onTimeout(this);
}

/** One exchange, across its redirects and a retry on a keep-alive socket the server had closed. */
class NodeCall {
  private url: URL;
  private method: string;
  private headers: Record<string, string>;
  private body: string | undefined;
  readonly signal: AbortInput;
  private redirects = 0;
  private retried = false;
  private req: ClientRequest | undefined;
  /** The response handed out (its body is being read), once resolved. */
  res: IncomingMessage | undefined;
  private settled = false;
  private onAbort: (() => void) | undefined;

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
      this.onAbort = () => this.abort();
      signal.addEventListener('abort', this.onAbort);
    }
    this.send();
  }

  /** Stops listening to the signal: the body has been read, dropped, or failed. */
  finish(): void {
    if (this.onAbort) {
      this.signal!.removeEventListener('abort', this.onAbort);
      this.onAbort = undefined;
    }
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.finish();
    this.reject(err);
  }

  private abort(): void {
    const reason = this.signal!.reason;
    if (!this.settled) {
      this.req?.destroy();
      this.fail(reason);
      return;
    }
    // The body is being read: end it, with the reason as its error.
    this.res?.destroy(reason instanceof Error ? reason : new Error(String(reason)));
    this.finish();
  }

  private send(): void {
    const url = this.url;
    if (url.username || url.password) return this.fail(new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url.href}`));
    const target = targetOf(url);
    // The header list handed to node:http as a flat array: it then writes the head at once
    // instead of storing each header with setHeader (a [name, value] literal per header, which
    // V8 pretenures after a burst of requests, making every later request's objects outlive
    // their scavenges). The array form leaves Host and Content-Length to us.
    const h = this.headers;
    const list: string[] = [];
    if (h.host === undefined) list.push('host', target.host);
    for (const k in h) list.push(k, h[k]);
    // What fetch adds when the caller did not say.
    if (h.accept === undefined) list.push('accept', '*/*');
    if (h['user-agent'] === undefined) list.push('user-agent', 'node');
    if (h['accept-encoding'] === undefined) list.push('accept-encoding', 'gzip, deflate, br');
    if (this.body !== undefined) list.push('content-length', String(Buffer.byteLength(this.body)));
    let req: ClientRequest;
    try {
      req = target.stack.module.request(new Options(this.method, target, list));
    } catch (err) {
      // An invalid header name or value: fetch refuses those before sending too.
      return this.fail(fetchFailed(err));
    }
    this.req = req;
    (req as Tagged)[CALL] = this;
    req.on('response', requestResponse);
    req.on('error', requestError);
    req.on('timeout', requestTimeout);
    req.end(this.body);
  }

  onError(req: ClientRequest, err: NodeJS.ErrnoException): void {
    if (this.settled || req !== this.req) return;
    // A pooled keep-alive connection that broke before any answer: most likely the server
    // closed it while idle, as the request went out. A GET or DELETE (idempotent) is sent again,
    // once, on a fresh connection; a POST is not, since the server may have acted on it.
    if (req.reusedSocket && !this.retried && this.method !== 'POST' && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
      this.retried = true;
      return this.send();
    }
    this.fail(fetchFailed(err));
  }

  onTimeout(req: ClientRequest): void {
    if (req !== this.req) return;
    if (!this.settled) {
      req.destroy();
      this.fail(fetchFailed(new Error('Headers Timeout Error')));
    } else {
      this.res?.destroy(new Error('Body Timeout Error'));
    }
  }

  onResponse(req: ClientRequest, res: IncomingMessage): void {
    if (this.settled || req !== this.req) {
      res.resume();
      return;
    }
    const status = res.statusCode!;
    const location = res.headers.location;
    if (REDIRECT_STATUS.has(status) && location !== undefined) return this.redirect(res, status, location);
    this.settled = true;
    this.res = res;
    this.resolve(new NodeResponse(this, res));
  }

  /** Follows a redirect the way fetch's "follow" mode does. */
  private redirect(res: IncomingMessage, status: number, location: string): void {
    res.resume();
    let next: URL;
    try {
      next = new URL(location, this.url);
    } catch (err) {
      return this.fail(fetchFailed(err));
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') return this.fail(fetchFailed(new Error('URL scheme must be a HTTP(S) scheme')));
    if (++this.redirects > MAX_REDIRECTS) return this.fail(fetchFailed(new Error('redirect count exceeded')));
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
}

/** A body being read whole by NodeResponse.text(). */
class BodyReader {
  first: Buffer | undefined = undefined;
  more: Buffer[] | undefined = undefined;
  settled = false;
  constructor(
    readonly call: NodeCall,
    readonly resolve: (text: string) => void,
    readonly reject: (err: unknown) => void,
  ) {}
}

function bodyData(this: Readable, chunk: Buffer): void {
  const r = (this as Tagged)[READER]!;
  if (r.first === undefined) r.first = chunk;
  else (r.more ??= [r.first]).push(chunk);
}

function bodyClose(this: Readable): void {
  const r = (this as Tagged)[READER]!;
  if (r.settled) return;
  r.settled = true;
  r.call.finish();
  if (!this.readableEnded) return r.reject(terminated(new Error('aborted')));
  const bytes = r.more ? Buffer.concat(r.more) : r.first;
  const text = bytes === undefined ? '' : bytes.toString('utf8');
  // fetch's text() decodes with a BOM check, dropping a leading U+FEFF.
  r.resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

function bodyError(this: Readable, err: Error): void {
  const r = (this as Tagged)[READER]!;
  if (r.settled) return;
  r.settled = true;
  r.call.finish();
  r.reject(terminated(err));
}

class NodeResponse implements ExchangeResponse {
  private _headers: Headers | undefined;

  constructor(
    private readonly call: NodeCall,
    private readonly res: IncomingMessage,
  ) {}

  get status(): number {
    return this.res.statusCode!;
  }
  get statusText(): string {
    return this.res.statusMessage ?? '';
  }
  get ok(): boolean {
    const s = this.res.statusCode!;
    return s >= 200 && s < 300;
  }
  get hasBody(): boolean {
    return !NULL_BODY_STATUS.has(this.res.statusCode!);
  }
  header(name: string): string | null {
    const v = this.res.headers[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
  get headers(): Headers {
    if (!this._headers) {
      const h = new Headers();
      const raw = this.res.rawHeaders;
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

  /** The body as it came, or through the decompressor its content-encoding names. */
  private source(): Readable {
    const encoding = this.res.headers['content-encoding']?.trim().toLowerCase();
    if (!encoding || encoding === 'identity') return this.res;
    const zlib = process.getBuiltinModule('node:zlib');
    const decoder =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : encoding === 'deflate'
          ? zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
          : encoding === 'br'
            ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
            : undefined;
    if (!decoder) return this.res;
    this.res.on('error', (err) => decoder.destroy(err));
    return this.res.pipe(decoder);
  }

  text(): Promise<string> {
    const source = this.source();
    return new Promise<string>((resolve, reject) => {
      (source as Tagged)[READER] = new BodyReader(this.call, resolve, reject);
      source.on('data', bodyData);
      // 'close' (which follows 'end' in the same tick) rather than 'end': node:http listens to
      // a response's 'end' itself, and a second listener turns the entry into an array.
      source.on('close', bodyClose);
      source.on('error', bodyError);
    });
  }

  async *events(): AsyncGenerator<SseEvent, void, undefined> {
    const source = this.source();
    const signal = this.call.signal;
    source.setEncoding('utf8');
    const parser = new SseParser();
    let ended = false;
    try {
      if (signal?.aborted) return;
      for await (const chunk of source) {
        for (const e of parser.feed(chunk as string)) yield e;
        if (signal?.aborted) return;
      }
      ended = true;
    } catch (err) {
      if (signal?.aborted) return;
      throw terminated(err);
    } finally {
      this.call.finish();
      if (!ended) this.res.destroy();
    }
  }

  discard(): void {
    const res = this.res;
    this.call.finish();
    // Read to its end (a complete body must still be consumed to free the connection), unless
    // it may be long or endless: then the connection goes, as when fetch cancels a body.
    if (res.complete || Number(res.headers['content-length']) <= DRAIN_LIMIT) res.resume();
    else res.destroy();
  }
}
