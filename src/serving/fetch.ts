import type { ServerPort } from '../server/server.js';
import { utf8Bytes } from '../protocol/encoding.js';
import type { AuthInfo } from '../engine/transport.js';
import type { McpServer } from '../server/mcp-server.js';
import type { HeaderMap, HttpRequestView, HttpResponder, StreamWriter } from './http/exchange.js';
import { readCapped } from './http/read-capped.js';
import { McpHttpHandler, type HttpServerOptions } from './http/router.js';

/** What the host knows about a request beyond the Request itself. */
export interface FetchRequestInfo {
  remoteAddress?: string;
  /** The caller, as a framework's authentication middleware established it (Hono's `c.get('auth')`). */
  authInfo?: AuthInfo;
  /** Reads the body when a middleware already consumed the Request's stream (Hono's cached `c.req.text()`). */
  readBody?: () => Promise<string>;
}

export type FetchHandler = ((request: Request, info?: FetchRequestInfo) => Promise<Response>) & {
  handler: McpHttpHandler;
  close(): Promise<void>;
};

/**
 * A web-standard `fetch` handler serving MCP, for Bun, Deno, Cloudflare Workers, Hono and any
 * runtime with Request/Response: `export default { fetch: toFetchHandler(server) }`.
 */
export function toFetchHandler(server: McpServer | ServerPort, options: HttpServerOptions = {}): FetchHandler {
  const handler = new McpHttpHandler(server, options);
  const encoder = new TextEncoder();
  const fn = (async (request: Request, info?: FetchRequestInfo) => {
    const url = new URL(request.url);
    const req: HttpRequestView = {
      method: request.method,
      path: url.pathname,
      query: url.search.slice(1),
      header: (name) => request.headers.get(name) ?? undefined,
      remoteAddress: info?.remoteAddress,
      get urlOrigin() {
        return url.origin;
      },
      authInfo: info?.authInfo,
      readBody: (limit) =>
        info?.readBody ? info.readBody().then((text) => (utf8Bytes(text).byteLength > limit ? undefined : text)) : readCapped(request, limit),
    };
    return new Promise<Response>((resolve, reject) => {
      let extra: HeaderMap | undefined;
      const res: HttpResponder = {
        onAbort(listener: () => void) {
          request.signal?.addEventListener('abort', listener, { once: true });
        },
        setHeader(name: string, value: string) {
          (extra ??= {})[name] = value;
        },
        send(status: number, headers: HeaderMap, body?: string) {
          if (extra) headers = { ...extra, ...headers };
          resolve(new Response(status === 202 || status === 204 ? null : (body ?? null), { status, headers }));
        },
        stream(status: number, headers: HeaderMap): StreamWriter {
          if (extra) headers = { ...extra, ...headers };
          let controller!: ReadableStreamDefaultController<Uint8Array>;
          let closed = false;
          const listeners: Array<() => void> = [];
          const markClosed = () => {
            if (closed) return;
            closed = true;
            for (const l of listeners.splice(0)) l();
          };
          const body = new ReadableStream<Uint8Array>({
            start: (c) => {
              controller = c;
            },
            cancel: markClosed,
          });
          request.signal?.addEventListener('abort', markClosed, { once: true });
          resolve(new Response(body, { status, headers }));
          return {
            write(chunk) {
              if (closed) return false;
              controller.enqueue(encoder.encode(chunk));
              return true;
            },
            end() {
              if (closed) return;
              controller.close();
              markClosed();
            },
            get closed() {
              return closed;
            },
            onClose(listener) {
              if (closed) listener();
              else listeners.push(listener);
            },
          };
        },
      };
      handler.handle(req, res).catch(reject);
    });
  }) as FetchHandler;
  fn.handler = handler;
  fn.close = () => handler.close();
  return fn;
}
