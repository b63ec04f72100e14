// mcpkit/fastify: MCP as a Fastify 5 plugin (fastify is an optional peer dependency; only its
// types are imported).

export { toFastifyPlugin, type FastifyMcpOptions, type FastifyMcpPlugin } from '../serving/adapters/fastify.js';
export type { HttpServerOptions } from '../serving/http/router.js';
export type { AuthInfo } from '../engine/transport.js';
