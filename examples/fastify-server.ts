// MCP as a Fastify 5 plugin, beside the app's own routes and after its own hooks:
//   node --import tsx examples/fastify-server.ts [port]
// Set MCP_TOKEN to require `Authorization: Bearer $MCP_TOKEN` (checked by an onRequest hook;
// the tool sees who called as ctx.authInfo). Or set MCP_API_KEYS (comma-separated) to have mcpkit's
// API-key guard check them instead, behind the app's own hooks (here, a request id on every
// answer, refusals included).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { z } from 'zod';
import { McpServer } from '../src/entries/server.js';
import { toFastifyPlugin, type AuthInfo } from '../src/entries/fastify.js';
import { apiKeyGuard } from '../src/entries/http.js';

const server = new McpServer({ name: 'example-fastify', version: '1.0.0' });
server.tool('greet', { description: 'Greets someone by name', input: { name: z.string() } }, ({ name }, ctx) => {
  const caller = ctx.authInfo?.principal;
  return caller ? `Hello, ${name}! (asked by ${caller})` : `Hello, ${name}!`;
});

// forceCloseConnections: close() does not wait for clients' kept-alive sockets to time out.
const app = Fastify({ forceCloseConnections: true });
app.addHook('onRequest', async (_request, reply) => {
  reply.header('x-request-id', randomUUID());
});
const token = process.env['MCP_TOKEN'];
if (token) {
  app.decorateRequest('auth', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/mcp')) return;
    if (request.headers.authorization !== `Bearer ${token}`) return reply.code(401).send({ error: 'a bearer token is required' });
    (request as typeof request & { auth?: AuthInfo }).auth = { principal: 'token-holder', token };
  });
}
const keys = process.env['MCP_API_KEYS']?.split(',');
await app.register(toFastifyPlugin(server, keys ? { authenticate: apiKeyGuard({ keys }) } : {}));
app.get('/health', async () => ({ ok: true }));

const address = await app.listen({ port: Number(process.argv[2] ?? 3000), host: '127.0.0.1' });
process.stderr.write(`listening on ${address}/mcp\n`);
process.on('SIGTERM', () => {
  void app.close();
});
