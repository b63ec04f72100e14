// mount(): another server's tools, prompts and resources inside an McpServer, under a namespace:
// a server defined in this process, a stdio command, or a remote URL. A live link: items the
// mounted server adds or removes later (list_changed) appear and go, and a lost stdio/HTTP server
// is reconnected.
import { createLinkedPair } from '../transports/memory/index.js';
import { ServerPool } from '../pool/pool.js';
import type { Target } from '../pool/targets.js';
import type { ServerSpec } from '../pool/pool-types.js';
import { McpServer } from '../server/mcp-server.js';
import { Server } from '../server/server.js';
import type { Registered } from '../server/registry.js';
import type { ToolUpdate } from '../server/tools.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { CallToolResult } from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import type { Subscription } from '../client/listen.js';
import { followListChanges } from './list-changes.js';
import { mountedLists } from './mount-lists.js';
import { InputRouter } from './routing.js';

export interface MountOptions {
  /**
   * Goes in front of every mounted tool's and prompt's name, with `separator`; resource URIs
   * become `mcpgw://<namespace>/<the mounted server's URI>`, as behind the gateway.
   */
  namespace: string;
  /** Default `_`. */
  separator?: string;
  /** Tools offered: exact names or globs. Default all. */
  allow?: readonly string[];
  /** Tools never offered (wins over `allow`). */
  deny?: readonly string[];
}

export interface Mounted {
  /** The namespaced names currently mounted. */
  tools(): string[];
  prompts(): string[];
  /** The mounted resources' URIs (`mcpgw://...`). */
  resources(): string[];
  /** The mounted resource templates' names (namespaced like prompts). */
  resourceTemplates(): string[];
  /** Resolves once the mounted server has been connected (or failed its first attempt) and its items registered. */
  readonly ready: Promise<void>;
  /** Removes the mounted items and closes the connection. */
  close(): Promise<void>;
}

/**
 * Mounts `source` into `server` under `namespace`: its tools become `<namespace>_<tool>` of
 * `server`, their calls forwarded (progress and cancellation included); its prompts
 * `<namespace>_<prompt>`, its resources and templates `mcpgw://<namespace>/<uri>`. `source` is an
 * McpServer (or Server) of this process, a TARGET string (URL or command line) or a Target.
 *
 *   const mounted = mount(app, weather, { namespace: 'weather' });
 *   await mounted.ready; // app now has weather_forecast, weather_brief (a prompt), ...
 */
export function mount(server: McpServer, source: McpServer | Server | Target | string, options: MountOptions): Mounted {
  const { namespace, allow, deny } = options;
  if (!/^[a-zA-Z0-9_-]+$/.test(namespace)) throw new TypeError(`mount: the namespace "${namespace}" must be letters, digits, "_" or "-"`);
  const settings = { allow, deny, prefix: 'always' as const };
  let spec: ServerSpec;
  if (source instanceof McpServer || source instanceof Server) {
    const local = source;
    spec = {
      name: namespace,
      ...settings,
      // A fresh in-memory connection per attempt, so a reconnect works like any other.
      transport: () => {
        const [client, end] = createLinkedPair();
        void local.connect(end);
        return client;
      },
    };
  } else spec = { name: namespace, ...settings, target: source };
  // The mounted server's questions (elicitation, sampling) go to the client whose call it is.
  const router = new InputRouter();
  const owners = new WeakMap<object, string>();
  let calls = 0;
  const ownerOf = (ctx: RequestContext) => {
    // A session is one client; a stateless request is its own (none is guessed between two).
    if (!ctx.session) return `request:${++calls}`;
    let id = owners.get(ctx.session);
    if (id === undefined) owners.set(ctx.session, (id = `session:${++calls}`));
    return id;
  };
  const pool = new ServerPool({
    servers: [spec],
    prefix: 'always',
    separator: options.separator,
    roots: [],
    handlers: {
      elicitation: (name, params, ctx) => router.route(name, ctx.signal).elicit(params, { signal: ctx.signal }),
      sampling: (name, params, ctx) => router.route(name, ctx.signal).sample(params, { signal: ctx.signal }),
    },
  });
  const registered = new Map<string, Registered<ToolUpdate>>();
  let closed = false;

  const sync = () => {
    if (closed) return;
    const now = new Map(pool.tools().map((t) => [t.name, t]));
    for (const [name, reg] of registered) {
      if (!now.has(name)) {
        reg.remove();
        registered.delete(name);
      }
    }
    for (const [name, t] of now) {
      const { name: _n, inputSchema, outputSchema, ...rest } = t.tool;
      const config = { ...rest, input: inputSchema as JsonObject, ...(outputSchema ? { output: outputSchema as JsonObject } : {}) };
      const handler = async (args: Record<string, unknown>, ctx: RequestContext) => {
        const flight = router.begin(namespace, ctx, ownerOf(ctx));
        try {
          return (await pool.call(name, args, {
            signal: flight.signal,
            onprogress: (p) => void ctx.progress(p.progress, p.total, p.message),
          })) as CallToolResult;
        } finally {
          flight.end();
        }
      };
      const existing = registered.get(name);
      if (existing) existing.update({ ...config, handler } as never);
      else registered.set(name, server.tool(name, config as never, handler as never));
    }
  };
  pool.onChange(sync);

  const lists = mountedLists(server, namespace, options.separator ?? '_', () => pool.client(namespace));
  let listening: Subscription | undefined;
  pool.on('connected', () => {
    const client = pool.client(namespace);
    listening?.close().catch(() => {});
    listening = client && followListChanges(client, () => void lists.sync());
    void lists.sync();
  });
  pool.on('closed', () => void lists.sync());
  const ready = pool.start().then(async () => {
    sync();
    // Ready means following changes too: one made right after is not missed.
    await listening?.acknowledged.catch(() => {});
    await lists.sync();
  });

  return {
    tools: () => [...registered.keys()],
    prompts: lists.prompts,
    resources: lists.resources,
    resourceTemplates: lists.resourceTemplates,
    ready,
    async close() {
      closed = true;
      for (const reg of registered.values()) reg.remove();
      registered.clear();
      lists.clear();
      await listening?.close().catch(() => {});
      await pool.close();
    },
  };
}
