import type { DecodeLimits } from '../jsonrpc/codec.js';
import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { PeerOptions } from '../engine/peer.js';
import type { ServerIdentity } from '../protocol/handshake.js';
import type { Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types.js';
import type { SubscriptionFilter } from '../protocol/params.js';
import { HANDSHAKE_VERSIONS } from '../protocol/versions.js';
import type { AuthInfo, Transport } from '../engine/transport.js';
import type { Era } from '../protocol/era.js';
import { ServerBus, type MessageBus } from '../state/bus.js';
import type { TaskStore } from '../state/task-store.js';
import type { RequestContext } from './context.js';
import { flattenExtensions, type ExtensionApi, type ExtensionHooks, type ListenRequest, type RequestObserver, type ServerExtension } from './extension.js';
import { ModernEra } from './modern.js';
import { ServerSession } from './session.js';

export type { MethodHandler, RequestMiddleware, ServerOptions, ToolSchemas } from './server-types.js';
import type { MethodHandler, RequestMiddleware, ServerOptions, ToolSchemas } from './server-types.js';

export type NotificationHandler = (params: JsonObject | undefined, session: ServerSession) => void | Promise<void>;

// The read-only port from a Server to what serves it (the HTTP core, stdio serving, the serving
// adapters): what a transport may ask of the server it carries requests to, and nothing it could
// change. A Server implements it; serving code needs no more of it.
export interface ServerPort {
  /** Name, version, capabilities, instructions and the handshake-era revisions it accepts. */
  identity(): ServerIdentity;
  /** What it says it is (the server card is built from it). */
  readonly info: Implementation;
  readonly versions: readonly string[];
  readonly limits: Partial<DecodeLimits> | undefined;
  /** The 2026-07-28 era (undefined when turned off): serves stateless requests. */
  readonly modern: ModernEra | undefined;
  /** Runs a request through the middleware to its handler. */
  dispatch(method: string, params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> | JsonObject;
  /** The schema an `Mcp-Param-*` header of a `tools/call` is checked against. */
  toolInputSchema(name: string, authInfo?: AuthInfo): object | undefined | Promise<object | undefined>;
  /** A handshake-era session on `transport`, started (HTTP+SSE and session-table connections). */
  connect(transport: Transport): Promise<ServerSession>;
  /**
   * @internal A handshake-era session on `transport`, not started (the HTTP core's); `listed`
   * false for a stateless request's throwaway session, which no broadcast can reach anyway.
   */
  attach(transport: Transport, listed?: boolean): ServerSession;
  readonly messageMiddleware: readonly MessageMiddleware[];
  readonly bus: ServerBus | undefined;
  onHostRelay(name: string, listener: (data: JsonObject) => void): () => void;
  relayHost(name: string, data: JsonObject): boolean;
  relayHostSent(name: string, data: JsonObject): Promise<void>;
  onerror(error: Error): void;
}

/**
 * The low-level server: raw method handlers over any number of connections. One definition
 * serves every session; a connection costs a small session object, never a new server.
 */
export class Server implements ServerPort {
  readonly info: Implementation;
  readonly versions: readonly string[];
  readonly limits: Partial<DecodeLimits> | undefined;
  readonly onerror: (error: Error) => void;
  /** Reports a likely mistake that stops nothing: to `onerror`, as an error named `McpWarning`. */
  readonly warn = (message: string): void => this.onerror(Object.assign(new Error(message), { name: 'McpWarning' }));
  // What changes after construction changes only through the methods below (registerCapabilities,
  // use, install, share, serveToolSchemas): read it through the getters.
  private readonly caps: ServerCapabilities;
  private readonly instructionsText: string | undefined;
  private readonly live = new Set<ServerSession>();
  private readonly messageMws: MessageMiddleware[] = [];
  private observe: RequestObserver | undefined;
  private sharedBus: ServerBus | undefined;
  private sharedTasks: TaskStore | undefined;
  private sessionMws: (() => MessageMiddleware | undefined)[] | undefined;
  private toolSchemas: ToolSchemas | undefined;
  private readonly handlers = new Map<string, MethodHandler>();
  /** Notifications broadcastSoon holds until the tick's changes are done. */
  private soon: Set<string> | undefined;
  private readonly eraHandlers = new Map<string, Map<Era, MethodHandler>>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly requestMiddleware: RequestMiddleware[] = [];
  /** The 2026-07-28 era (undefined when turned off). */
  readonly modern: ModernEra | undefined;
  /** Installed extensions' hooks, by extension name, in installation order. */
  private readonly hooks = new Map<string, ExtensionHooks>();
  /** The serving layer's listeners on the bus (HTTP+SSE forwarding), by channel name. */
  private readonly hostListeners = new Map<string, Set<(data: JsonObject) => void>>();
  /** `identity` as a function made once, shared by every session's handshake codec. */
  readonly identityOf: () => ServerIdentity = () => this.identity();
  /** What every session's engine is built with (the middleware list is snapshotted by each engine). */
  readonly peerOptions: PeerOptions;

  /** The declared capabilities (grown by `registerCapabilities`, and by McpServer as items are registered). */
  get capabilities(): ServerCapabilities {
    return this.caps;
  }
  get instructions(): string | undefined {
    return this.instructionsText;
  }
  /** The connected handshake-era sessions. */
  get sessions(): ReadonlySet<ServerSession> {
    return this.live;
  }
  /** Message middleware added with `use`, outermost first. */
  get messageMiddleware(): readonly MessageMiddleware[] {
    return this.messageMws;
  }
  /** What installed extensions' `observe` hooks make of every request; undefined (the usual case) costs one check. */
  get observer(): RequestObserver | undefined {
    return this.observe;
  }
  /** This instance's end of the deployment's message bus, when there is one. */
  get bus(): ServerBus | undefined {
    return this.sharedBus;
  }
  /**
   * The deployment's task store, for extensions given none of their own (set by `share`, e.g.
   * by `mcpkit serve --redis`); read when a task is stored, not when the extension is installed.
   */
  get taskStore(): TaskStore | undefined {
    return this.sharedTasks;
  }
  /** Extensions' per-session message middleware factories; undefined (the usual case) costs one check per session. */
  get sessionMiddleware(): ReadonlyArray<() => MessageMiddleware | undefined> | undefined {
    return this.sessionMws;
  }

  constructor(options: ServerOptions) {
    const { instructions, capabilities, protocolVersions, requestTimeoutMs, limits, onerror, modern, extensions, bus, ...info } = options;
    if ('tasks' in info) {
      throw new TypeError('ServerOptions.tasks moved to the extension seam: pass extensions: [tasks({ ... })] (tasks from mcpkit/server)');
    }
    this.info = info;
    this.caps = { ...capabilities };
    this.instructionsText = instructions;
    this.versions = protocolVersions ?? HANDSHAKE_VERSIONS;
    this.limits = limits;
    this.onerror = onerror ?? defaultOnError;
    this.peerOptions = { requestTimeoutMs, limits, middleware: this.messageMws, onerror: this.onerror };
    this.modern = modern === false ? undefined : new ModernEra(this, modern);
    if (bus !== undefined) this.useBus(bus);
    // A handler like any other, so request middleware sees it too.
    this.setRequestHandler('logging/setLevel', (params, ctx) => {
      if (!ctx.session) throw new McpError(ErrorCode.MethodNotFound, 'Method not found: logging/setLevel');
      return ctx.session.setLevel(params);
    });
    for (const ext of flattenExtensions(extensions)) this.install(ext);
  }

  /**
   * Joins a deployment after construction, for code that runs a server it did not build (the
   * CLI's `--redis`): a message bus (a server built with its own keeps that one), and a task
   * store for the extensions that were given none. Call it before serving.
   */
  share(shared: { bus?: MessageBus; taskStore?: TaskStore }): void {
    if (shared.bus !== undefined && this.bus === undefined) this.useBus(shared.bus);
    if (shared.taskStore !== undefined) this.sharedTasks = shared.taskStore;
  }

  private useBus(bus: MessageBus): void {
    if (this.bus !== undefined) throw new TypeError('this server is on a message bus already');
    this.sharedBus = new ServerBus(
      bus,
      {
        notify: (method, params) => this.deliver(method, params, standardFilter(method, params)),
        // An extension this instance lacks has nothing to do with its events.
        ext: (name, data) => {
          const hook = this.hooks.get(name)?.relayed;
          if (hook) return hook(data);
          for (const listener of this.hostListeners.get(name) ?? []) listener(data);
        },
      },
      this.onerror,
    );
  }

  /**
   * For the serving layer: receives what other instances `relayHost` under `name` (never this
   * instance's own). Returns a function that stops listening. Costs nothing without a bus.
   */
  onHostRelay(name: string, listener: (data: JsonObject) => void): () => void {
    let set = this.hostListeners.get(name);
    if (!set) this.hostListeners.set(name, (set = new Set()));
    set.add(listener);
    return () => void set.delete(listener);
  }

  /** Sends `data` to the other instances' `onHostRelay(name)` listeners; false without a bus. */
  relayHost(name: string, data: JsonObject): boolean {
    if (this.bus === undefined) return false;
    void this.bus.send({ k: 'ext', x: name, d: data });
    return true;
  }

  /** relayHost, resolving once the bus has taken the message (at once without a bus). */
  async relayHostSent(name: string, data: JsonObject): Promise<void> {
    await this.bus?.send({ k: 'ext', x: name, d: data });
  }

  /**
   * Installs an extension (once per name: installing the same name again is an error). Its
   * methods are handlers like any other, so request middleware sees them.
   */
  install(extension: ServerExtension): ExtensionHooks {
    if (this.hooks.has(extension.name)) throw new TypeError(`The extension "${extension.name}" is installed already`);
    const name = extension.name;
    const api: ExtensionApi = {
      info: this.info,
      capabilities: () => this.capabilities,
      setRequestHandler: (method, handler, o) => (o?.era === undefined ? this.setRequestHandler(method, handler) : this.setEraHandler(method, o.era, handler)),
      onerror: (e) => this.onerror(e),
      relay: (data) => void this.bus?.send({ k: 'ext', x: name, d: data }),
      publish: (method, params, match) => this.modern?.publishWhere(method, params, match),
      cacheHint: (method) => this.modern?.cacheHint(method) ?? { ttlMs: 0, scope: 'private' },
      sharedTaskStore: () => this.taskStore,
    };
    const hooks = extension.setup(api) ?? {};
    this.hooks.set(name, hooks);
    if (hooks.sessionMiddleware !== undefined) (this.sessionMws ??= []).push(hooks.sessionMiddleware.bind(hooks));
    const observe = hooks.observe;
    if (observe !== undefined) {
      const outer = this.observe;
      this.observe = outer === undefined ? observe : (req, inbound, conn, next) => outer(req, inbound, conn, () => observe(req, inbound, conn, next));
    }
    return hooks;
  }

  /** Whether an extension of this name is installed. */
  hasExtension(name: string): boolean {
    return this.hooks.has(name);
  }

  /** Installed extensions' hooks, in installation order. */
  extensionHooks(): IterableIterator<ExtensionHooks> {
    return this.hooks.values();
  }

  /** The capabilities of a handshake-era `initialize` result, with what extensions add at `protocolVersion`. */
  initializeCapabilities(base: ServerCapabilities, protocolVersion: string): ServerCapabilities {
    let caps = base;
    for (const h of this.hooks.values()) {
      const more = h.initialize?.(protocolVersion);
      if (more === undefined) continue;
      caps = more.extensions && caps.extensions ? { ...caps, ...more, extensions: { ...caps.extensions, ...more.extensions } } : { ...caps, ...more };
    }
    return caps;
  }

  /** `capabilities.extensions` entries for `server/discover` (2026-07-28), from the installed extensions. */
  discoverExtensions(): Record<string, JsonObject> | undefined {
    let out: Record<string, JsonObject> | undefined;
    for (const [name, h] of this.hooks) {
      const settings = h.discover?.();
      if (settings !== undefined) (out ??= {})[name] = settings;
    }
    return out;
  }

  /** What extensions acknowledge of a `subscriptions/listen` filter. */
  async listenExtensions(want: SubscriptionFilter, request: ListenRequest): Promise<Partial<SubscriptionFilter>> {
    let out: Partial<SubscriptionFilter> = {};
    for (const h of this.hooks.values()) {
      const part = h.listen === undefined ? undefined : await h.listen(want, request);
      if (part !== undefined) out = { ...out, ...part };
    }
    return out;
  }

  /**
   * A handler for one era only; a method served in both eras by different extensions answers
   * each era with its own, and -32601 in an era nobody serves. Zero cost for other methods.
   */
  private setEraHandler(method: string, era: Era, handler: MethodHandler): void {
    const byEra = (this.eraHandlers.get(method) ?? new Map<Era, MethodHandler>()).set(era, handler);
    this.eraHandlers.set(method, byEra);
    this.handlers.set(method, (params, ctx) => {
      const h = byEra.get(ctx.era);
      if (h === undefined) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return h(params, ctx);
    });
  }

  identity(): ServerIdentity {
    return { info: this.info, capabilities: this.capabilities, instructions: this.instructions, versions: this.versions };
  }

  /** Declares more capabilities (merged one level deep). */
  registerCapabilities(caps: ServerCapabilities): void {
    for (const [k, v] of Object.entries(caps)) {
      const cur = (this.caps as Record<string, unknown>)[k];
      (this.caps as Record<string, unknown>)[k] = cur && typeof cur === 'object' && v && typeof v === 'object' ? { ...cur, ...v } : v;
    }
  }

  /**
   * Where `toolInputSchema` finds tool schemas: whoever answers `tools/call` says so (McpServer
   * from its tools, the gateway and the bridges from their backends'). One source; a later call
   * replaces it.
   */
  serveToolSchemas(lookup: ToolSchemas): void {
    this.toolSchemas = lookup;
  }

  /**
   * A tool's input schema by name, as the caller (`authInfo`) would call it, for transports that
   * check tool arguments mirrored in headers (`x-mcp-header`, 2026-07-28 HTTP). Undefined (no
   * source, or an unknown tool): no header is checked.
   */
  toolInputSchema(name: string, authInfo?: AuthInfo): object | undefined | Promise<object | undefined> {
    return this.toolSchemas?.(name, authInfo);
  }

  /** The tool schema source `serveToolSchemas` set (a front that takes over tools/call may hand back to it). */
  get toolSchemaSource(): ToolSchemas | undefined {
    return this.toolSchemas;
  }

  /** The handler `setRequestHandler` set for a method (a later handler may delegate to the one it replaces). */
  requestHandler(method: string): MethodHandler | undefined {
    return this.handlers.get(method);
  }

  setRequestHandler(method: string, handler: MethodHandler): void {
    this.eraHandlers.delete(method);
    this.handlers.set(method, handler);
  }
  removeRequestHandler(method: string): void {
    this.handlers.delete(method);
  }
  hasRequestHandler(method: string): boolean {
    return this.handlers.has(method);
  }
  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.notificationHandlers.set(method, handler);
  }

  /**
   * Request middleware (onion; the first added is the outermost), or message middleware
   * (`{ incoming, outgoing }`). Message middleware applies to sessions connected after it is added.
   */
  use(mw: RequestMiddleware | MessageMiddleware): this {
    if (typeof mw === 'function') this.requestMiddleware.push(mw);
    else this.messageMws.push(mw);
    return this;
  }

  /** Runs a request through middleware to its handler. Used by every era and transport. */
  dispatch(method: string, params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> | JsonObject {
    const handler = this.handlers.get(method);
    const mws = this.requestMiddleware;
    if (mws.length === 0) {
      if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      try {
        return handler(params, ctx);
      } finally {
        // What the handler changed is announced before its answer (see broadcastSoon).
        if (this.soon !== undefined) this.flushSoon();
      }
    }
    // With middleware, an unknown method is only decided at the end of the chain, so middleware
    // can observe it, or implement it. Each `next` runs the rest of the chain once: a middleware
    // that calls it twice would run the handler (a tool's side effects) twice.
    const run = async (i: number): Promise<JsonObject> => {
      if (i < mws.length) {
        let called = false;
        return mws[i](method, params, ctx, () => {
          if (called)
            return Promise.reject(
              new LocalError('protocol', `Request middleware #${i + 1} called next() twice for ${method}: the rest of the chain runs once`),
            );
          called = true;
          return run(i + 1);
        });
      }
      if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return handler(params, ctx);
    };
    return run(0);
  }

  async handleNotification(method: string, params: JsonObject | undefined, session: ServerSession): Promise<void> {
    await this.notificationHandlers.get(method)?.(params, session);
  }

  /** Serves one connection. The same server may be connected to many transports at once. */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = this.attach(transport);
    await session.start();
    return session;
  }

  /**
   * @internal A session on `transport`, registered but not started: for transports whose
   * `start()` does nothing (the HTTP core's), which then start it without waiting. Unlisted
   * (a stateless request's session: it has no stream a broadcast could use and ends with its
   * one request), it is left out of `sessions`, broadcasts and `close()`, and costs no set entry.
   */
  attach(transport: Transport, listed = true): ServerSession {
    const session = new ServerSession(this, transport);
    if (listed) this.live.add(session);
    return session;
  }

  /** @internal A session's connection closed: it is forgotten (ServerSession's onclose). */
  detach(session: ServerSession): void {
    this.live.delete(session);
  }

  /**
   * Sends a notification to every ready session (the client sent `notifications/initialized`;
   * the spec asks servers not to send before that), optionally filtered, and to every
   * 2026-07-28 listen stream that asked for it.
   */
  /**
   * Broadcasts `method` (no params) once the current tick's changes are all made: many calls in
   * one tick are one notification each. It leaves at the end of the tick, or before the answer
   * of a request whose handler made the change, whichever is first: a handler that adds a tool
   * and answers at once would otherwise have its answer written before the list_changed, and a
   * client acting on the answer would not yet know of the tool. (A handler that awaits needs
   * nothing: the end of its tick comes before its answer.)
   */
  broadcastSoon(method: string): void {
    if (this.soon === undefined) {
      this.soon = new Set();
      queueMicrotask(() => this.flushSoon());
    }
    this.soon.add(method);
  }

  private flushSoon(): void {
    const soon = this.soon;
    if (soon === undefined) return;
    this.soon = undefined;
    for (const method of soon) this.broadcast(method);
  }

  broadcast(method: string, params?: JsonObject, filter?: (s: ServerSession) => boolean): void {
    // Only what every instance can filter the same way travels: a caller's own filter cannot.
    if (filter === undefined) void this.bus?.send(params === undefined ? { k: 'notify', m: method } : { k: 'notify', m: method, p: params });
    this.deliver(method, params, filter ?? standardFilter(method, params));
  }

  /** Delivers a notification to this instance's sessions and listen streams. */
  private deliver(method: string, params: JsonObject | undefined, filter: ((s: ServerSession) => boolean) | undefined): void {
    this.modern?.publish(method, params);
    for (const s of this.live) {
      if (s.era.state !== 'ready' || (filter && !filter(s))) continue;
      s.notify(method, params).catch((e: unknown) => this.onerror(e instanceof Error ? e : new Error(String(e))));
    }
  }

  async close(): Promise<void> {
    // Extensions stop first (running tasks), so their final state still reaches listen streams.
    for (const h of this.hooks.values()) await h.close?.();
    // Handlers waiting for a retry that can no longer come: their signals fire.
    this.modern?.rounds.close();
    // Listen streams end with a final result, which must leave before the transports close.
    await this.modern?.endAll();
    await Promise.allSettled([...this.live].map((s) => s.close()));
    await this.bus?.close();
  }
}

/**
 * Who gets a broadcast notification: subscribers of the resource, sessions whose log level lets
 * the message through, everyone for the rest. Every instance derives it from the notification
 * itself, so a notification relayed over the bus is filtered as it would be where it was raised.
 */
function standardFilter(method: string, params: JsonObject | undefined): ((s: ServerSession) => boolean) | undefined {
  if (method === 'notifications/resources/updated') {
    const uri = params?.uri;
    return (s) => typeof uri === 'string' && s.subscriptions.has(uri);
  }
  if (method === 'notifications/message') {
    const level = params?.level;
    return (s) => typeof level === 'string' && s.wantsLog(level as LoggingLevel);
  }
  return undefined;
}

/**
 * The low-level server behind either kind of definition. A shape check, not `instanceof`: a server
 * built by another copy of mcpkit (a second install, a CommonJS load) must work too.
 */
export function lowLevelServer(server: Server | { readonly server: Server }): Server {
  return 'server' in server && server.server && typeof server.server === 'object' ? server.server : (server as Server);
}

/** The port serving code holds: a `Server`, an `McpServer`'s, or any other `ServerPort`. */
export function servingPort(server: ServerPort | { readonly server: ServerPort }): ServerPort {
  return 'dispatch' in server && typeof server.dispatch === 'function' ? server : (server as { readonly server: ServerPort }).server;
}

/** A warning is one line (its frames would only point into mcpkit); an error shows where it happened. */
function defaultOnError(e: Error): void {
  if (e.name === 'McpWarning') console.warn(`[mcpkit] warning: ${e.message}`);
  else console.error(`[mcpkit] ${e.stack ?? e.message}`);
}
