import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '../../server/mcp-server.js';
import type { Server } from '../../server/server.js';
import type { HeaderMap, HttpRequestView, HttpResponder, StreamWriter } from './server/exchange.js';
import { McpHttpHandler, type HttpServerOptions } from './server/router.js';
import { isLoopbackHost } from './server/security.js';

function view(req: IncomingMessage): HttpRequestView {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  let consumed = false;
  return {
    method: req.method ?? 'GET',
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? '' : url.slice(q + 1),
    header: (name) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    remoteAddress: req.socket.remoteAddress,
    readBody(limit) {
      if (consumed) return Promise.reject(new Error('body already read'));
      consumed = true;
      // A framework body parser (express.json()...) may have read the stream already: waiting
      // for it would hang forever, so take what the parser left on `req.body`.
      const parsed = (req as IncomingMessage & { body?: unknown }).body;
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
        const chunks: Buffer[] = [];
        let size = 0;
        req.on('data', (c: Buffer) => {
          size += c.length;
          if (size > limit) {
            chunks.length = 0;
            req.removeAllListeners('data');
            req.resume();
            resolve(undefined);
            return;
          }
          chunks.push(c);
        });
        req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks).toString('utf8')));
        req.on('error', reject);
      });
    },
  };
}

function responder(res: ServerResponse): HttpResponder {
  return {
    send(status: number, headers: HeaderMap, body?: string) {
      if (res.headersSent) return;
      if (body === undefined) {
        res.writeHead(status, headers);
        res.end();
        return;
      }
      res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    },
    stream(status: number, headers: HeaderMap): StreamWriter {
      res.writeHead(status, headers);
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      return {
        write: (chunk) => !res.destroyed && !res.writableEnded && res.write(chunk),
        end: () => {
          if (!res.writableEnded) res.end();
        },
        get closed() {
          return res.destroyed || res.writableEnded;
        },
        onClose: (listener) => {
          res.once('close', listener);
        },
      };
    },
    onAbort(listener: () => void) {
      // 'close' without a finished response means the client went away first.
      res.once('close', () => {
        if (!res.writableFinished) listener();
      });
    },
  };
}

export type NodeRequestListener = ((req: IncomingMessage, res: ServerResponse) => void) & {
  handler: McpHttpHandler;
  close(): Promise<void>;
};

/**
 * A node:http request listener serving MCP (Streamable HTTP, plus HTTP+SSE unless disabled).
 * It writes straight to ServerResponse: no Request/Response objects on the hot path.
 */
export function toNodeHandler(server: McpServer | Server, options: HttpServerOptions = {}): NodeRequestListener {
  const handler = new McpHttpHandler(server, options);
  const listener = ((req: IncomingMessage, res: ServerResponse) => {
    handler.handle(view(req), responder(res)).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }));
      }
      handler.streamable.server.onerror(err instanceof Error ? err : new Error(String(err)));
    });
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
}

export interface RunningServer {
  url: string;
  port: number;
  httpServer: NodeHttpServer;
  handler: McpHttpHandler;
  close(): Promise<void>;
}

/** Listens on `host:port` and serves MCP at `/mcp` (and `/sse` + `/messages`). */
export async function serve(server: McpServer | Server, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);
  // Bound to loopback: only loopback Host headers, which defeats DNS rebinding.
  const allowedHosts = options.allowedHosts ?? (loopback ? ['localhost', '127.0.0.1', '[::1]'] : undefined);
  const listener = toNodeHandler(server, { ...options, allowedHosts });
  const httpServer = createServer(listener);
  // Long-lived SSE streams must not be cut by Node's default 5-minute request timeout.
  httpServer.requestTimeout = 0;
  httpServer.keepAliveTimeout = 65_000;
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
    async close() {
      await listener.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
