// `mcpkit bridge --http -- COMMAND ARGS`: a stdio server exposed over HTTP.
//
// Design: ONE child process, reached through one McpClient, behind a low-level Server whose
// request handlers forward to that client. The Server does what a real HTTP server does (any
// number of sessions, both eras, Streamable HTTP and HTTP+SSE, API keys, Origin checks,
// per-session log levels and subscriptions); the child sees a single long-lived client.
// - Requests: forwarded with their params; the caller's cancellation cancels the child's request,
//   and the child's progress is re-reported with the caller's progress token.
// - Notifications: list changes go to every session, resource updates to the sessions
//   subscribed to the URI, log messages to the sessions whose level lets them through.
// - Server-to-client requests (elicitation, sampling, roots) go to the call that caused them, by
//   the gateway's rule (gateway/routing.ts): the handshake era gives the child no way to say
//   which call it asks for, so the question goes to the one HTTP client with calls in flight
//   (a session is one client; each 2026-07-28 request is its own), and is refused with a
//   JSON-RPC error to the child, shown to nobody, when several clients have calls in flight.
//   A roots/list outside any request goes to the handshake-era session that last made a
//   request or changed its roots; an HTTP client's notifications/roots/list_changed goes to the child.
// - The child is spoken to in the handshake era, whatever McpClient's default: list changes,
//   subscriptions and a connection-wide log level are what this relaying is built on.
// Limits: state the child keeps per connection is shared by every HTTP session (it has one
// connection).
import { McpClient } from '../client/client.js';
import { exitBehind } from '../client/era.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { RequestContext } from '../server/context.js';
import { InputRequiredSignal } from '../server/mrtr.js';
import { Server } from '../server/server.js';
import type { LoggingLevel, Root, ServerCapabilities } from '../protocol/types.js';
import { serve, type ServeOptions } from '../hosting/node.js';
import { StdioClientTransport } from '../transports/stdio/client.js';
import { version } from './args.js';
import { rootsRelay } from './bridge-roots.js';
import { InputRouter } from '../gateway/routing.js';
import type { ServerSession } from '../server/session.js';

interface Active {
  ctx: RequestContext;
  /** Set when the caller must be asked for input first (2026-07-28 `input_required`). */
  needsInput?: unknown;
  abort: AbortController;
  /** Notifications being relayed on this request's stream: they must leave before its result. */
  relaying: Array<Promise<unknown>>;
}

/** The router's name for the one backend, the child. */
const CHILD = 'stdio server';

/** Methods forwarded, and the capability each needs. */
const FORWARDED: Record<string, keyof ServerCapabilities> = {
  'tools/list': 'tools',
  'tools/call': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'resources/read': 'resources',
  'prompts/list': 'prompts',
  'prompts/get': 'prompts',
  'completion/complete': 'completions',
};

export interface ProxyServer {
  server: Server;
  client: McpClient;
  /** Resolves once no forwarded request is in flight and the answers given have been sent. */
  answered(): Promise<void>;
  close(): Promise<void>;
}

/** Connects to the stdio server and builds the Server that forwards to it. */
export async function createProxyServer(command: string, args: string[], env: Record<string, string>, stderr: NodeJS.WritableStream): Promise<ProxyServer> {
  const active: Active[] = [];
  const idleWaiters: Array<() => void> = [];
  // Whose question it is. The child's questions name no call (stdio in the handshake era cannot),
  // so the router is never given a signal to match: it answers with the one client that has
  // calls in flight, or refuses.
  const router = new InputRouter({
    idle: (_s, what) => `Bridge: the stdio server sent ${what ?? 'a request'} while no HTTP request was in progress to route it to`,
    ambiguous: (_s, clients, what) =>
      `Bridge: the stdio server asked for input (${what ?? 'a request'}) without saying for which call, and ${clients} HTTP clients ` +
      'have calls in progress; refused rather than shown to the wrong one (a handshake-era stdio server cannot say whose call it asks for)',
  });
  const owners = new WeakMap<object, string>();
  let calls = 0;
  /** A session is one client; a 2026-07-28 request is its own (none is guessed between two). */
  const ownerOf = (ctx: RequestContext): string => {
    if (!ctx.session) return `request:${++calls}`;
    let id = owners.get(ctx.session);
    if (id === undefined) owners.set(ctx.session, (id = `session:${++calls}`));
    return id;
  };
  /**
   * Asks the caller. A 2026-07-28 caller answers in its retry, which resumes this very run: the
   * child's call waits meanwhile, and is abandoned only when an answer is refused.
   */
  const relay = async <T>(what: string, ask: (ctx: RequestContext) => Promise<T>): Promise<T> => {
    const ctx = router.route(CHILD, undefined, what);
    const a = active.find((x) => x.ctx === ctx);
    try {
      return await ask(ctx);
    } catch (err) {
      if (err instanceof InputRequiredSignal && a) {
        a.needsInput = err;
        a.abort.abort(err);
      }
      throw err;
    }
  };
  /** The handshake-era session to ask for roots when no request is in progress. */
  let rootsSession: ServerSession | undefined;
  const noteRoots = (session: ServerSession | undefined) => {
    if (session?.clientCapabilities.roots) rootsSession = session;
  };
  // `server` is built once the child's capabilities are known, after this is wired up.
  let server: Server | undefined;
  const askRoots = async (signal: AbortSignal): Promise<Root[]> => {
    if (active.length > 0) return relay('a roots request', (ctx) => ctx.roots({ signal }));
    const session: ServerSession | undefined = rootsSession && server?.sessions.has(rootsSession) ? rootsSession : undefined;
    if (!session) throw new McpError(ErrorCode.InternalError, 'Bridge: the server asked for roots while no HTTP client that has roots was connected to ask');
    const r = await session.request('roots/list', undefined, { signal });
    return (r.roots ?? []) as unknown as Root[];
  };
  // The child's stderr is its log: it goes to ours (the command's, which may not be the process's).
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  transport.stderr?.pipe(stderr, { end: false });
  const client = new McpClient({
    name: 'mcpkit-bridge',
    version: version(),
    era: 'handshake',
    requestTimeoutMs: 0,
    elicitationUrl: true,
    // Declared for every HTTP client: whether the one asked has roots is only known when asking.
    capabilities: { roots: { listChanged: true } },
    middleware: [rootsRelay((m) => transport.send(m), askRoots)],
    elicitation: (params, { signal }) => relay('an elicitation request', (ctx) => ctx.elicit(params, { signal })),
    sampling: (params, { signal }) => relay('a sampling request', (ctx) => ctx.sample(params, { signal })),
  });
  await client.connect(transport);

  const caps = client.serverCapabilities ?? {};
  const info = client.serverInfo ?? { name: 'bridged-server', version: '0.0.0' };
  server = new Server({ ...info, instructions: client.instructions, capabilities: caps });

  for (const [method, cap] of Object.entries(FORWARDED)) {
    if (!caps[cap]) continue;
    server.setRequestHandler(method, async (params, ctx) => {
      const a: Active = { ctx, abort: new AbortController(), relaying: [] };
      active.push(a);
      const flight = router.begin(CHILD, ctx, ownerOf(ctx));
      noteRoots(ctx.session as ServerSession | undefined);
      try {
        const result = await client.request(method, forwardable(params), {
          signal: AbortSignal.any([flight.signal, a.abort.signal]),
          timeoutMs: 0,
          onprogress: ctx.meta?.progressToken !== undefined ? (p) => a.relaying.push(ctx.progress(p.progress, p.total, p.message).catch(() => {})) : undefined,
        });
        await Promise.all(a.relaying);
        return result;
      } catch (err) {
        if (a.needsInput) throw a.needsInput;
        // The caller is told at once, in words, rather than left waiting for a server that is gone.
        const exit = exitBehind(err);
        if (exit) throw new McpError(ErrorCode.InternalError, `Bridge: the stdio server exited (${exit.how}) before answering ${method}`);
        throw err;
      } finally {
        flight.end();
        active.splice(active.indexOf(a), 1);
        if (active.length === 0) for (const idle of idleWaiters.splice(0)) idle();
      }
    });
  }

  if (caps.resources?.subscribe) {
    const subscribed = (uri: string) => [...server.sessions].some((s) => s.subscriptions.has(uri));
    server.setRequestHandler('resources/subscribe', async (params, ctx) => {
      const uri = String(params?.uri ?? '');
      if (!subscribed(uri)) await client.subscribeResource(uri);
      ctx.session?.subscriptions.add(uri);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (params, ctx) => {
      const uri = String(params?.uri ?? '');
      ctx.session?.subscriptions.delete(uri);
      if (!subscribed(uri)) await client.unsubscribeResource(uri);
      return {};
    });
    client.on('notifications/resources/updated', (p) => {
      const uri = (p as { uri?: string } | undefined)?.uri;
      server.broadcast('notifications/resources/updated', p as unknown as JsonObject, (s) => uri !== undefined && s.subscriptions.has(uri));
    });
  }
  server.setNotificationHandler('notifications/roots/list_changed', async (_params, session) => {
    noteRoots(session);
    await client.notify('notifications/roots/list_changed').catch(() => {});
  });
  for (const kind of ['tools', 'resources', 'prompts']) {
    client.on(`notifications/${kind}/list_changed`, (p) => server.broadcast(`notifications/${kind}/list_changed`, p));
  }
  if (caps.logging) {
    // The child sends everything; each session's own level filters it here.
    await client.setLoggingLevel('debug').catch(() => {});
    client.on('notifications/message', (p) => {
      const { level = 'info', data, logger } = (p ?? {}) as { level?: LoggingLevel; data?: unknown; logger?: string };
      // A request in progress gets it on its own stream, before its result (by its session's
      // level, or the level a 2026-07-28 request asked for); other sessions by their level.
      const told = new Set<unknown>();
      for (const a of active) {
        a.relaying.push(a.ctx.log(level, data, logger).catch(() => {}));
        if (a.ctx.session) told.add(a.ctx.session);
      }
      server.broadcast('notifications/message', p as unknown as JsonObject, (s) => s.wantsLog(level) && !told.has(s));
    });
  }
  return {
    server,
    client,
    async answered() {
      if (active.length > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
      // The handlers have settled; their answers go out once the promise chains behind them run.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    async close() {
      await server.close();
      await client.close();
    },
  };
}

/**
 * The params to send the child: without our caller's progress token (the client adds its own),
 * the 2026-07-28 envelope keys and the multi-round fields (this bridge answers those itself).
 */
function forwardable(params: JsonObject | undefined): JsonObject | undefined {
  if (!params) return params;
  const { _meta, inputResponses: _i, requestState: _r, ...rest } = params;
  if (!_meta || typeof _meta !== 'object') return rest;
  const meta: JsonObject = {};
  for (const [k, v] of Object.entries(_meta as JsonObject)) {
    if (k !== 'progressToken' && !k.startsWith('io.modelcontextprotocol/')) meta[k] = v;
  }
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/** Starts the proxy and serves it over HTTP. */
export async function bridgeHttp(command: string, args: string[], env: Record<string, string>, options: ServeOptions, stderr: NodeJS.WritableStream) {
  const proxy = await createProxyServer(command, args, env, stderr);
  const running = await serve(proxy.server, options);
  return { proxy, running };
}
