// MCP inside an Express 5 app, beside its own routes and behind its own middleware:
//   node --import tsx examples/express-server.ts [port]
// Set MCP_TOKEN to require `Authorization: Bearer $MCP_TOKEN` (checked by an Express middleware;
// the tool sees who called as ctx.authInfo). Or set MCP_API_KEYS (comma-separated) to have mcpkit's
// API-key guard check them instead, behind the app's own middleware (here, a request id on every
// answer, refusals included).
import { randomUUID } from 'node:crypto';
import express from 'express';
import { z } from 'zod';
import { McpServer } from '../src/entries/server.js';
import { toExpressHandler, type AuthInfo } from '../src/entries/express.js';
import { apiKeyGuard } from '../src/entries/http.js';

const server = new McpServer({ name: 'example-express', version: '1.0.0' });
server.tool('greet', { description: 'Greets someone by name', input: { name: z.string() } }, ({ name }, ctx) => {
  const caller = ctx.authInfo?.principal;
  return caller ? `Hello, ${name}! (asked by ${caller})` : `Hello, ${name}!`;
});

const app = express();
app.use((_req, res, next) => {
  res.setHeader('x-request-id', randomUUID());
  next();
});
app.use(express.json()); // MCP takes the parsed body as it is
const token = process.env['MCP_TOKEN'];
if (token) {
  app.use('/mcp', (req, res, next) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.status(401).json({ error: 'a bearer token is required' });
      return;
    }
    (req as typeof req & { auth?: AuthInfo }).auth = { principal: 'token-holder', token };
    next();
  });
}
const keys = process.env['MCP_API_KEYS']?.split(',');
const mcp = toExpressHandler(server, keys ? { authenticate: apiKeyGuard({ keys }) } : {});
app.use(mcp);
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});

const listener = app.listen(Number(process.argv[2] ?? 3000), '127.0.0.1', () => {
  const address = listener.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`);
});
process.on('SIGTERM', () => {
  void mcp.close().then(() => {
    listener.closeAllConnections();
    listener.close();
  });
});
