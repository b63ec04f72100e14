// The servers a host (or a gateway) is connected to, behind one name space of tools: each server
// kept connected by a ServerLink (server-link.ts), their tools filtered per server and named by
// one NameRegistry (names.ts), calls routed back to the right server.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClientOptions, McpClient } from '../client/client.js';
import { systemClock, type Clock } from '../engine/clock.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import type { Prompt, Resource, ResourceTemplate, Root, Tool } from '../protocol/types.js';
import type { CallToolResult } from '../protocol/params.js';
import { ServerUnavailableError, TargetError, UnknownToolError } from './errors.js';
import { NameRegistry } from './names.js';
import { serverDefs, type ServerDef } from './pool-config.js';
import type { PoolEvent, PoolEventOf, PoolEventType, PoolOptions, ServerSpec, ServerState } from './pool-types.js';
import { ServerLink, type LinkHost } from './server-link.js';
import type { HostCallOptions, HostTool, ToolSource } from './tool-source.js';

export type { CatalogList, PoolEvent, PoolEventOf, PoolEventType, PoolOptions, ServerSpec, ServerState } from './pool-types.js';

/** What the pool knows about one server. */
export interface ServerInfo {
  name: string;
  state: ServerState;
  /** The era spoken while connected. */
  era: 'modern' | 'handshake' | undefined;
  protocolVersion: string | undefined;
  /** Its tools offered (after allow/deny). */
  tools: number;
  /** Why the last attempt failed or the connection was lost. */
  error: Error | undefined;
  /** When the next attempt is due (ms from now), while one is scheduled. */
  retryInMs: number | undefined;
  /** The stdio child's process id while connected. */
  pid: number | undefined;
}

/** A server's prompts, resources and templates as last listed (see PoolOptions.lists). */
export interface ServerCatalog {
  /** Its tools as it listed them (all of them, in its order: `tools()` has the ones offered, named). */
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
}

interface ToolEntry {
  server: string;
  name: string;
  tool: Tool;
}

type Listener<T extends PoolEventType> = (event: PoolEventOf<T>) => void;

/**
 * Connects to many MCP servers at once and offers their tools under collision-free,
 * provider-safe names (a {@link ToolSource}). Servers that fail to start or are lost are
 * retried with backoff while the others work; `close()` ends every connection and child process.
 *
 *   const pool = new ServerPool({ config: '.mcp.json', handlers: { sampling } });
 *   await pool.start();
 *   const result = await pool.call(pool.tools()[0].name, {});
 */
export class ServerPool implements ToolSource {
  private readonly links = new Map<string, ServerLink>();
  private readonly registry: NameRegistry<ToolEntry>;
  private list: HostTool[] = [];
  private byName = new Map<string, HostTool>();
  private fingerprint = '';
  private readonly changeListeners = new Set<() => void>();
  private readonly listeners = new Map<PoolEventType, Set<(e: PoolEvent) => void>>();
  private readonly host: LinkHost;
  private readonly clock: Clock;
  private readonly cwd: string;
  private readonly roots: Root[];
  private closed = false;
  /** While `start()` makes the first attempts: servers changed meanwhile, named together at the end. */
  private held: Set<string> | undefined;
  /** Servers whose catalog is offered (listed and not closed), to report when one comes or goes. */
  private readonly offered = new Set<string>();

  constructor(private readonly options: PoolOptions = {}) {
    this.cwd = options.cwd ?? process.cwd();
    this.clock = options.clock ?? systemClock;
    this.roots = options.roots ?? [{ uri: pathToFileURL(this.cwd).href, name: basename(this.cwd) || this.cwd }];
    const prefixes = new Map<string, ServerDef['settings']['prefix']>();
    this.registry = new NameRegistry<ToolEntry>({
      pattern: options.namePattern,
      charset: options.nameCharset,
      maxLength: options.nameMaxLength,
      prefix: options.prefix,
      separator: options.separator,
      prefixOf: (server) => this.links.get(server)?.def.settings.prefix ?? prefixes.get(server),
    });
    const retry = options.retry ?? {};
    this.host = {
      clock: this.clock,
      clientOptions: (def) => this.clientOptions(def),
      retry: { initialDelayMs: retry.initialDelayMs ?? 1000, maxDelayMs: retry.maxDelayMs ?? 30_000, maxAttempts: retry.maxAttempts ?? Infinity },
      cwd: this.cwd,
      env: options.env ?? process.env,
      stdioEnv: options.stdioEnv,
      emit: (e) => this.emit(e),
      fetch: options.clientFetch,
      changed: (link) => this.changed(link),
      lists: new Set(options.lists ?? []),
      catalogChanged: (link, list) => {
        if (!this.closed && this.offers(link)) this.emit({ type: 'listChanged', server: link.name, list });
      },
    };
    for (const def of serverDefs(options, this.cwd)) this.links.set(def.name, new ServerLink(def, this.host));
  }

  /** A pool with every enabled server's first attempt made (see {@link start}). */
  static async open(options: PoolOptions = {}): Promise<ServerPool> {
    const pool = new ServerPool(options);
    await pool.start();
    return pool;
  }

  /**
   * Connects every enabled server, in parallel. Resolves when each has connected or failed its
   * first attempt (failures are reported as `failed` events and retried); never rejects.
   */
  async start(): Promise<void> {
    // Named once all first attempts are in, so the names do not depend on who answered first.
    const held = (this.held ??= new Set());
    try {
      await Promise.all([...this.links.values()].filter((l) => l.def.settings.enabled !== false).map((l) => l.start()));
    } finally {
      if (this.held === held) this.held = undefined;
    }
    if (held.size > 0) this.rename([...held]);
  }

  /** Adds a server and makes its first attempt. */
  async add(spec: ServerSpec): Promise<void> {
    if (this.closed) throw new LocalError('closed', 'The server pool is closed');
    const [def] = serverDefs({ servers: [spec] }, this.cwd);
    if (this.links.has(def.name)) throw new TargetError(`two servers are named "${def.name}"`);
    const link = new ServerLink(def, this.host);
    this.links.set(def.name, link);
    if (def.settings.enabled !== false) await link.start();
  }

  /** Closes a server and withdraws its tools. */
  async remove(name: string): Promise<void> {
    const link = this.links.get(name);
    if (!link) return;
    this.links.delete(name);
    await link.close();
    this.changed(link);
  }

  /** Every server, in the order given. */
  servers(): ServerInfo[] {
    return [...this.links.values()].map((l) => this.info(l));
  }

  /** Every server's name, in the order given. */
  names(): string[] {
    return [...this.links.keys()];
  }

  server(name: string): ServerInfo | undefined {
    const l = this.links.get(name);
    return l && this.info(l);
  }

  /**
   * A server's prompts, resources and templates (the lists PoolOptions.lists keeps) as last
   * listed; kept while it reconnects, as its tools are. Undefined for a server that is not offered.
   */
  catalog(name: string): ServerCatalog | undefined {
    const l = this.links.get(name);
    if (!l || !this.offers(l)) return undefined;
    return { tools: l.tools, prompts: l.prompts, resources: l.resources, resourceTemplates: l.templates };
  }

  /**
   * Settles once the server's list changes are followed: at once, or (a 2026-07-28 server) when
   * its listen stream is answered. A change made after it is not missed.
   */
  listening(name: string): Promise<void> {
    return this.links.get(name)?.following ?? Promise.resolve();
  }

  /** Whether a server's tools (and lists) are offered: listed once, and not closed. */
  private offers(l: ServerLink): boolean {
    return l.listed && l.state !== 'closed' && this.links.get(l.name) === l;
  }

  /** The connected client of a server (for prompts, resources...), or undefined while it is not connected. */
  client(name: string): McpClient | undefined {
    const l = this.links.get(name);
    return l?.state === 'connected' ? l.client : undefined;
  }

  private info(l: ServerLink): ServerInfo {
    return {
      name: l.name,
      state: l.def.settings.enabled === false ? 'closed' : l.state,
      era: l.state === 'connected' ? l.client?.era : undefined,
      protocolVersion: l.state === 'connected' ? l.client?.protocolVersion : undefined,
      tools: this.list.filter((t) => t.server === l.name).length,
      error: l.lastError,
      retryInMs: l.retryAt === undefined ? undefined : Math.max(0, l.retryAt - this.clock.now()),
      pid: l.pid,
    };
  }

  tools(): readonly HostTool[] {
    return this.list;
  }

  resolve(name: string): HostTool | undefined {
    return this.byName.get(name);
  }

  /** The instructions a connected server gave at initialize (tool search reads them). */
  instructions(server: string): string | undefined {
    const l = this.links.get(server);
    return l?.state === 'connected' ? l.client?.instructions : undefined;
  }

  /**
   * Calls a tool by its model-facing name (or as `resolve` gave it). A server still starting is waited for; one that is
   * down rejects at once with a {@link ServerUnavailableError} saying when it is retried. Server
   * progress restarts the timeout; aborting `signal` cancels the call on the server.
   */
  call(name: string | HostTool, args: Record<string, unknown>, options: HostCallOptions = {}): Promise<CallToolResult> {
    // A tool already resolved (a relay found it by name) is not looked up again.
    const t = typeof name === 'string' ? this.byName.get(name) : name;
    if (!t) return Promise.reject(new UnknownToolError(name as string));
    const link = this.links.get(t.server);
    if (!link) return Promise.reject(new UnknownToolError(t.name));
    // Connected, the usual case: no await, and one promise of the pool's per call rather than an
    // async function's two. (A list_changed the call causes is seen before its result because
    // servers write it first and clients read in order: McpServer.announcing.)
    if (link.state === 'connected' && link.client !== undefined) return this.callOn(t, link, link.client, args, options);
    return link.ready(t.tool.name, options.signal).then((client) => this.callOn(t, link, client, args, options));
  }

  private callOn(t: HostTool, link: ServerLink, client: McpClient, args: Record<string, unknown>, options: HostCallOptions): Promise<CallToolResult> {
    const tool = t.tool.name;
    const generation = link.generation;
    const timeoutMs = options.timeoutMs ?? link.def.settings.timeoutMs ?? this.options.requestTimeoutMs;
    const onprogress = options.onprogress;
    const callOptions = {
      signal: options.signal,
      timeoutMs,
      // Always asked for: a server's progress is what keeps a long call within its timeout.
      onprogress: onprogress ?? (() => {}),
      resetTimeoutOnProgress: true,
      asSent: options.asSent,
    };
    const refreshes = link.refreshes;
    let sent: Promise<CallToolResult>;
    try {
      sent =
        options.meta === undefined
          ? client.callTool(tool, args, callOptions)
          : (client.request('tools/call', { name: tool, arguments: args, _meta: options.meta } as never, callOptions) as Promise<CallToolResult>);
    } catch (err) {
      sent = Promise.reject(err);
    }
    return sent.then(
      // The server changed its tools while the call was out (a tool that unlocks another sends
      // list_changed before its result): the caller's next step must see the new list, so the
      // result waits for that one listing.
      (result) => (link.refreshes !== refreshes ? link.refreshed.then(() => result) : result),
      (err: unknown) => {
        // The connection went while the call was out: say which server, and that it is reconnected.
        if (link.generation !== generation || (err instanceof LocalError && err.kind === 'closed')) {
          const why = err instanceof Error ? err.message : String(err);
          const next = link.restartable && link.state !== 'closed' ? '; it is being reconnected' : '';
          throw new ServerUnavailableError(t.server, tool, `Server "${t.server}" was lost during the call to "${tool}": ${why}${next}`, { cause: err });
        }
        // Not an answer of the server nor a local decision (timeout, abort): the transport could
        // not reach it (HTTP: refused, reset, a 5xx). The call may be tried again; it is not here.
        if (!(err instanceof McpError) && !(err instanceof LocalError && err.kind !== 'network') && err instanceof Error) {
          throw new ServerUnavailableError(t.server, tool, `Cannot reach server "${t.server}" for "${tool}": ${err.message}`, { cause: err });
        }
        throw err;
      },
    );
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Listens to one kind of event; returns the unsubscribe function. */
  on<T extends PoolEventType>(type: T, listener: Listener<T>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    const l = listener as (e: PoolEvent) => void;
    set.add(l);
    return () => set.delete(l);
  }

  /** Closes every connection (stdio children included) and cancels every retry. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.links.values()].map((l) => l.close()));
    this.list = [];
    this.byName = new Map();
    this.changeListeners.clear();
    this.listeners.clear();
  }

  private clientOptions(def: ServerDef): ClientOptions {
    const h = this.options.handlers ?? {};
    const server = def.name;
    const sampling = h.sampling;
    const elicitation = h.elicitation;
    return {
      name: this.options.clientInfo?.name ?? 'mcpkit-host',
      version: this.options.clientInfo?.version ?? '0.1.0',
      era: def.settings.era ?? this.options.era ?? 'auto',
      // A server's own timeout bounds all its requests: its handshake and tool listing too, so
      // that one that never answers is given up on (and retried) in its time, not the default's.
      requestTimeoutMs: def.settings.timeoutMs ?? this.options.requestTimeoutMs,
      clock: this.options.clock,
      // None: not declared at all (an empty list declared would still ask servers to use it).
      roots: h.roots ? (ctx) => h.roots!.call(h, server, ctx) : this.roots.length > 0 ? this.roots : undefined,
      sampling: sampling && ((params, ctx) => sampling.call(h, server, params, ctx)),
      elicitation: elicitation && ((params, ctx) => elicitation.call(h, server, params, ctx)),
      elicitationUrl: elicitation !== undefined && h.elicitationUrl === true,
      capabilities: sampling && h.samplingTools ? { sampling: { tools: {} } } : undefined,
      onerror: (error) => this.emit({ type: 'error', server, error }),
      ...(this.options.apps ? { apps: true } : {}),
      ...(this.options.tasks ? { tasks: this.options.tasks } : {}),
      ...(this.options.clientMiddleware ? { middleware: this.options.clientMiddleware(server) } : {}),
    };
  }

  private emit(event: PoolEvent): void {
    const call = (fn: (e: PoolEvent) => void) => {
      try {
        fn(event);
      } catch {
        // A listener's bug must not break the pool's bookkeeping.
      }
    };
    if (this.options.onEvent) call(this.options.onEvent);
    for (const l of this.listeners.get(event.type) ?? []) call(l);
  }

  /** A server's tools or availability changed: name everything again, tell whoever listens. */
  private changed(link: ServerLink): void {
    if (this.closed) return;
    if (this.held) this.held.add(link.name);
    else this.rename([link.name]);
    // A server that went takes its other lists along (one that came reports them itself, once listed).
    if (this.offers(link)) this.offered.add(link.name);
    else if (this.offered.delete(link.name)) for (const list of this.host.lists) this.emit({ type: 'listChanged', server: link.name, list });
  }

  private rename(servers: string[]): void {
    if (this.closed) return;
    const entries: ToolEntry[] = [];
    for (const l of this.links.values()) {
      if (!l.listed || l.state === 'closed') continue;
      for (const tool of l.tools) if (l.offers(tool.name)) entries.push({ server: l.name, name: tool.name, tool });
    }
    const named = this.registry.update(entries);
    this.list = named.map(({ name, entry }) => ({ name, server: entry.server, tool: entry.tool }));
    this.byName = new Map(this.list.map((t) => [t.name, t]));
    const fingerprint = JSON.stringify(this.list);
    if (fingerprint === this.fingerprint) return;
    this.fingerprint = fingerprint;
    for (const server of servers) this.emit({ type: 'toolsChanged', server });
    for (const l of this.changeListeners) {
      try {
        l();
      } catch {
        // As for events: one listener cannot stop the others.
      }
    }
  }
}
