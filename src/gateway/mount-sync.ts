// The McpServer side of mount(): what the mounted server's lane lists (tools, prompts, resources
// and templates, under the gateway's names) is registered on the McpServer, and brought in line
// again whenever the lane says a list changed. Registering and removing is what makes the
// McpServer send its own list_changed to its clients. Every registered handler forwards through
// the relay core (relay/relay.ts): its questions go to the client whose call it is.
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { PromptArgument } from '../protocol/types.js';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../protocol/params.js';
import type { RequestContext } from '../server/context.js';
import type { McpServer } from '../server/mcp-server.js';
import type { Registered } from '../server/registry.js';
import type { Completer } from '../server/resources.js';
import { UriTemplate } from '../server/uri-template.js';
import type { GatewayPolicy } from './policy-types.js';
import type { Entry, Lane, ListKind, ToolEntry } from './relay/lane.js';
import type { RelayNaming } from './relay/naming.js';
import { backUris, callTool, type Forward } from './relay/forward.js';

export interface MountedItems {
  /** Brings the registrations of one kind in line with the lane. */
  sync(kind: ListKind): void;
  tools(): string[];
  prompts(): string[];
  resources(): string[];
  resourceTemplates(): string[];
  /** Removes everything registered. */
  clear(): void;
}

interface MountContext {
  server: McpServer;
  lane: Lane;
  namespace: string;
  separator: string;
  naming: RelayNaming;
  policy: GatewayPolicy;
  forward: Forward;
}

/** One kind of item: the lane's list, and how one is registered. */
interface Kind {
  list(): readonly Entry<unknown>[];
  key(e: Entry<unknown>): string;
  register(e: Entry<unknown>, key: string, had: Registered<never> | undefined): Registered<never>;
}

export function mountItems(m: MountContext): MountedItems {
  const { server, lane, naming, forward, policy } = m;
  const connected = (backend: string) => {
    const c = lane.pool.client(backend);
    if (!c) throw new McpError(ErrorCode.InternalError, `The mounted server "${m.namespace}" is not connected`);
    return c;
  };
  const who = (ctx: RequestContext) => policy.identify(ctx.authInfo);
  // A read is judged and sent as the gateway's routing reads the URI: one canonical form.
  const read = (uri: string, ctx: RequestContext, e: Entry<unknown>): Promise<ReadResourceResult> => {
    const target = naming.parse(uri);
    if (!target) throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
    const item = { ...e.item, name: target.name, original: target.uri };
    return forward(ctx, who(ctx), lane, item, undefined, async (signal) =>
      backUris(naming, await connected(target.server).request('resources/read', { uri: target.uri }, { signal }), target.server),
    ) as unknown as Promise<ReadResourceResult>;
  };
  /** Completers for `names`, asking the mounted server (when it completes anything). */
  const completers = (backend: string, ref: JsonObject, names: readonly string[]): Record<string, Completer> | undefined => {
    if (!lane.pool.client(backend)?.serverCapabilities?.completions || names.length === 0) return undefined;
    const ask =
      (name: string): Completer =>
      async (value, context, ctx) => {
        const r = await connected(backend).request('completion/complete', { ref, argument: { name, value }, context } as unknown as JsonObject, {
          signal: ctx.signal,
        });
        return ((r.completion as { values?: string[] } | undefined)?.values ?? []).filter((v) => typeof v === 'string');
      };
    return Object.fromEntries(names.map((n) => [n, ask(n)]));
  };

  const tool: Kind = {
    list: () => lane.toolList(),
    key: (e) => e.item.name,
    register: (e, key, had) => {
      const entry = e as ToolEntry;
      const { name: _n, inputSchema, outputSchema, ...rest } = entry.tool.tool;
      const config = { ...rest, input: inputSchema as JsonObject, ...(outputSchema ? { output: outputSchema as JsonObject } : {}) };
      const handler = (args: Record<string, unknown>, ctx: RequestContext) =>
        forward(ctx, who(ctx), lane, entry.item, args, (signal) => callTool(lane, entry, args, ctx, signal, key)) as unknown as Promise<CallToolResult>;
      // A tool that changed keeps its registration (and its place): updated in place.
      if (had) {
        had.update({ ...config, handler } as never);
        return had;
      }
      return server.tool(key, config as never, handler as never) as Registered<never>;
    },
  };
  const prompt: Kind = {
    list: () => lane.promptList(),
    key: (e) => e.item.name,
    register: (e, key) => {
      const { name: _n, arguments: args, ...rest } = e.value as { name: string; arguments?: PromptArgument[] };
      const complete = completers(
        e.item.server,
        { type: 'ref/prompt', name: e.item.original },
        (args ?? []).map((a) => a.name),
      );
      return server.prompt(
        key,
        { ...rest, args: args ?? [], ...(complete && { complete }) },
        (a, ctx) =>
          forward(ctx, who(ctx), lane, e.item, a as JsonObject, (signal) =>
            connected(e.item.server).request('prompts/get', { name: e.item.original, arguments: a as JsonObject }, { signal }),
          ) as unknown as Promise<GetPromptResult>,
      ) as Registered<never>;
    },
  };
  const resource: Kind = {
    list: () => lane.resourceList(),
    key: (e) => e.item.name,
    register: (e, key) => {
      const { name, uri: _u, ...config } = e.value as { name: string; uri: string };
      return server.resource(name, key, config, (u, ctx) => read(u, ctx, e)) as Registered<never>;
    },
  };
  const template: Kind = {
    list: () => lane.templateList(),
    // Templates are registered by name: the namespace keeps two mounted servers' names apart.
    key: (e) => `${m.namespace}${m.separator}${(e.value as { name: string }).name}`,
    register: (e, key) => {
      const { name: _n, uriTemplate, ...config } = e.value as { name: string; uriTemplate: string };
      const variables = new UriTemplate(e.item.original).variableNames;
      const complete = completers(e.item.server, { type: 'ref/resource', uri: e.item.original }, variables);
      return server.resourceTemplate(key, uriTemplate, { ...config, ...(complete && { complete }) }, (u, _vars, ctx) => read(u, ctx, e)) as Registered<never>;
    },
  };

  const held = new Map<ListKind, Array<{ kind: Kind; registered: Map<string, { reg: Registered<never>; wire: string }> }>>([
    ['tools', [{ kind: tool, registered: new Map() }]],
    ['prompts', [{ kind: prompt, registered: new Map() }]],
    [
      'resources',
      [
        { kind: resource, registered: new Map() },
        { kind: template, registered: new Map() },
      ],
    ],
  ]);
  let cleared = false;

  const apply = ({ kind, registered }: { kind: Kind; registered: Map<string, { reg: Registered<never>; wire: string }> }) => {
    const now = new Map(kind.list().map((e) => [kind.key(e), e]));
    for (const [key, { reg }] of registered) {
      if (!now.has(key)) {
        reg.remove();
        registered.delete(key);
      }
    }
    for (const [key, e] of now) {
      const wire = JSON.stringify(e.value);
      const had = registered.get(key);
      if (had?.wire === wire) continue;
      // Changed (a description, arguments): registered anew (a tool in place), which the clients see as a list change.
      if (had && kind !== tool) had.reg.remove();
      try {
        registered.set(key, { reg: kind.register(e, key, had?.reg), wire });
      } catch {
        // Taken by the server's own item (or another mount's): the server's own wins.
        registered.delete(key);
      }
    }
  };
  const names = (kind: ListKind, i = 0) => [...held.get(kind)![i].registered.keys()];

  return {
    sync(kind) {
      if (!cleared) for (const h of held.get(kind)!) apply(h);
    },
    tools: () => names('tools'),
    prompts: () => names('prompts'),
    resources: () => names('resources'),
    resourceTemplates: () => names('resources', 1),
    clear() {
      cleared = true;
      for (const list of held.values()) {
        for (const h of list) {
          for (const { reg } of h.registered.values()) reg.remove();
          h.registered.clear();
        }
      }
    },
  };
}
