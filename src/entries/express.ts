// mcpkit/express: MCP as Express 5 middleware (express is an optional peer dependency; only its
// types are imported).

export { toExpressHandler, type ExpressMcpOptions, type ExpressMcpHandler } from '../serving/adapters/express.js';
export type { HttpServerOptions } from '../serving/http/router.js';
export type { AuthInfo } from '../engine/transport.js';
