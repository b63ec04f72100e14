// One HTTP server under test, in its own process: `node http.mjs <impl> <mode>`.
//   impl: bare | mcpkit | sdk1 | sdk2 | sdk2-handler
//   mode: json | sse | stateful | stateful-sse | tools50 | modern
// Listens on 127.0.0.1, port 0, endpoint /mcp; tells the parent its port over IPC and answers
// stats requests (lib/child-stats.mjs). Each implementation is written the way its own docs
// recommend, in their most favourable variant (see bench/README.md).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { installStats } from '../lib/child-stats.mjs';
import { TOOLS, callResultText } from './tools.mjs';

const [impl, mode] = process.argv.slice(2);
const withTools = mode === 'tools50';
const stateful = mode === 'stateful' || mode === 'stateful-sse';
const sse = mode === 'sse' || mode === 'stateful-sse';

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'bench', version: '1.0.0' },
};

// ------------------------------------------------------------------------------------- bare
// The node:http limit: parse the JSON-RPC body, answer the same result. No MCP library.
function bareListener() {
  const sessions = new Map();
  const answer = (res, status, payload, extra) => {
    const body = JSON.stringify(payload);
    if (sse) {
      const frame = `event: message\ndata: ${body}\n\n`;
      res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra });
      res.end(frame);
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...extra });
    res.end(body);
  };
  return (req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (req.method === 'DELETE' && stateful) {
      const ok = sessions.delete(req.headers['mcp-session-id']);
      res.writeHead(ok ? 200 : 404).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let msg;
      try {
        msg = JSON.parse(chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString());
      } catch {
        return answer(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      if (msg.method === 'initialize') {
        const extra = {};
        if (stateful) {
          const id = randomUUID();
          sessions.set(id, { created: Date.now() });
          extra['mcp-session-id'] = id;
        }
        return answer(res, 200, { jsonrpc: '2.0', id: msg.id, result: INIT_RESULT }, extra);
      }
      if (stateful && !sessions.has(req.headers['mcp-session-id'])) {
        return answer(res, 404, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32001, message: 'Session not found' } });
      }
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      if (msg.method === 'tools/call') {
        const { name, arguments: args } = msg.params;
        const text = name === 'echo' ? args.message : callResultText(name, args);
        return answer(res, 200, { jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });
      }
      return answer(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
    });
  };
}

// ----------------------------------------------------------------------------------- mcpkit
/** McpServer and serve from another build: dist/entries/ (current layout), else the older barrels. */
async function fromBuild(base) {
  if (existsSync(`${base}/dist/entries/node.js`)) {
    return { ...(await import(`${base}/dist/entries/server.js`)), ...(await import(`${base}/dist/entries/node.js`)) };
  }
  return { ...(await import(`${base}/dist/index.js`)), ...(await import(`${base}/dist/transports/http/index.js`)) };
}

// `mcpkit-base`: the same server from another build of mcpkit (MCPKIT_BASE=/path/to/checkout, its
// dist/), for an A/B comparison in alternation within one run (`npm run bench -- --base=DIR`).
async function mcpkitServer(base) {
  const { McpServer, serve } = base ? await fromBuild(base) : { ...(await import('mcpkit/server')), ...(await import('mcpkit/node')) };
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.tool('echo', { description: 'Echoes the message', input: { message: z.string() } }, ({ message }) => message);
  if (withTools) {
    for (const t of TOOLS) server.tool(t.name, { description: t.description, input: t.shape }, (args) => callResultText(t.name, args));
  }
  const running = await serve(server, {
    port: 0,
    host: '127.0.0.1',
    stateful,
    responseMode: sse ? 'sse' : 'json',
    eventStore: false,
    // BENCH_FAST_FRONT=0: node:http serves every request (the A/B of serve()'s own HTTP/1.1 front).
    ...(process.env.BENCH_FAST_FRONT === '0' ? { fastFront: false } : {}),
    // The memory scenario's expiry check shortens the idle timeout.
    ...(process.env.BENCH_SESSION_IDLE_MS ? { sessionIdleMs: Number(process.env.BENCH_SESSION_IDLE_MS) } : {}),
  });
  return { port: running.port, close: () => running.close() };
}

// `mcpkit-mem` / `mcpkit-redis`: the server the way `mcpkit serve` runs it, without and with
// `--redis` (the CLI's own wiring, from dist/cli/redis.js: session and event stores, the bus and
// the task store, the instance lease, probes gated on Redis). The event store is on in both
// (in memory by default), as in the CLI. Keys go under a prefix of this run, deleted at close.
async function mcpkitServeServer(withRedis) {
  const { McpServer, serve } = { ...(await import('mcpkit/server')), ...(await import('mcpkit/node')) };
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.tool('echo', { description: 'Echoes the message', input: { message: z.string() } }, ({ message }) => message);
  const options = { port: 0, host: '127.0.0.1', stateful, responseMode: sse ? 'sse' : 'json', health: true };
  let scaled;
  const prefix = `mcpkit-bench:${process.pid}:`;
  if (withRedis) {
    const { scaleOut } = await import(new URL('../../dist/cli/redis.js', import.meta.url).href);
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    scaled = await scaleOut(url, { 'redis-prefix': prefix }, { stderr: process.stderr });
    Object.assign(options, scaled.options);
    scaled.share(server.server);
  }
  const running = await serve(server, options);
  return {
    port: running.port,
    close: async () => {
      await running.close();
      if (!scaled) return;
      const { Redis } = await import('ioredis');
      const r = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      for (let cursor = '0'; ; ) {
        const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await r.del(...keys);
        cursor = next;
        if (cursor === '0') break;
      }
      await r.quit();
      await scaled.close();
    },
  };
}

// ------------------------------------------------------------------------- official SDK v1
async function sdk1Server() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');
  // ServerOptions.jsonSchemaValidator (documented): one validator for every per-request server,
  // instead of a new Ajv instance per server.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const getServer = () => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' }, { jsonSchemaValidator });
    server.registerTool('echo', { description: 'Echoes the message', inputSchema: { message: z.string() } }, async ({ message }) => ({
      content: [{ type: 'text', text: message }],
    }));
    if (withTools) {
      for (const t of TOOLS) {
        server.registerTool(t.name, { description: t.description, inputSchema: t.shape }, async (args) => ({
          content: [{ type: 'text', text: callResultText(t.name, args) }],
        }));
      }
    }
    return server;
  };
  return officialHttpServer('sdk1', getServer, StreamableHTTPServerTransport, isInitializeRequest);
}

/**
 * How both official SDKs' docs serve HTTP: stateless, a new server and transport per request
 * (v1: examples/server/simpleStatelessStreamableHttp; v2: the @modelcontextprotocol/node README);
 * stateful, one transport + server per session (v1: examples/server/jsonResponseStreamableHttp).
 * Plain node:http instead of express. Only the transport class and the initialize test differ.
 */
function officialHttpServer(label, getServer, Transport, isInitialize) {
  let listener;
  if (!stateful) {
    listener = async (req, res) => {
      if (req.method !== 'POST' || req.url !== '/mcp') {
        res.writeHead(405).end();
        return;
      }
      const server = getServer();
      const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: !sse });
      res.on('close', () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    };
  } else {
    const sessions = new Map();
    listener = async (req, res) => {
      const sid = req.headers['mcp-session-id'];
      const transport = sid ? sessions.get(sid) : undefined;
      if (transport) return transport.handleRequest(req, res);
      if (sid) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(400).end();
        return;
      }
      // The body is needed to tell initialize apart (express.json() in the examples).
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = JSON.parse(Buffer.concat(chunks).toString());
      if (!isInitialize(body)) {
        res.writeHead(400).end();
        return;
      }
      const t = new Transport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, t),
      });
      t.onclose = () => {
        if (t.sessionId) sessions.delete(t.sessionId);
      };
      await getServer().connect(t);
      await t.handleRequest(req, res, body);
    };
  }
  const http = createServer((req, res) => {
    listener(req, res).catch((err) => {
      console.error(`${label} error`, err);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return listen(http);
}

// ------------------------------------------------------------------------- official SDK v2
function sdk2Factory(McpServer, jsonSchemaValidator) {
  return () => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' }, { jsonSchemaValidator });
    server.registerTool('echo', { description: 'Echoes the message', inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
      content: [{ type: 'text', text: message }],
    }));
    if (withTools) {
      for (const t of TOOLS) {
        server.registerTool(t.name, { description: t.description, inputSchema: t.object ?? (t.object = z.object(t.shape)) }, async (args) => ({
          content: [{ type: 'text', text: callResultText(t.name, args) }],
        }));
      }
    }
    return server;
  };
}

/** One JSON Schema validator shared by every per-request v2 server (ServerOptions.jsonSchemaValidator). */
async function sharedV2Validator() {
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/server/validators/ajv');
  return new AjvJsonSchemaValidator();
}

async function sdk2Server() {
  const { McpServer } = await import('@modelcontextprotocol/server');
  const { NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
  const getServer = sdk2Factory(McpServer, await sharedV2Validator());
  return officialHttpServer('sdk2', getServer, NodeStreamableHTTPServerTransport, (body) => body?.method === 'initialize');
}

// The v2 serving entry: createMcpHandler(factory) + toNodeHandler. Serves 2026-07-28 requests
// (per-request instance, responseMode 'json') and 2025 traffic by its stateless fallback.
async function sdk2HandlerServer() {
  const { McpServer, createMcpHandler } = await import('@modelcontextprotocol/server');
  const { toNodeHandler } = await import('@modelcontextprotocol/node');
  const handler = createMcpHandler(sdk2Factory(McpServer, await sharedV2Validator()), {
    responseMode: sse ? 'sse' : 'json',
    onerror: (e) => console.error('sdk2-handler error', e),
  });
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    node(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  const l = await listen(http);
  return {
    port: l.port,
    close: async () => {
      await handler.close();
      await l.close();
    },
  };
}

async function listen(http) {
  http.keepAliveTimeout = 65_000;
  http.requestTimeout = 0;
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: http.address().port,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const builders = {
  bare: async () => {
    const http = createServer(bareListener());
    return listen(http);
  },
  mcpkit: () => mcpkitServer(),
  'mcpkit-base': () => mcpkitServer(process.env.MCPKIT_BASE),
  'mcpkit-mem': () => mcpkitServeServer(false),
  'mcpkit-redis': () => mcpkitServeServer(true),
  sdk1: sdk1Server,
  sdk2: sdk2Server,
  'sdk2-handler': sdk2HandlerServer,
};

if (!builders[impl]) {
  console.error(`unknown implementation ${impl}`);
  process.exit(2);
}
const running = await builders[impl]();
installStats(() => running.close());
process.send?.({ type: 'ready', port: running.port, pid: process.pid });
