import type { ServerPort } from '../../server/server.js';
import type { NextFunction, Request, Response } from 'express';
import type { AuthInfo } from '../../engine/transport.js';
import type { McpServer } from '../../server/mcp-server.js';
import { McpHttpHandler, type HttpServerOptions } from '../http/router.js';
import { serveNode } from '../node.js';

export interface ExpressMcpOptions extends HttpServerOptions {
  /**
   * The caller as your own authentication middleware established it, handed to tools as
   * `ctx.authInfo`. Default: `req.auth` (the convention of the official SDK's bearer middleware).
   */
  authInfo?: (req: Request) => AuthInfo | undefined;
}

export type ExpressMcpHandler = ((req: Request, res: Response, next: NextFunction) => void) & {
  handler: McpHttpHandler;
  close(): Promise<void>;
};

const fromReqAuth = (req: Request): AuthInfo | undefined => (req as Request & { auth?: AuthInfo }).auth;

/**
 * Express 5 middleware serving MCP: `app.use(toExpressHandler(server))`. Requests for the MCP
 * paths (the endpoint, HTTP+SSE, OAuth metadata, the Server Card) are answered; every other one
 * goes on to the next route. A body `express.json()` (or `text()`, `raw()`) already parsed is
 * used as it is. Paths are the application's (`req.originalUrl`), whatever router it is mounted on.
 */
export function toExpressHandler(server: McpServer | ServerPort, options: ExpressMcpOptions = {}): ExpressMcpHandler {
  const { authInfo = fromReqAuth, ...http } = options;
  const handler = new McpHttpHandler(server, http);
  const fn = ((req: Request, res: Response, next: NextFunction) => {
    const url = req.originalUrl;
    const q = url.indexOf('?');
    if (!handler.serves(q < 0 ? url : url.slice(0, q))) return next();
    void serveNode(handler, req, res, { url, authInfo: authInfo(req) });
  }) as ExpressMcpHandler;
  fn.handler = handler;
  fn.close = () => handler.close();
  return fn;
}
