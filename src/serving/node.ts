import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo } from '../engine/transport.js';
import type { McpServer } from '../server/mcp-server.js';
import type { ServerPort } from '../server/server.js';
import type { HeaderMap, HttpRequestView, HttpResponder, StreamWriter } from './http/exchange.js';
import { DEFAULT_LIMITS } from '../jsonrpc/codec.js';
import { H1Front } from './h1/front.js';
import { McpHttpHandler, type HttpServerOptions } from './http/router.js';
import { isLoopbackHost } from './http/security.js';

/**
 * One node:http exchange as the core's request view and responder at once: a single object per
 * request with methods on its prototype, instead of two objects and their closures. Shared with
 * the authorization server's node:http serving; not an API.
 * @internal
 */
export class NodeExchange implements HttpRequestView, HttpResponder {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly remoteAddress: string | undefined;
  readonly authInfo: AuthInfo | undefined;
  private consumed = false;
  private readonly parsed: unknown;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    from: NodeExchangeExtras = {},
  ) {
    const url = from.url ?? req.url ?? '/';
    this.authInfo = from.authInfo;
    // A framework body parser (express.json()...) may have read the stream already: waiting
    // for it would hang forever, so take what the parser left (on `req.body` unless told).
    this.parsed = 'body' in from ? from.body : (req as IncomingMessage & { body?: unknown }).body;
    const q = url.indexOf('?');
    this.method = req.method ?? 'GET';
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? '' : url.slice(q + 1);
    this.remoteAddress = req.socket.remoteAddress;
  }

  /** A getter, not a field: only OAuth's derived resource URL asks, so other requests pay nothing. */
  get urlOrigin(): string {
    return `${(this.req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${this.req.headers.host ?? 'localhost'}`;
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  readBody(limit: number): Promise<string | undefined> {
    if (this.consumed) return Promise.reject(new Error('body already read'));
    this.consumed = true;
    const req = this.req;
    const parsed = this.parsed;
    if (parsed !== undefined || req.readableEnded) {
      const text = parsed === undefined ? '' : typeof parsed === 'string' ? parsed : Buffer.isBuffer(parsed) ? parsed.toString('utf8') : JSON.stringify(parsed);
      return Promise.resolve(Buffer.byteLength(text) > limit ? undefined : text);
    }
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      req.resume(); // discard without buffering
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      // Most bodies arrive in one chunk: no array and no concatenation for those.
      let first: Buffer | undefined;
      let more: Buffer[] | undefined;
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          first = more = undefined;
          req.removeAllListeners('data');
          req.resume();
          resolve(undefined);
          return;
        }
        if (first === undefined) first = c;
        else (more ??= [first]).push(c);
      });
      req.on('end', () => {
        if (size > limit) return resolve(undefined);
        resolve(more ? Buffer.concat(more).toString('utf8') : first ? first.toString('utf8') : '');
      });
      req.on('error', reject);
    });
  }

  send(status: number, headers: HeaderMap, body?: string): void {
    const res = this.res;
    if (res.headersSent) return;
    if (body === undefined) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  }

  stream(status: number, headers: HeaderMap): StreamWriter {
    this.res.writeHead(status, headers);
    this.res.socket?.setNoDelay(true);
    return new NodeStreamWriter(this.res);
  }

  /** writeHead merges what was set here, so the core's header maps need not know. */
  setHeader(name: string, value: string): void {
    if (!this.res.headersSent) this.res.setHeader(name, value);
  }

  onAbort(listener: () => void): void {
    const res = this.res;
    // 'close' without a finished response means the client went away first.
    res.once('close', () => {
      if (!res.writableFinished) listener();
    });
  }
}

/**
 * An SSE response on a ServerResponse. What is written in the tick that opens the stream is held
 * back until the next tick, so the headers and the first events leave in one write (one syscall,
 * one TCP segment) rather than headers first; a stream that also ends in that tick (a POST
 * answered with a single event) goes out in one `res.end(body)`, chunked like bare node:http's
 * SSE answer. (Holding the head too, to send a Content-Length instead, measured no faster.) The
 * headers are never held longer than that tick: a client may be waiting for them before the
 * first event (a standalone GET stream).
 */
class NodeStreamWriter implements StreamWriter {
  private held: string | undefined = '';

  constructor(private readonly res: ServerResponse) {
    process.nextTick(() => this.flush());
  }

  private flush(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    const res = this.res;
    if (res.destroyed || res.writableEnded) return;
    if (held === '') res.flushHeaders();
    else res.write(held);
  }

  write(chunk: string): boolean {
    if (this.closed) return false;
    if (this.held !== undefined) {
      this.held += chunk;
      return true;
    }
    return this.res.write(chunk);
  }

  end(): void {
    const res = this.res;
    if (res.writableEnded) return;
    const held = this.held;
    this.held = undefined;
    if (held && !res.destroyed) res.end(held);
    else res.end();
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  onClose(listener: () => void): void {
    this.res.once('close', listener);
  }
}

/** What a framework adapter knows about a request beyond node's own objects. */
export interface NodeExchangeExtras {
  /** The URL as the application received it, when a router rewrote `req.url` (a mount path). */
  url?: string;
  /** The body a framework already parsed (an object, a string or a Buffer); default `req.body`. */
  body?: unknown;
  /** The caller, as the framework's authentication middleware established it. */
  authInfo?: AuthInfo;
}

/** Serves one node:http exchange; a failure the core did not answer becomes a JSON-RPC 500. */
export function serveNode(handler: McpHttpHandler, req: IncomingMessage, res: ServerResponse, extras?: NodeExchangeExtras): Promise<void> {
  const exchange = new NodeExchange(req, res, extras);
  return handler.handle(exchange, exchange).catch((err: unknown) => {
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }));
    }
    handler.streamable.server.onerror(err instanceof Error ? err : new Error(String(err)));
  });
}

export type NodeRequestListener = ((req: IncomingMessage, res: ServerResponse) => void) & {
  handler: McpHttpHandler;
  close(): Promise<void>;
};

/**
 * A node:http request listener serving MCP (Streamable HTTP, plus HTTP+SSE unless disabled).
 * It writes straight to ServerResponse: no Request/Response objects on the hot path.
 */
export function toNodeHandler(server: McpServer | ServerPort, options: HttpServerOptions = {}): NodeRequestListener {
  const handler = new McpHttpHandler(server, options);
  const listener = ((req: IncomingMessage, res: ServerResponse) => {
    void serveNode(handler, req, res);
  }) as NodeRequestListener;
  listener.handler = handler;
  listener.close = () => handler.close();
  return listener;
}

export interface ServeOptions extends HttpServerOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * How long a client may take to send a request's headers, in ms (node's
   * `server.headersTimeout`); a slower one gets 408 and its connection is closed. Default 20 s;
   * 0: no limit. An idle keep-alive connection is not sending a request: `keepAliveTimeout`
   * (65 s) bounds it.
   */
  headersTimeoutMs?: number;
  /**
   * How long a client may take to send a whole request, headers and body, from its first byte,
   * in ms (node's `server.requestTimeout`); a slower one gets 408 and its connection is closed.
   * Default 60 s; 0: no limit. Only receiving the request counts: a response, an SSE stream
   * included, lasts as long as it needs.
   */
  bodyTimeoutMs?: number;
  /**
   * Read and answer plain JSON POSTs to the endpoint on mcpkit's own HTTP/1.1 code, leaving every
   * other request (GET streams, DELETE, other paths, anything unusual in a request's head) to
   * node:http, which then serves that connection for good. Default true on Node (a small call
   * costs about 30 % fewer instructions), false on Bun and Deno, whose node:http is their own.
   * false: node:http serves everything.
   */
  fastFront?: boolean;
}

/**
 * Node itself, where the fast front's use of node:http's connection handling is known. Bun's and
 * Deno's node:http are other code under the same API: there node:http serves everything.
 */
function onNode(): boolean {
  return process.versions.bun === undefined && !('Deno' in globalThis);
}

/** Defaults of ServeOptions.headersTimeoutMs and bodyTimeoutMs. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;

/** node:http's server options for the request timeouts, checked (also used by the authorization server's listener). */
export function timeoutOptions(options: Pick<ServeOptions, 'headersTimeoutMs' | 'bodyTimeoutMs'>): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  for (const [name, v] of [
    ['headersTimeoutMs', headersTimeout],
    ['bodyTimeoutMs', requestTimeout],
  ] as const) {
    if (!(Number.isFinite(v) && v >= 0)) throw new RangeError(`${name} must be 0 (no limit) or more, got ${String(v)}`);
  }
  if (headersTimeout > 0 && requestTimeout > 0 && headersTimeout > requestTimeout)
    throw new RangeError(`headersTimeoutMs (${headersTimeout}) must not exceed bodyTimeoutMs (${requestTimeout}): the headers are part of the request`);
  // Node checks the timeouts on this period (default 30 s): a fraction of the shortest one, so a
  // slow client is cut close to its limit.
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 120_000);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(shortest / 4))) };
}

export interface RunningServer {
  url: string;
  port: number;
  httpServer: NodeHttpServer;
  handler: McpHttpHandler;
  close(): Promise<void>;
  /**
   * A graceful shutdown (best with the `health` option on, which also counts 2026-07-28 requests
   * in flight): drains (readiness 503, new MCP requests refused with 503, standalone
   * GET streams ended for their clients to reconnect elsewhere), lets running POSTs finish for
   * up to `graceMs`, ends the streams of those still running without their response (their
   * clients resume them with Last-Event-ID on an instance sharing the event store), then closes.
   */
  drain(graceMs: number): Promise<void>;
  /**
   * Requests running now (their response not complete), what a drain waits for; streams that
   * only wait for notifications (a GET stream, a 2026-07-28 listen) are not counted.
   */
  readonly requestsInFlight: number;
}

/** Listens on `host:port` and serves MCP at `/mcp` (and `/sse` + `/messages`). */
export async function serve(server: McpServer | ServerPort, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);
  // Bound to loopback: only loopback Host headers, which defeats DNS rebinding.
  const allowedHosts = options.allowedHosts ?? (loopback ? ['localhost', '127.0.0.1', '[::1]'] : undefined);
  const timeouts = timeoutOptions(options);
  const listener = toNodeHandler(server, { ...options, allowedHosts });
  // Slow clients (slowloris: headers or a body trickling in) are cut off; responses are not.
  const httpServer = createServer(timeouts, listener);
  // POSTs whose response is not complete: what a drain waits for (GETs are streams that never
  // finish on their own; drain ends them). Counted only with `health` on, so that a server that
  // never drains pays nothing per request; without it a drain polls the handshake-era requests.
  let posts = 0;
  let settled: (() => void) | undefined;
  const counting = options.health !== undefined && options.health !== false;
  if (counting)
    httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'POST') return;
      posts++;
      res.once('close', () => {
        posts--;
        whenSettled();
      });
    });
  // Longer than the idle timeout of common load balancers (60 s), so that they close first.
  httpServer.keepAliveTimeout = 65_000;
  // Attached last: a 'request' listener added after it sends every connection to node:http.
  const front = !(options.fastFront ?? onNode())
    ? undefined
    : new H1Front(httpServer, listener.handler, {
        headersTimeout: timeouts.headersTimeout,
        requestTimeout: timeouts.requestTimeout,
        checkInterval: timeouts.connectionsCheckingInterval,
        maxBodyBytes: options.maxBodyBytes ?? DEFAULT_LIMITS.maxMessageSize,
        onAnswered: counting ? whenSettled : undefined,
      });
  const running = () => posts + (front?.busy ?? 0);
  /** A drain waiting for the running requests goes on once none is left. */
  function whenSettled(): void {
    if (running() === 0) settled?.();
  }
  const busy = () => (counting ? running() > 0 : listener.handler.streamable.requestsInFlight > 0);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 3000, host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${listener.handler.streamable.endpoint}`,
    port,
    httpServer,
    handler: listener.handler,
    close,
    get requestsInFlight() {
      const streamable = listener.handler.streamable;
      return counting ? Math.max(0, running() - streamable.listens.size) : streamable.requestsInFlight;
    },
    async drain(graceMs: number) {
      listener.handler.drain();
      if (busy()) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        let poll: ReturnType<typeof setInterval> | undefined;
        await new Promise<void>((resolve) => {
          settled = resolve;
          timer = setTimeout(resolve, Math.max(0, graceMs));
          if (!counting) poll = setInterval(() => busy() || resolve(), 20);
        });
        clearTimeout(timer);
        clearInterval(poll);
      }
      listener.handler.hangUp();
      await close();
    },
  };
  async function close(): Promise<void> {
    await listener.close();
    front?.close();
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  }
}
