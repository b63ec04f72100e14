// mcpkit/express: MCP as Express 5 middleware (express is an optional peer dependency; only its
// types are imported).

export { toExpressHandler, type ExpressMcpOptions, type ExpressMcpHandler } from '../hosting/adapters/express.js';
export type { HttpServerOptions } from '../hosting/http/router.js';
export type { AuthInfo } from '../engine/transport.js';
