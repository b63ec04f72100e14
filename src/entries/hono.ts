// mcpkit/hono: MCP as Hono middleware over the fetch handler (hono is an optional peer
// dependency; only its types are imported). No Node built-ins: runs wherever Hono does.

export { toHonoMiddleware, type HonoMcpOptions, type HonoMcpMiddleware } from '../serving/adapters/hono.js';
export type { HttpServerOptions } from '../serving/http/router.js';
export type { AuthInfo } from '../engine/transport.js';
