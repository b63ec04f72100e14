import type { ServerPort } from '../../server/server.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthInfo } from '../../engine/transport.js';
import type { McpServer } from '../../server/mcp-server.js';
import { McpHttpHandler, type HttpServerOptions } from '../http/router.js';
import { serveNode } from '../node.js';

export interface FastifyMcpOptions extends HttpServerOptions {
  /**
   * The caller as your own hook (`onRequest`, `preHandler`) established it, handed to tools as
   * `ctx.authInfo`. Default: `request.auth`.
   */
  authInfo?: (request: FastifyRequest) => AuthInfo | undefined;
}

export type FastifyMcpPlugin = ((fastify: FastifyInstance) => Promise<void>) & {
  handler: McpHttpHandler;
  close(): Promise<void>;
};

const fromRequestAuth = (request: FastifyRequest): AuthInfo | undefined => (request as FastifyRequest & { auth?: AuthInfo }).auth;

// HEAD comes with GET (Fastify's exposeHeadRoutes).
const METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS'];

/**
 * A Fastify 5 plugin serving MCP: `app.register(toFastifyPlugin(server))`. It adds a route per MCP
 * path (the endpoint, HTTP+SSE, OAuth metadata, the Server Card), in its own encapsulated
 * context: there every body is kept as text for the MCP core to parse (a malformed one is a
 * JSON-RPC -32700, not Fastify's error), up to `maxBodyBytes`. The application's hooks run first;
 * the response is then written by mcpkit (`reply.hijack()`). Closing Fastify closes the handler first.
 */
export function toFastifyPlugin(server: McpServer | ServerPort, options: FastifyMcpOptions = {}): FastifyMcpPlugin {
  const { authInfo = fromRequestAuth, ...http } = options;
  const handler = new McpHttpHandler(server, http);
  // A byte over the core's limit, so that the core answers a body just too large its way (a
  // JSON-RPC 413); a far larger one gets Fastify's own 413 without being buffered whole.
  const bodyLimit = (http.maxBodyBytes ?? 4 * 1024 * 1024) + 1;
  const route = (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // Headers the app's hooks set (`reply.header` in onRequest: a request id, CORS, security
    // headers) are sent by Fastify only for replies it writes; mcpkit writes this one.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    return serveNode(handler, request.raw, reply.raw, { url: request.url, body: request.body, authInfo: authInfo(request) });
  };
  const plugin = (async (fastify: FastifyInstance) => {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_request, body, done) => done(null, body));
    for (const url of handler.paths()) fastify.route({ method: METHODS, url, bodyLimit, handler: route });
    // preClose: open event streams end before Fastify waits for its connections to finish.
    fastify.addHook('preClose', () => handler.close());
  }) as FastifyMcpPlugin;
  plugin.handler = handler;
  plugin.close = () => handler.close();
  return plugin;
}
