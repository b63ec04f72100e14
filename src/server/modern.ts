import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcRequest } from '../jsonrpc/messages.js';
import { responseTo, type InboundRequest } from '../engine/inbound.js';
import type { Clock } from '../engine/clock.js';
import { CACHEABLE, META, MRTR_METHODS, readEnvelope, REMOVED_IN_MODERN, type ModernEnvelope } from '../protocol/modern.js';
import type { ServerIdentity } from '../protocol/handshake.js';
import type { CacheScope, Implementation, ServerCapabilities } from '../protocol/types.js';
import type { SubscriptionFilter } from '../protocol/params.js';
import { MODERN_VERSIONS } from '../protocol/versions.js';
import type { RequestContext } from './context.js';
import type { ListenRequest, RequestObserver } from './extension.js';
import { ModernContext } from './modern-context.js';
import { RequestStateSealer } from './mrtr.js';
import { MrtrRounds, type SuspendOptions } from './mrtr-rounds.js';

/** What the 2026-07-28 era needs of its server (the Server is one; an interface keeps the two apart). */
export interface ModernHost {
  readonly info: Implementation;
  readonly capabilities: ServerCapabilities;
  onerror(error: Error): void;
  warn(message: string): void;
  identity(): ServerIdentity;
  dispatch(method: string, params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> | JsonObject;
  discoverExtensions(): Record<string, JsonObject> | undefined;
  listenExtensions(want: SubscriptionFilter, request: ListenRequest): Promise<Partial<SubscriptionFilter>>;
  readonly observer: RequestObserver | undefined;
}

export interface CacheHint {
  ttlMs: number;
  scope: CacheScope;
}

export interface ModernOptions {
  /** Stateless-era revisions to accept. Default ['2026-07-28']. */
  versions?: readonly string[];
  /** HMAC key for MRTR `requestState`; set it when several instances serve one client. */
  stateSecret?: string | Uint8Array;
  /** How long an `input_required` round stays answerable. Default 10 minutes. */
  stateTtlMs?: number;
  /**
   * A handler waiting for input is kept on the instance that asked, and its retry resumes it
   * there (code before `ctx.elicit` runs once); a retry that lands elsewhere replays it. Bounds:
   * `max` runs at once (default 1000, the oldest given up first) for `ttlMs` each (default
   * `stateTtlMs`). `false` keeps none: every retry replays the handler from the top. On Cloudflare
   * Workers the default keeps none (a run cannot be resumed from another request's context there).
   */
  suspend?: SuspendOptions | false;
  /** Where `requestState` expiry reads the time (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
  /** Cache hints for cacheable results: a default, and per method (e.g. 'tools/list'). */
  cache?: Partial<CacheHint> & { methods?: Record<string, Partial<CacheHint>> };
}

interface Listen {
  id: string | number;
  filter: SubscriptionFilter;
  inbound: InboundRequest;
  end: () => void;
  /** Settles once the stream is over and its final result (if any) was handed to the transport. */
  over: Promise<void>;
}

const LIST_FLAGS: Record<string, keyof SubscriptionFilter> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

/**
 * The 2026-07-28 era, server side: per-request envelopes, `server/discover`, multi round-trip
 * requests, `subscriptions/listen` and cache hints. Stateless by construction: everything it
 * needs arrives with each request, so one instance serves every connection.
 */
export class ModernEra {
  readonly versions: readonly string[];
  readonly sealer: RequestStateSealer;
  /** Multi round-trip requests, and the handler runs waiting for their retries. */
  readonly rounds: MrtrRounds;
  private readonly listens = new Set<Listen>();

  /** The `_meta` of a result that has none of its own; copied per result, never shared. */
  private readonly baseMeta: JsonObject;
  /** Cache hints by method: the options are fixed once the server is built. */
  private readonly hints = new Map<string, CacheHint>();

  constructor(
    private readonly server: ModernHost,
    private readonly o: ModernOptions = {},
  ) {
    this.versions = o.versions ?? MODERN_VERSIONS;
    this.sealer = new RequestStateSealer({ secret: o.stateSecret, ttlMs: o.stateTtlMs, clock: o.clock });
    this.rounds = new MrtrRounds(
      this.sealer,
      {
        dispatch: (method, params, ctx) => server.dispatch(method, params, ctx),
        decorate: (method, r) => this.decorate(method, r),
        onerror: (e) => server.onerror(e),
        warn: (m) => server.warn(m),
      },
      o.suspend,
    );
    this.baseMeta = { [META.serverInfo]: server.info };
  }

  /**
   * Serves one request. Synchronous when the handler is (no promise between the engine and the
   * handler); errors may be thrown or rejected, the engine takes both.
   */
  handle(req: JsonRpcRequest, inbound: InboundRequest): Promise<JsonObject> | JsonObject {
    const { method, params } = req;
    const env = readEnvelope(params, this.versions);
    if (REMOVED_IN_MODERN.has(method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} (removed in protocol version ${env.protocolVersion})`);
    if (method === 'server/discover') return this.decorate(method, this.discover());
    if (method === 'subscriptions/listen') return this.listen(params, inbound, env);
    // An unknown method is -32601 from dispatch, after request middleware saw it (as in the
    // handshake era: middleware may observe or implement any method).
    const logging = this.server.capabilities.logging !== undefined;
    if (!MRTR_METHODS.has(method)) {
      const result = this.server.dispatch(method, params, new ModernContext(inbound, env, undefined, logging));
      return isThenable(result) ? Promise.resolve(result).then((r) => this.decorate(method, r)) : this.decorate(method, result);
    }
    return this.rounds.serve(method, params, inbound, env, logging);
  }

  /**
   * Serves one request that arrived outside any connection (a 2026-07-28 HTTP POST): no session,
   * no engine. `inbound`'s sink is the request's own response stream; the answer goes there,
   * unless the request was cancelled meanwhile.
   */
  serve(inbound: InboundRequest): void {
    let result: Promise<JsonObject> | JsonObject;
    const observe = this.server.observer;
    try {
      result =
        observe === undefined
          ? this.handle(inbound.request, inbound)
          : observe(inbound.request, inbound, undefined, () => this.handle(inbound.request, inbound));
    } catch (err) {
      return this.answer(inbound, false, err);
    }
    if (isThenable(result))
      result.then(
        (r) => this.answer(inbound, true, r),
        (err: unknown) => this.answer(inbound, false, err),
      );
    else this.answer(inbound, true, result);
  }

  private answer(inbound: InboundRequest, ok: boolean, value: unknown): void {
    const response = responseTo(inbound, ok, value, this.server.onerror);
    inbound.finish();
    if (!inbound.cancelled) inbound.peer.respond(response).catch((e: unknown) => this.server.onerror(e instanceof Error ? e : new Error(String(e))));
  }

  discover(): JsonObject {
    const id = this.server.identity();
    let capabilities = id.capabilities;
    // Only here, not in the shared capabilities: the handshake era has no extensions.
    const ext = this.server.discoverExtensions();
    if (ext !== undefined) capabilities = { ...capabilities, extensions: { ...capabilities.extensions, ...ext } };
    const r: JsonObject = { supportedVersions: [...this.versions], capabilities };
    if (id.instructions !== undefined) r.instructions = id.instructions;
    return r;
  }

  /** Adds what every 2026-07-28 result carries: resultType, serverInfo, and cache hints. */
  private decorate(method: string, result: JsonObject): JsonObject {
    // Always new objects: the handler's result may be its own constant, and message middleware
    // may change what it is sent.
    const own = result._meta as JsonObject | undefined;
    let meta: JsonObject;
    if (own === undefined || own === null) meta = { ...this.baseMeta };
    else {
      meta = copy(own);
      meta[META.serverInfo] = this.server.info;
    }
    const out = copy(result);
    out.resultType ??= 'complete';
    out._meta = meta;
    if (out.resultType === 'input_required') return out;
    if (CACHEABLE.has(method)) {
      let hint = this.hints.get(method);
      if (hint === undefined) this.hints.set(method, (hint = this.cacheHint(method)));
      if (out.ttlMs === undefined) out.ttlMs = hint.ttlMs;
      if (out.cacheScope === undefined) out.cacheScope = hint.scope;
    }
    return out;
  }

  cacheHint(method: string): CacheHint {
    const c = this.o.cache;
    const m = c?.methods?.[method];
    // ttlMs is an integer >= 0 on the wire (SEP-2549): a bad configured value means 0.
    const ttl = m?.ttlMs ?? c?.ttlMs ?? 0;
    return { ttlMs: Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0, scope: m?.scope ?? c?.scope ?? 'private' };
  }

  private async listen(params: JsonObject | undefined, inbound: InboundRequest, env: ModernEnvelope): Promise<JsonObject> {
    const asked = params?.notifications;
    if (!asked || typeof asked !== 'object' || Array.isArray(asked)) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: subscriptions/listen needs "notifications" (a filter object)');
    }
    const want = asked as SubscriptionFilter;
    const caps = this.server.capabilities;
    // Acknowledge only what this server can deliver.
    const filter: SubscriptionFilter = {};
    if (want.toolsListChanged && caps.tools?.listChanged) filter.toolsListChanged = true;
    if (want.promptsListChanged && caps.prompts?.listChanged) filter.promptsListChanged = true;
    if (want.resourcesListChanged && caps.resources?.listChanged) filter.resourcesListChanged = true;
    if (Array.isArray(want.resourceSubscriptions) && caps.resources?.subscribe) {
      filter.resourceSubscriptions = want.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
    }
    // Extensions acknowledge their own parts (tasks: taskIds); `over` tells them when the stream ends.
    const over = new AbortController();
    const authInfo = inbound.info?.authInfo;
    try {
      Object.assign(
        filter,
        await this.server.listenExtensions(want, { clientCapabilities: env.clientCapabilities, principal: authInfo?.principal, authInfo, signal: over.signal }),
      );
    } catch (err) {
      over.abort();
      throw err;
    }
    const id = inbound.id;
    const tag = { [META.subscriptionId]: id };
    let end!: () => void;
    let done!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const listen: Listen = { id, filter, inbound, end, over: new Promise<void>((resolve) => (done = resolve)) };
    this.listens.add(listen);
    const onAbort = () => end();
    inbound.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await inbound.notify('notifications/subscriptions/acknowledged', { notifications: filter, _meta: tag } as unknown as JsonObject);
      await ended;
      this.listens.delete(listen); // now, not in finally: no notification may follow the final result
      const result: JsonObject = { resultType: 'complete', _meta: { ...tag, [META.serverInfo]: this.server.info } };
      // Cancelled by the client or the connection dropped: nothing more may be sent.
      if (inbound.cancelled) return result;
      // A graceful end (server.close()): the final result is sent here rather than returned, so
      // that endAll() knows when it is on the wire and the transports can be closed after it.
      // The engine must then not send a second response: marking the request cancelled does that.
      await inbound.peer.respond({ jsonrpc: '2.0', id, result }).catch((e: unknown) => this.server.onerror(e instanceof Error ? e : new Error(String(e))));
      inbound.cancel('subscription ended by the server');
      return result;
    } finally {
      this.listens.delete(listen);
      inbound.signal.removeEventListener('abort', onAbort);
      over.abort();
      done();
    }
  }

  /** Delivers a server notification to every listen stream whose filter asks for it. */
  publish(method: string, params: JsonObject | undefined): void {
    if (this.listens.size === 0) return;
    const flag = LIST_FLAGS[method];
    const uri = method === 'notifications/resources/updated' ? (params?.uri as string | undefined) : undefined;
    if (!flag && uri === undefined) return; // progress and logs never travel on listen streams
    for (const l of this.listens) {
      if (flag ? !l.filter[flag] : !l.filter.resourceSubscriptions?.includes(uri!)) continue;
      const tagged = { ...params, _meta: { ...(params?._meta as JsonObject | undefined), [META.subscriptionId]: l.id } };
      l.inbound.notify(method, tagged).catch((e: unknown) => this.server.onerror(e instanceof Error ? e : new Error(String(e))));
    }
  }

  /** Delivers an extension's notification to the listen streams whose filter `match`es (tasks: `notifications/tasks`). */
  publishWhere(method: string, params: JsonObject, match: (filter: SubscriptionFilter) => boolean): void {
    if (this.listens.size === 0) return;
    for (const l of this.listens) {
      if (!match(l.filter)) continue;
      const tagged = { ...params, _meta: { ...(params._meta as JsonObject | undefined), [META.subscriptionId]: l.id } };
      l.inbound.notify(method, tagged).catch((e: unknown) => this.server.onerror(e instanceof Error ? e : new Error(String(e))));
    }
  }

  /**
   * Ends every listen stream gracefully. Resolves once each final result has been handed to
   * the transport: await it before closing transports, or the final results are lost.
   */
  endAll(): Promise<void> {
    const all = [...this.listens];
    for (const l of all) l.end();
    return Promise.all(all.map((l) => l.over)).then(() => undefined);
  }

  get listenCount(): number {
    return this.listens.size;
  }
}

/**
 * A shallow copy to add properties to. On Node 20 (V8 11.3) adding properties to a `{ ...o }`
 * copy, or writing `{ ...o, k: v }`, costs ~1.7 µs (the copy's map has no transitions to
 * reuse); Object.assign onto `{}` costs ~0.07 µs. An own `__proto__` key (a handler's parsed
 * JSON) needs the spread's define semantics: Object.assign would set the prototype instead.
 */
function copy(o: JsonObject): JsonObject {
  return Object.hasOwn(o, '__proto__') ? { ...o } : Object.assign({}, o);
}

function isThenable(v: unknown): v is PromiseLike<JsonObject> {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
}
