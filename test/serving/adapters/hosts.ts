// Express, Hono and Fastify applications hosting mcpkit through its adapters, each with a body
// parser or body-reading middleware in front, an optional bearer-token middleware of the
// framework's own, and a route of the application beside MCP (not a test file itself).
import type { Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Hono } from 'hono';
import { serve as honoServe } from '@hono/node-server';
import Fastify from 'fastify';
import type { AuthInfo } from '../../../src/engine/transport.js';
import type { McpServer } from '../../../src/server/mcp-server.js';
import type { HttpServerOptions, McpHttpHandler } from '../../../src/serving/http/router.js';
import { toExpressHandler } from '../../../src/serving/adapters/express.js';
import { toHonoMiddleware } from '../../../src/serving/adapters/hono.js';
import { toFastifyPlugin } from '../../../src/serving/adapters/fastify.js';

export type Framework = 'express' | 'hono' | 'fastify';
export const FRAMEWORKS: Framework[] = ['express', 'hono', 'fastify'];

export interface Hosted {
  url: string;
  base: string;
  handler: McpHttpHandler;
  close(): Promise<void>;
}

export interface HostOptions {
  /** The framework's own middleware accepts this bearer token (and only it) as `alice`. */
  bearer?: string;
}

/** The caller a valid `Authorization: Bearer <token>` stands for; undefined refuses. */
function bearerAuth(header: string | undefined, token: string): AuthInfo | undefined {
  const m = /^Bearer (\S+)$/.exec(header ?? '');
  return m?.[1] === token ? { principal: 'alice', token, scopes: ['mcp'], clientId: 'framework-middleware' } : undefined;
}

const REFUSED = { error: 'unauthorized', by: 'framework middleware' };

function listening(server: NodeServer): Promise<number> {
  return new Promise((resolve, reject) => {
    if (server.listening) return resolve((server.address() as AddressInfo).port);
    server.once('error', reject);
    server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });
}

async function closeNode(server: NodeServer): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function hosted(port: number, handler: McpHttpHandler, close: () => Promise<void>): Hosted {
  const base = `http://127.0.0.1:${port}`;
  return { base, url: `${base}${handler.streamable.endpoint}`, handler, close };
}

async function hostExpress(mcp: McpServer, options: HttpServerOptions, host: HostOptions): Promise<Hosted> {
  const app = express();
  // A body parser in front of everything, as most Express apps have: MCP gets the parsed body.
  app.use(express.json());
  if (host.bearer !== undefined) {
    const token = host.bearer;
    app.use((req, res, next) => {
      const auth = bearerAuth(req.headers.authorization, token);
      if (!auth) {
        res.status(401).json(REFUSED);
        return;
      }
      (req as typeof req & { auth?: AuthInfo }).auth = auth;
      next();
    });
  }
  const mw = toExpressHandler(mcp, options);
  app.use(mw);
  app.get('/health', (_req, res) => {
    res.send('express ok');
  });
  const server = app.listen(0, '127.0.0.1');
  const port = await listening(server);
  return hosted(port, mw.handler, async () => {
    await mw.close();
    await closeNode(server);
  });
}

async function hostHono(mcp: McpServer, options: HttpServerOptions, host: HostOptions): Promise<Hosted> {
  const app = new Hono<{ Variables: { auth: AuthInfo } }>();
  // A middleware that reads the JSON body before MCP does (a logger, a validator).
  app.use(async (c, next) => {
    if (c.req.method === 'POST' && c.req.header('content-type')?.includes('json')) await c.req.json().catch(() => undefined);
    await next();
  });
  if (host.bearer !== undefined) {
    const token = host.bearer;
    app.use(async (c, next) => {
      const auth = bearerAuth(c.req.header('authorization'), token);
      if (!auth) return c.json(REFUSED, 401);
      c.set('auth', auth);
      await next();
    });
  }
  const mw = toHonoMiddleware(mcp, options);
  app.use(mw);
  app.get('/health', (c) => c.text('hono ok'));
  const server = honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as NodeServer;
  const port = await listening(server);
  return hosted(port, mw.handler, async () => {
    await mw.close();
    await closeNode(server);
  });
}

async function hostFastify(mcp: McpServer, options: HttpServerOptions, host: HostOptions): Promise<Hosted> {
  // Closing ends every connection at once, as the other hosts' close() does (Fastify's default
  // waits for kept-alive client sockets to time out).
  const app = Fastify({ forceCloseConnections: true });
  if (host.bearer !== undefined) {
    const token = host.bearer;
    app.decorateRequest('auth', undefined);
    app.addHook('onRequest', async (request, reply) => {
      const auth = bearerAuth(request.headers.authorization, token);
      if (!auth) return reply.code(401).send(REFUSED);
      (request as typeof request & { auth?: AuthInfo }).auth = auth;
    });
  }
  const plugin = toFastifyPlugin(mcp, options);
  await app.register(plugin);
  app.get('/health', async () => 'fastify ok');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return hosted(port, plugin.handler, async () => {
    await app.close();
  });
}

export function host(framework: Framework, mcp: McpServer, options: HttpServerOptions = {}, hostOptions: HostOptions = {}): Promise<Hosted> {
  switch (framework) {
    case 'express':
      return hostExpress(mcp, options, hostOptions);
    case 'hono':
      return hostHono(mcp, options, hostOptions);
    case 'fastify':
      return hostFastify(mcp, options, hostOptions);
  }
}
