// MCP as Hono middleware, served here by @hono/node-server (the same app runs on Bun, Deno and
// Workers with their own `serve`):
//   node --import tsx examples/hono-server.ts [port]
// Set MCP_TOKEN to require `Authorization: Bearer $MCP_TOKEN` (checked by a Hono middleware in
// front; the tool sees who called as ctx.authInfo).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { z } from 'zod';
import { McpServer } from '../src/entries/server.js';
import { toHonoMiddleware, type AuthInfo } from '../src/entries/hono.js';

const server = new McpServer({ name: 'example-hono', version: '1.0.0' });
server.tool('greet', { description: 'Greets someone by name', input: { name: z.string() } }, ({ name }, ctx) => {
  const caller = ctx.authInfo?.principal;
  return caller ? `Hello, ${name}! (asked by ${caller})` : `Hello, ${name}!`;
});

const app = new Hono<{ Variables: { auth: AuthInfo } }>();
const token = process.env['MCP_TOKEN'];
if (token) {
  app.use('/mcp', async (c, next) => {
    if (c.req.header('authorization') !== `Bearer ${token}`) return c.json({ error: 'a bearer token is required' }, 401);
    c.set('auth', { principal: 'token-holder', token });
    await next();
  });
}
const mcp = toHonoMiddleware(server);
app.use(mcp);
app.get('/health', (c) => c.json({ ok: true }));

const listener = serve({ fetch: app.fetch, port: Number(process.argv[2] ?? 3000), hostname: '127.0.0.1' }, (info) => {
  process.stderr.write(`listening on http://127.0.0.1:${info.port}/mcp\n`);
});
process.on('SIGTERM', () => {
  void mcp.close().then(() => listener.close());
});
