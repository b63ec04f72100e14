/**
 * The fast front of `serve()`: MCP's hot request, a POST of JSON to the endpoint, read and
 * answered on the socket by mcpkit itself, and everything else left to node:http.
 *
 * Why: node:http's per-request machinery (the parser's callbacks, IncomingMessage and
 * ServerResponse streams, their events) costs more instructions than the MCP work of a small
 * tools/call, and a gateway pays it at its front and its backend on every hop
 * (docs/performance.md). Here a request is one head scan, one body string and one write.
 *
 * How it stays safe: each new connection starts here. A request is served here only when its
 * head is plainly one of the narrow kind ./head.ts reads (anything else, even legitimate, is
 * not); the first one that is not hands the connection, the bytes read so far put back, to
 * node:http's own connection handling for the rest of its life, so node:http parses it from its
 * first unserved byte and answers malformed requests its own way. Slow clients meet the same
 * limits as node:http's (the headers and request timeouts from ServeOptions, the keep-alive
 * timeout of the http.Server), checked by one timer for all connections. A request is served
 * only when its body is all in, so the core never waits on a slow body.
 */
import { EventEmitter } from 'node:events';
import type { Server as NodeHttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { McpHttpHandler } from '../http/router.js';
import { H1Connection, Phase, type ConnectionHost } from './connection.js';
import { keepAliveEnding, type H1Exchange } from './exchange.js';
import type { HeadLimits } from './head.js';

export interface H1FrontOptions {
  /** ms a request's head may take from its first byte; 0: no limit. */
  headersTimeout: number;
  /** ms a whole request may take from its first byte; 0: no limit. */
  requestTimeout: number;
  /** How often the timeouts are checked, in ms. */
  checkInterval: number;
  /** Largest body served here (the core's limit); a larger one goes to node:http. */
  maxBodyBytes: number;
  /** Called each time a request served here is answered or abandoned. */
  onAnswered?: () => void;
}

/** Heads past this go to node:http (whose own limit is 16 KB): most requests' are a few hundred bytes. */
const MAX_HEAD_BYTES = 8 * 1024;

type ConnectionListener = (socket: Socket) => void;

export class H1Front implements ConnectionHost {
  readonly limits: HeadLimits;
  private readonly connections = new Set<H1Connection>();
  private readonly nodeListeners: ConnectionListener[];
  /** node:http's 'request' listeners when the front was attached (see `watched`). */
  private readonly requestListeners: readonly unknown[];
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  /** Requests served here and not answered yet. */
  busy = 0;
  /** The clock of the timeouts, in ms. */
  readonly now = Date.now;

  constructor(
    private readonly http: NodeHttpServer,
    private readonly handler: McpHttpHandler,
    private readonly o: H1FrontOptions,
  ) {
    this.limits = { endpoint: handler.streamable.endpoint, maxHeadBytes: MAX_HEAD_BYTES, maxBodyBytes: o.maxBodyBytes };
    // node:http serves a connection from its 'connection' listener (emitting 'connection' is the
    // documented way to hand it a socket); it is called here only for connections handed off.
    this.nodeListeners = http.listeners('connection') as ConnectionListener[];
    http.removeAllListeners('connection');
    http.on('connection', this.accept);
    this.requestListeners = http.listeners('request');
  }

  /**
   * Whether someone watches node:http's requests: a 'request' listener added or replaced since
   * the front was attached (a tracer, an application's own), or `emit` wrapped (HTTP
   * instrumentation such as OpenTelemetry's patches it). They are owed every request, so
   * node:http serves all connections then.
   */
  private watched(): boolean {
    const http = this.http;
    if (http.emit !== EventEmitter.prototype.emit) return true;
    const now = http.listeners('request');
    return now.length !== this.requestListeners.length || now.some((l, i) => l !== this.requestListeners[i]);
  }

  private readonly accept = (socket: Socket): void => {
    if (this.closed || this.watched()) return this.handOff(socket);
    this.connections.add(new H1Connection(socket, this, keepAliveEnding(this.http.keepAliveTimeout)));
    this.timer ??= setInterval(this.sweep, this.o.checkInterval).unref();
  };

  handOff(socket: Socket): void {
    for (const listener of this.nodeListeners) listener.call(this.http, socket);
  }

  serve(exchange: H1Exchange): void {
    this.busy++;
    this.handler.handle(exchange, exchange).catch((err: unknown) => {
      if (!exchange.answered) exchange.send(500, { 'content-type': 'application/json' }, INTERNAL_ERROR);
      this.handler.streamable.server.onerror(err instanceof Error ? err : new Error(String(err)));
    });
  }

  answered(): void {
    this.busy--;
    this.o.onAnswered?.();
  }

  gone(connection: H1Connection): void {
    this.connections.delete(connection);
    if (this.connections.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Cuts off requests slower than the timeouts, and idle connections past the keep-alive timeout. */
  private readonly sweep = (): void => {
    const now = this.now();
    const { headersTimeout, requestTimeout } = this.o;
    const keepAlive = this.http.keepAliveTimeout;
    for (const c of this.connections) {
      const age = now - c.since;
      if (c.phase === Phase.Idle) {
        if (keepAlive > 0 && age > keepAlive) c.destroy();
      } else if (c.phase !== Phase.Busy) {
        if ((requestTimeout > 0 && age > requestTimeout) || (c.phase === Phase.Head && headersTimeout > 0 && age > headersTimeout)) c.timeOut();
      }
    }
  };

  /** Ends every connection the front holds; new ones go to node:http (which is closing too). */
  close(): void {
    this.closed = true;
    for (const c of this.connections) c.destroy();
    this.connections.clear();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const INTERNAL_ERROR = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
