// mount(): another server's tools, prompts and resources inside an McpServer, under a namespace:
// a server defined in this process, a stdio command, or a remote URL. The relay core writing into
// an McpServer: one lane (relay/lane.ts) whose lists (kept fresh by the mounted server's
// list_changed) are registered on the McpServer (mount-sync.ts); calls, reads and completions are
// forwarded, the mounted server's questions go to the client whose call asked, subscriptions to
// mounted resources subscribe the mounted server, and a lost stdio/HTTP server is reconnected.
import { createLinkedPair } from '../transports/memory/index.js';
import type { Target } from '../pool/targets.js';
import type { ServerSpec } from '../pool/pool-types.js';
import { McpServer } from '../server/mcp-server.js';
import type { Session } from '../server/context.js';
import { Server } from '../server/server.js';
import { allowAllPolicy } from './allow-all.js';
import { parseGatewayUri } from './canonical.js';
import { mountItems } from './mount-sync.js';
import { Lane } from './relay/lane.js';
import { namespaced } from './relay/naming.js';
import { Owners } from './relay/owners.js';
import { forwarder } from './relay/forward.js';

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
  const separator = options.separator ?? '_';
  const settings = { allow, deny };
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
  const naming = namespaced(separator);
  const policy = allowAllPolicy();
  let items: ReturnType<typeof mountItems> | undefined;
  const lane = new Lane({
    owner: namespace,
    naming,
    pool: { servers: [], roots: [] },
    changed: (kind) => items?.sync(kind),
    updated: (uri) => server.resourceUpdated(uri),
  });
  items = mountItems({ server, lane, namespace, separator, naming, policy, forward: forwarder(policy, new Owners()) });
  const table = mountTable(server);
  table.set(namespace, lane);
  const ready = lane.add(spec).then(() => {
    for (const kind of ['tools', 'prompts', 'resources'] as const) items?.sync(kind);
  });

  return {
    tools: () => items.tools(),
    prompts: () => items.prompts(),
    resources: () => items.resources(),
    resourceTemplates: () => items.resourceTemplates(),
    ready,
    async close() {
      if (table.get(namespace) === lane) table.delete(namespace);
      items.clear();
      await lane.close();
    },
  };
}

/**
 * The mounts of one McpServer, by namespace, and what subscribes them: a client's subscription
 * to a mounted resource (resources/subscribe, or a 2026-07-28 listen stream) holds the mounted
 * server's subscription to its URI. Installed once per server, for all its mounts.
 */
const tables = new WeakMap<McpServer, Map<string, Lane>>();

function mountTable(server: McpServer): Map<string, Lane> {
  let table = tables.get(server);
  if (table) return table;
  const mounts = new Map<string, Lane>();
  table = mounts;
  tables.set(server, mounts);
  const target = (uri: unknown) => {
    const t = typeof uri === 'string' ? parseGatewayUri(uri) : undefined;
    const lane = t && mounts.get(t.server);
    return t && lane ? { lane, server: t.server, uri: t.uri } : undefined;
  };
  const watched = new WeakSet<Session>();
  server.use(async (method, params, ctx, next) => {
    const session = ctx.session;
    if (session && (method === 'resources/subscribe' || method === 'resources/unsubscribe')) {
      const t = target(params?.uri);
      if (t && method === 'resources/unsubscribe') t.lane.subscriptions.release(t.server, t.uri, session);
      else if (t) {
        await t.lane.subscriptions.hold(t.server, t.uri, session);
        if (!watched.has(session)) {
          watched.add(session);
          session.onClose(() => {
            for (const lane of mounts.values()) lane.subscriptions.releaseAll(session);
          });
        }
      }
    }
    return next();
  });
  server.server.install({
    name: 'mcpkit/mount-subscriptions',
    setup: () => ({
      listen: async (want, request) => {
        const holder = {};
        const holding: Array<NonNullable<ReturnType<typeof target>>> = [];
        for (const uri of want.resourceSubscriptions ?? []) {
          const t = target(uri);
          if (!t) continue;
          try {
            await t.lane.subscriptions.hold(t.server, t.uri, holder);
            holding.push(t);
          } catch {
            // The mounted server cannot: its updates do not come.
          }
        }
        const release = () => {
          for (const t of holding) t.lane.subscriptions.release(t.server, t.uri, holder);
        };
        if (request.signal.aborted) release();
        else request.signal.addEventListener('abort', release, { once: true });
        return undefined;
      },
    }),
  });
  return mounts;
}
