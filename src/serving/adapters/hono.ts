import type { ServerPort } from '../../server/server.js';
import type { Context, MiddlewareHandler } from 'hono';
import type { AuthInfo } from '../../engine/transport.js';
import type { McpServer } from '../../server/mcp-server.js';
import { toFetchHandler } from '../fetch.js';
import type { McpHttpHandler, HttpServerOptions } from '../http/router.js';

export interface HonoMcpOptions extends HttpServerOptions {
  /**
   * The caller as a middleware in front established it, handed to tools as `ctx.authInfo`.
   * Default: the context variable `auth` (`c.set('auth', info)`).
   */
  authInfo?: (c: Context) => AuthInfo | undefined;
}

export type HonoMcpMiddleware = MiddlewareHandler & {
  handler: McpHttpHandler;
  close(): Promise<void>;
};

const fromVariable = (c: Context): AuthInfo | undefined => c.get('auth') as AuthInfo | undefined;

/** Node's socket address under @hono/node-server, which puts the IncomingMessage in `c.env`. */
function nodeRemoteAddress(c: Context): string | undefined {
  return (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
}

/**
 * Hono middleware serving MCP over the fetch handler: `app.use(toHonoMiddleware(server))`. The MCP
 * paths are answered; anything else goes to `next()`. Runs wherever Hono does (Node, Bun, Deno,
 * Workers). A body a middleware already read (`c.req.json()`, a validator) is taken from Hono's
 * cache.
 */
export function toHonoMiddleware(server: McpServer | ServerPort, options: HonoMcpOptions = {}): HonoMcpMiddleware {
  const { authInfo = fromVariable, ...http } = options;
  const fetchHandler = toFetchHandler(server, http);
  const handler = fetchHandler.handler;
  const mw = (async (c: Context, next: () => Promise<void>) => {
    if (!handler.serves(c.req.path)) return next();
    const raw = c.req.raw;
    const response = await fetchHandler(raw, {
      authInfo: authInfo(c),
      remoteAddress: nodeRemoteAddress(c),
      readBody: raw.bodyUsed ? () => c.req.text() : undefined,
    });
    // Headers the app's middleware set before (`c.header`: a request id, CORS, security headers)
    // belong on MCP's answers too, but Hono adds them only to responses made through `c`; MCP's
    // own headers win. The body (an SSE stream too) is passed on, not copied.
    return c.newResponse(response.body, response);
  }) as HonoMcpMiddleware;
  mw.handler = handler;
  mw.close = () => handler.close();
  return mw;
}
