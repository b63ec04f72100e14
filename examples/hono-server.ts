// MCP as Hono middleware, served here by @hono/node-server (the same app runs on Bun, Deno and
// Workers with their own `serve`):
//   node --import tsx examples/hono-server.ts [port]
// Set MCP_TOKEN to require `Authorization: Bearer $MCP_TOKEN` (checked by a Hono middleware in
// front; the tool sees who called as ctx.authInfo). Or set MCP_API_KEYS (comma-separated) to have
// mcpkit's API-key guard check them instead, behind the app's own middleware (here, a request id
// on every answer, refusals included).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { z } from 'zod';
import { McpServer } from '../src/entries/server.js';
import { toHonoMiddleware, type AuthInfo } from '../src/entries/hono.js';
import { apiKeyGuard } from '../src/entries/http.js';

const server = new McpServer({ name: 'example-hono', version: '1.0.0' });
server.tool('greet', { description: 'Greets someone by name', input: { name: z.string() } }, ({ name }, ctx) => {
  const caller = ctx.authInfo?.principal;
  return caller ? `Hello, ${name}! (asked by ${caller})` : `Hello, ${name}!`;
});

const app = new Hono<{ Variables: { auth: AuthInfo } }>();
app.use(async (c, next) => {
  c.header('x-request-id', crypto.randomUUID());
  await next();
});
const token = process.env['MCP_TOKEN'];
if (token) {
  app.use('/mcp', async (c, next) => {
    if (c.req.header('authorization') !== `Bearer ${token}`) return c.json({ error: 'a bearer token is required' }, 401);
    c.set('auth', { principal: 'token-holder', token });
    await next();
  });
}
const keys = process.env['MCP_API_KEYS']?.split(',');
const mcp = toHonoMiddleware(server, keys ? { authenticate: apiKeyGuard({ keys }) } : {});
app.use(mcp);
app.get('/health', (c) => c.json({ ok: true }));

const listener = serve({ fetch: app.fetch, port: Number(process.argv[2] ?? 3000), hostname: '127.0.0.1' }, (info) => {
  process.stderr.write(`listening on http://127.0.0.1:${info.port}/mcp\n`);
});
process.on('SIGTERM', () => {
  void mcp.close().then(() => listener.close());
});
