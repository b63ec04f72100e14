import type { JsonObject, JsonRpcRequest } from '../jsonrpc/messages.js';
import type { InboundRequest } from '../engine/inbound.js';
import type { AuthInfo, TransportKind } from '../engine/transport.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { CacheScope, ClientCapabilities, Implementation, Resource, ServerCapabilities, Tool } from '../protocol/types.js';
import type { ReadResourceResult, SubscriptionFilter } from '../protocol/params.js';
import type { Era } from '../protocol/era.js';
import type { TaskStore } from '../state/task-store.js';
import type { RequestContext } from './context.js';

/**
 * The seam through which a feature joins a server without the core knowing it by name: it adds
 * methods, capabilities, per-request context and tool behaviour. Tasks (both flavours) are built
 * on it; see CONTRIBUTING.md for how to add one.
 *
 * An extension is installed once per server (`new McpServer({ extensions: [...] })` or
 * `server.install(ext)`); `setup` registers its methods and returns the hooks it wants.
 */
export interface ServerExtension {
  /** A stable name: the 2026-07-28 capability key for protocol extensions (`io.modelcontextprotocol/tasks`). */
  readonly name: string;
  setup(api: ExtensionApi): ExtensionHooks | void;
}

/** A method handler as the server core runs it. */
export type ExtensionMethodHandler = (params: JsonObject | undefined, ctx: RequestContext) => Promise<JsonObject> | JsonObject;

/** What an extension may use of the server: narrow on purpose, so features stay out of each other's way. */
export interface ExtensionApi {
  readonly info: Implementation;
  /** The server's declared capabilities (read them when a request arrives: they may still grow). */
  capabilities(): ServerCapabilities;
  /**
   * Serves `method`. With `era`, only in that era: a method two extensions share across eras
   * (`tasks/get`) is answered by the one of the request's era, and -32601 where neither is.
   */
  setRequestHandler(method: string, handler: ExtensionMethodHandler, options?: { era?: Era }): void;
  /** Problems with no request to report them on. */
  onerror(error: Error): void;
  /** Sends `data` to this extension on every other instance of the deployment (nothing without a bus). */
  relay(data: JsonObject): void;
  /** Delivers a notification to the 2026-07-28 listen streams whose filter `match`es (tagged with their id). */
  publish(method: string, params: JsonObject, match: (filter: SubscriptionFilter) => boolean): void;
  /**
   * The cache hint the server is configured with for `method` (2026-07-28 `ttlMs` / `cacheScope`),
   * for an extension's own cacheable results.
   */
  cacheHint(method: string): { ttlMs: number; scope: CacheScope };
  /** The deployment's task store set on the server (`Server.share`), if any: ask when storing. */
  sharedTaskStore?(): TaskStore | undefined;
}

/**
 * Resources an extension serves beside the registered ones (skill files). An `McpServer` with an
 * extension that has them declares `resources` and answers `resources/list` and `resources/read`
 * with them after its own.
 */
export interface ExtensionResources {
  /** Resources shown in `resources/list`, after the registered ones. */
  list?(ctx: RequestContext): Resource[] | Promise<Resource[]>;
  /** The contents of `uri`, or undefined when it is not this extension's. */
  read(uri: string, ctx: RequestContext): ReadResourceResult | undefined | Promise<ReadResourceResult | undefined>;
}

export interface ExtensionHooks {
  /** Settings under `capabilities.extensions[name]` in `server/discover`; undefined: not advertised. */
  discover?(): JsonObject | undefined;
  /**
   * Capabilities added to a handshake-era `initialize` result at `protocolVersion`
   * (`extensions` entries are merged with other extensions').
   */
  initialize?(protocolVersion: string): ServerCapabilities | undefined;
  /**
   * Acknowledges this extension's part of a `subscriptions/listen` filter (what it can deliver
   * to this caller); the rest of the filter is the core's.
   */
  listen?(want: SubscriptionFilter, request: ListenRequest): Promise<Partial<SubscriptionFilter> | undefined> | Partial<SubscriptionFilter> | undefined;
  /** Tool config keys this extension reads (a key nobody reads is refused at registration). */
  readonly toolOptions?: readonly string[];
  /** Called for every tool registered (and re-registered on update); undefined: no part in it. */
  tool?(name: string, config: Readonly<Record<string, unknown>>): ToolHook | undefined;
  /** Resources this extension serves through `resources/list` and `resources/read`. */
  readonly resources?: ExtensionResources;
  /** What this extension on another instance `relay`ed. */
  relayed?(data: JsonObject): void;
  /**
   * Wraps the serving of every request, in both eras and on every transport, before the era
   * reads it (tracing). Observers of several extensions nest in installation order.
   */
  observe?: RequestObserver;
  /**
   * Message middleware for each new handshake-era session (its own instance per connection:
   * request ids are per connection). Sees what `observe` does not: the requests the server
   * sends its client, notifications both ways. Undefined: none for this session.
   */
  sessionMiddleware?(): MessageMiddleware | undefined;
  /** Server shutdown: runs before listen streams end and transports close. */
  close?(): Promise<void> | void;
}

/**
 * Sees one request from its arrival to its answer: `next()` serves it (its result, or what it
 * throws or rejects with, is the answer). `connection` is undefined for a 2026-07-28 request
 * served outside any connection (an HTTP POST).
 */
export type RequestObserver = (
  request: JsonRpcRequest,
  inbound: InboundRequest,
  connection: ObservedConnection | undefined,
  next: () => Promise<JsonObject> | JsonObject,
) => Promise<JsonObject> | JsonObject;

/** What an observer may know of the connection a request came on. */
export interface ObservedConnection {
  /** The handshake's revision (undefined before `initialize` is answered). */
  readonly protocolVersion: string | undefined;
  readonly transportKind: TransportKind | undefined;
  onClose(listener: (reason?: Error) => void): void;
}

/** Who opened a listen stream. */
export interface ListenRequest {
  readonly clientCapabilities: ClientCapabilities;
  readonly principal: string | undefined;
  /** The caller's credential as the transport saw it. */
  readonly authInfo: AuthInfo | undefined;
  /** Fires when the stream ends (the client let go, or the server closed it): what it held is released. */
  readonly signal: AbortSignal;
}

/** An extension's part in one tool. */
export interface ToolHook {
  /**
   * The tool as `tools/list` shows it to this request; return `wire` itself when unchanged, or
   * undefined to leave it out of this request's list (an MCP Apps tool only an app may call,
   * listed to a client that cannot run apps).
   */
  list?(wire: Tool, ctx: RequestContext): Tool | undefined;
  /** Wraps `tools/call`; `next(ctx)` validates the arguments and runs the handler with that context. */
  call?(params: JsonObject | undefined, ctx: RequestContext, next: (ctx: RequestContext) => Promise<JsonObject> | JsonObject): Promise<JsonObject> | JsonObject;
  /** An `McpError` thrown by the handler is a protocol error, never an `isError` result. */
  readonly protocolErrors?: boolean;
}

/**
 * What an extension attaches to one 2026-07-28 request's context once it takes the work over
 * (a task): the request has been answered, so reports go nowhere and questions go to `input`.
 */
export interface ContextBinding {
  /** Replaces the request's signal while set. */
  readonly signal: AbortSignal | undefined;
  /** `ctx.taskId`. */
  readonly taskId: string | undefined;
  /** True once the request has been answered: progress, log and notify send nothing. */
  readonly detached: boolean;
  /** Where elicit/sample/roots go once detached. */
  input(method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', params: unknown, key: string | undefined): Promise<unknown>;
  /** `ctx.startTask()`; undefined when this request cannot become one. */
  readonly start: (() => Promise<void>) | undefined;
}

/** Flattens and checks what `extensions` options hold (a factory may return several). */
export function flattenExtensions(list: ReadonlyArray<ServerExtension | readonly ServerExtension[]> | undefined): ServerExtension[] {
  const out: ServerExtension[] = [];
  for (const e of list ?? []) {
    for (const x of Array.isArray(e) ? (e as readonly ServerExtension[]) : [e as ServerExtension]) {
      if (!x || typeof x.name !== 'string' || typeof x.setup !== 'function') {
        throw new TypeError('extensions: each entry must be a ServerExtension ({ name, setup(api) }), e.g. tasks()');
      }
      out.push(x);
    }
  }
  return out;
}
