// A lane: backends behind one ServerPool, the router that sends their questions to the call that
// caused them, and the indexes a relay answers from: tools, prompts, resources and templates under
// the names clients see, each with the item the policy judges. The indexes follow the pool's
// lists, which list_changed keeps fresh, and are rebuilt on the first use after a change: a call
// finds its name with one map lookup, whatever the number of backends.
import type { McpClient } from '../../client/client.js';
import { ErrorCode, LocalError, McpError } from '../../jsonrpc/errors.js';
import type { ClientOptions } from '../../client/options.js';
import type { LoggingLevel, Prompt, Resource, ResourceTemplate, Root, Tool } from '../../protocol/types.js';
import { entryKey } from '../../pool/names.js';
import { ServerPool } from '../../pool/pool.js';
import type { PoolEvent, PoolHandlers, PoolOptions, ServerSpec } from '../../pool/pool-types.js';
import type { HostTool } from '../../pool/tool-source.js';
import type { RequestContext } from '../../server/context.js';
import { InputRequiredSignal } from '../../server/mrtr.js';
import type { GatewayItem } from '../policy-types.js';
import { InputRouter, type RouterWords } from '../routing.js';
import type { RelayNaming } from './naming.js';
import { UpstreamSubscriptions } from './subscriptions.js';

/** What changed, for the list_changed notifications a relay sends. */
export type ListKind = 'tools' | 'prompts' | 'resources';

/** One item as clients see it (`value`), and as the policy judges it (`item`). */
export interface Entry<T> {
  readonly item: GatewayItem;
  readonly value: T;
}

export interface ToolEntry extends Entry<Tool> {
  /** The pool's tool, to call without resolving its name again. */
  readonly tool: HostTool;
}

export interface LaneOptions {
  /** Whose lane: `shared`, or a client's owner key (reported with its events). */
  owner: string;
  naming: RelayNaming;
  /** The pool's options (naming, lists and handlers are the lane's). */
  pool?: Omit<PoolOptions, 'handlers' | 'onEvent' | 'lists' | 'prefix' | 'separator' | 'namePattern'>;
  /** How a refused question is worded (the gateway's by default). */
  words?: RouterWords;
  /**
   * Backends asking for roots are answered by the client whose call they work for (a bridge);
   * `fallback` answers a question no call can be found for. Unset: they are given `pool.roots`.
   */
  roots?: { fallback?: (signal: AbortSignal) => Promise<Root[]> };
  /** A list changed (or a backend came or went): the relay tells its clients. */
  changed(kind: ListKind): void;
  /** A resource a client subscribed to changed; `uri` is the one the client knows. */
  updated(uri: string): void;
  onEvent?(event: PoolEvent): void;
}

export class Lane {
  readonly pool: ServerPool;
  readonly router: InputRouter;
  readonly owner: string;
  readonly subscriptions: UpstreamSubscriptions;
  private readonly naming: RelayNaming;
  private readonly handlers: PoolHandlers;
  private tools?: { list: ToolEntry[]; byName: Map<string, ToolEntry> };
  private prompts?: { list: Entry<Prompt>[]; byName: Map<string, Entry<Prompt>> };
  private resources?: { list: Entry<Resource>[]; templates: Entry<ResourceTemplate>[]; byTemplate: Map<string, Entry<ResourceTemplate>> };

  constructor(o: LaneOptions) {
    this.owner = o.owner;
    this.naming = o.naming;
    const router = new InputRouter(o.words);
    this.router = router;
    this.subscriptions = new UpstreamSubscriptions((server) => this.pool.client(server));
    this.handlers = this.asks(o);
    this.pool = new ServerPool({
      ...o.pool,
      ...o.naming.tools,
      lists: ['prompts', 'resources'],
      handlers: this.handlers,
      onEvent: (event) => {
        if (event.type === 'toolsChanged') {
          this.tools = undefined;
          o.changed('tools');
        } else if (event.type === 'listChanged') {
          if (event.list === 'prompts') this.prompts = undefined;
          else this.resources = undefined;
          o.changed(event.list);
        } else if (event.type === 'connected') {
          const client = this.pool.client(event.server);
          if (client) this.follow(event.server, client, o);
        }
        o.onEvent?.(event);
      },
    });
  }

  /** Adds a backend; resolves once it is connected and followed (or its first attempt failed). */
  async add(spec: ServerSpec): Promise<void> {
    await this.pool.add(spec);
    await this.pool.listening(spec.name);
  }

  /** The handlers a client of this lane answers its server's questions with (for a client made elsewhere). */
  clientHandlers(server: string): Pick<ClientOptions, 'elicitation' | 'sampling' | 'roots'> {
    const h = this.handlers;
    return {
      elicitation: (params, ctx) => h.elicitation!(server, params, ctx),
      sampling: (params, ctx) => h.sampling!(server, params, ctx),
      ...(h.roots ? { roots: (ctx: { signal: AbortSignal }) => h.roots!(server, ctx) } : {}),
    };
  }

  tool(name: string): ToolEntry | undefined {
    return this.toolIndex().byName.get(name);
  }

  toolList(): readonly ToolEntry[] {
    return this.toolIndex().list;
  }

  prompt(name: string): Entry<Prompt> | undefined {
    return this.promptIndex().byName.get(name);
  }

  promptList(): readonly Entry<Prompt>[] {
    return this.promptIndex().list;
  }

  resourceList(): readonly Entry<Resource>[] {
    return this.resourceIndex().list;
  }

  templateList(): readonly Entry<ResourceTemplate>[] {
    return this.resourceIndex().templates;
  }

  /** A template by the URI template clients see (completion's `ref/resource`). */
  template(uriTemplate: string): Entry<ResourceTemplate> | undefined {
    return this.resourceIndex().byTemplate.get(uriTemplate);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private toolIndex() {
    if (this.tools) return this.tools;
    // Listed as the backends list them: each backend in turn, its tools in its own order.
    const offered = new Map(this.pool.tools().map((t) => [entryKey({ server: t.server, name: t.tool.name }), t]));
    const list: ToolEntry[] = [];
    for (const server of this.pool.names()) {
      for (const tool of this.pool.catalog(server)?.tools ?? []) {
        const t = offered.get(entryKey({ server, name: tool.name }));
        if (!t) continue;
        list.push({
          tool: t,
          item: { kind: 'tool', name: t.name, server: t.server, original: t.tool.name },
          value: t.name === t.tool.name ? t.tool : { ...t.tool, name: t.name },
        });
      }
    }
    this.tools = { list, byName: new Map(list.map((e) => [e.item.name, e])) };
    return this.tools;
  }

  private promptIndex() {
    if (this.prompts) return this.prompts;
    const found: Array<{ server: string; prompt: Prompt }> = [];
    for (const server of this.pool.names()) for (const prompt of this.pool.catalog(server)?.prompts ?? []) found.push({ server, prompt });
    const names = this.naming.prompts(found.map(({ server, prompt }) => ({ server, name: prompt.name })));
    const list = found.map(({ server, prompt }): Entry<Prompt> => {
      const name = names.get(entryKey({ server, name: prompt.name }))!;
      return { item: { kind: 'prompt', name, server, original: prompt.name }, value: name === prompt.name ? prompt : { ...prompt, name } };
    });
    this.prompts = { list, byName: new Map(list.map((e) => [e.item.name, e])) };
    return this.prompts;
  }

  private resourceIndex() {
    if (this.resources) return this.resources;
    const list: Entry<Resource>[] = [];
    const templates: Entry<ResourceTemplate>[] = [];
    for (const server of this.pool.names()) {
      const catalog = this.pool.catalog(server);
      if (!catalog) continue;
      for (const r of catalog.resources) {
        // Listed under its canonical URI: what a client reads back is what the rules were asked about.
        const named = this.naming.resource(server, r.uri);
        if (named)
          list.push({ item: { kind: 'resource', name: named.name, server, original: named.uri }, value: named.name === r.uri ? r : { ...r, uri: named.name } });
      }
      for (const t of catalog.resourceTemplates) {
        const name = this.naming.template(server, t.uriTemplate);
        templates.push({ item: { kind: 'resource', name, server, original: t.uriTemplate }, value: name === t.uriTemplate ? t : { ...t, uriTemplate: name } });
      }
    }
    this.resources = { list, templates, byTemplate: new Map(templates.map((t) => [t.item.name, t])) };
    return this.resources;
  }

  /** A backend connected: its log lines, resource updates and (again) the subscriptions held on it. */
  private follow(server: string, client: McpClient, o: LaneOptions): void {
    // Everything the backend logs comes here; each client's own level filters it on the way out.
    if (client.serverCapabilities?.logging) client.setLoggingLevel('debug').catch(() => {});
    // A log line names no call: it goes to the client whose calls are in flight, if only one's are.
    client.on('notifications/message', (params: { level?: LoggingLevel; data?: unknown; logger?: string }) => {
      const call = this.router.sole(server);
      if (call && typeof params?.level === 'string') call.relay(call.ctx.log(params.level, params.data, params.logger ?? server));
    });
    client.on('notifications/resources/updated', (params: { uri?: unknown }) => {
      if (typeof params?.uri !== 'string') return;
      const named = this.naming.resource(server, params.uri);
      if (named && this.subscriptions.holds(server, named.uri)) o.updated(named.name);
    });
    this.subscriptions.renew(server);
  }

  /** The pool's answers to its servers' questions: asked of the call that caused them. */
  private asks(o: LaneOptions): PoolHandlers {
    const router = () => this.router;
    const roots = o.roots;
    /** Asks the call's client; an answer its round cannot use ends the forwarded call too. */
    const ask = async <T>(call: RequestContext, asking: () => Promise<T>): Promise<T> => {
      try {
        return await asking();
      } catch (err) {
        if (err instanceof InputRequiredSignal) router().abort(call, err);
        throw err;
      }
    };
    return {
      elicitation: (server, params, ctx) => {
        const call = router().route(server, ctx.signal, 'an elicitation request');
        return ask(call, () => call.elicit(params, { signal: ctx.signal }));
      },
      sampling: (server, params, ctx) => {
        const call = router().route(server, ctx.signal, 'a sampling request');
        return ask(call, () => call.sample(params, { signal: ctx.signal }));
      },
      ...(roots && {
        roots: async (server: string, ctx: { signal: AbortSignal }) => {
          const call = roots.fallback ? router().find(server, ctx.signal) : router().route(server, ctx.signal, 'a roots request');
          try {
            return await (call ? ask(call, () => call.roots({ signal: ctx.signal })) : roots.fallback!(ctx.signal));
          } catch (err) {
            // "This client has no roots" is what -32601 means for roots/list.
            if (err instanceof LocalError && err.kind === 'capability')
              throw new McpError(ErrorCode.MethodNotFound, `Method not found: roots/list (${err.message})`);
            throw err;
          }
        },
      }),
    };
  }
}
