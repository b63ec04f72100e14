// The server every runtime hosts in `npm run test:runtimes`: built from mcpkit's built entries
// (dist/, what the package ships), served by toFetchHandler and nothing else, so each host is a
// few lines of its runtime's own server API. Plain JavaScript so that Bun, Deno, workerd (through
// esbuild) and Node load the same file unchanged.
//   /mcp        stateful: handshake-era sessions, and the stateless 2026-07-28 era
//   /stateless  stateful: false, the handshake era without sessions
//   /hono/...   the same two, served through a Hono app by mcpkit/hono (toHonoMiddleware)
import { Hono } from 'hono';
import { z } from 'zod';
import { toHonoMiddleware } from '../../dist/entries/hono.js';
import { toFetchHandler } from '../../dist/entries/http.js';
import { McpServer } from '../../dist/entries/server.js';

export function buildServer(options) {
  const server = new McpServer({ name: 'runtime-matrix', version: '1.0.0', ...options });
  server.tool('echo', { description: 'Echoes', input: { text: z.string() } }, ({ text }) => text);
  server.tool('progress', { description: 'Counts, reporting progress', input: { steps: z.number().int().min(1).max(10) } }, async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) await ctx.progress(i, steps, `step ${i}`);
    return `did ${steps}`;
  });
  // A plain JSON Schema is validated by ajv, which compiles validators to code at run time: where
  // the runtime forbids that (workerd inside a request), registration throws once ajv is loaded
  // (before, the call fails). The rest of the server stays up either way, so the other checks
  // still measure.
  try {
    server.tool(
      'sum',
      {
        description: 'Adds',
        input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      },
      ({ a, b }) => String(a + b),
    );
  } catch (e) {
    console.warn(`the sum tool is not registered: ${e.message}`);
  }
  server.tool('ask', { description: 'Asks for a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return answer.action === 'accept' ? `hello ${answer.content.name}` : `no name (${answer.action})`;
  });
  return server;
}

/**
 * The fetch handler for both endpoints, and for both under /hono (createHonoApp); `serverOptions`
 * go to every McpServer. The servers are built now, the handlers on first call: workerd generates
 * code (ajv's validators) only while a module loads, so a Worker calls this at its top level.
 */
export function createApp(serverOptions = {}) {
  const servers = { mcp: buildServer(serverOptions), stateless: buildServer(serverOptions) };
  const hono = createHonoApp(serverOptions);
  let handlers;
  const app = (request, info) => {
    handlers ??= {
      mcp: toFetchHandler(servers.mcp),
      stateless: toFetchHandler(servers.stateless, { stateful: false, endpoint: '/stateless' }),
    };
    const path = new URL(request.url).pathname;
    if (path.startsWith('/hono/')) return hono(request);
    return (path === '/stateless' ? handlers.stateless : handlers.mcp)(request, info);
  };
  app.close = async () => {
    await hono.close();
    if (handlers) await Promise.all([handlers.mcp.close(), handlers.stateless.close()]);
  };
  return app;
}

/**
 * /hono/mcp and /hono/stateless: a Hono app whose own middleware stamps every answer, then
 * mcpkit/hono's middleware for each endpoint, then Hono's 404. `stateful: false` serves
 * /hono/mcp without sessions too (a Worker's top level, where sessions cannot live).
 */
export function createHonoApp(serverOptions = {}, { stateful = true } = {}) {
  const servers = { mcp: buildServer(serverOptions), stateless: buildServer(serverOptions) };
  let hono;
  let middleware = [];
  const app = (request) => {
    if (!hono) {
      middleware = [
        toHonoMiddleware(servers.mcp, { endpoint: '/hono/mcp', stateful }),
        toHonoMiddleware(servers.stateless, { endpoint: '/hono/stateless', stateful: false }),
      ];
      hono = new Hono();
      hono.use(async (c, next) => {
        c.header('x-served-by', 'hono');
        await next();
      });
      for (const m of middleware) hono.use(m);
    }
    return hono.fetch(request);
  };
  app.close = () => Promise.all(middleware.map((m) => m.close()));
  return app;
}
