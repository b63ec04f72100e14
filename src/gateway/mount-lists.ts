// The prompts, resources and resource templates half of mount(): what the mounted server lists is
// registered on the McpServer under the gateway's names (prompts `<namespace>_<name>`, resource
// URIs in the mcpgw:// scheme of uris.ts), and listed again whenever the mounted server says its
// lists changed or it (re)connects. Registering and removing is what makes the McpServer send
// its own list_changed to its clients.
import type { McpClient } from '../client/client.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { McpServer } from '../server/mcp-server.js';
import type { Registered } from '../server/registry.js';
import type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from '../protocol/types.js';
import { toGatewayUri } from './uris.js';

export interface MountedLists {
  /** Lists the mounted server's prompts and resources again and brings the registrations in line. */
  sync(): Promise<void>;
  prompts(): string[];
  resources(): string[];
  resourceTemplates(): string[];
  /** Removes everything registered. */
  clear(): void;
}

/** What one kind of item needs: how to list it, its key once mounted, and how to register it. */
interface Kind<T> {
  capability: 'prompts' | 'resources';
  list(client: McpClient): Promise<T[]>;
  key(item: T): string;
  register(item: T, key: string): Registered<never>;
}

export function mountedLists(server: McpServer, namespace: string, separator: string, current: () => McpClient | undefined): MountedLists {
  const connected = () => {
    const c = current();
    if (!c) throw new Error(`The mounted server "${namespace}" is not connected`);
    return c;
  };
  const gatewayUri = (uri: string) => toGatewayUri(namespace, uri);
  // A read answers with the backend's URIs: they are given back in the names the client knows.
  const read = async (original: string, signal: AbortSignal): Promise<ReadResourceResult> => {
    const result = (await connected().request('resources/read', { uri: original }, { signal })) as unknown as ReadResourceResult;
    const contents = Array.isArray(result.contents) ? result.contents : [];
    return { ...result, contents: contents.map((c) => (typeof c.uri === 'string' ? { ...c, uri: gatewayUri(c.uri) } : c)) };
  };

  const prompt: Kind<Prompt> = {
    capability: 'prompts',
    list: (c) => c.listAllPrompts(),
    key: (p) => `${namespace}${separator}${p.name}`,
    register: ({ name, arguments: args, ...rest }, key) =>
      server.prompt(
        key,
        { ...rest, args: args ?? [] },
        async (a, ctx) =>
          (await connected().request('prompts/get', { name, arguments: a as JsonObject }, { signal: ctx.signal })) as unknown as GetPromptResult,
      ) as Registered<never>,
  };
  const resource: Kind<Resource> = {
    capability: 'resources',
    list: (c) => c.listAllResources(),
    key: (r) => gatewayUri(r.uri),
    register: ({ name, uri, ...config }, key) => server.resource(name, key, config, (_u, ctx) => read(uri, ctx.signal)) as Registered<never>,
  };
  const template: Kind<ResourceTemplate> = {
    capability: 'resources',
    list: (c) => c.listAllResourceTemplates(),
    // Templates are registered by name: the namespace keeps two mounted servers' names apart.
    key: (t) => `${namespace}${separator}${t.name}`,
    register: ({ name: _n, uriTemplate, ...config }, key) => {
      const mounted = gatewayUri(uriTemplate);
      const prefix = mounted.slice(0, mounted.length - uriTemplate.length);
      return server.resourceTemplate(key, mounted, config, (u, _vars, ctx) => read(u.slice(prefix.length), ctx.signal)) as Registered<never>;
    },
  };

  const held = [prompt, resource, template].map((kind) => ({
    kind: kind as Kind<unknown>,
    registered: new Map<string, { reg: Registered<never>; wire: string }>(),
  }));

  const apply = async (client: McpClient | undefined, { kind, registered }: (typeof held)[number]) => {
    let items: unknown[] = [];
    if (client?.serverCapabilities?.[kind.capability]) {
      try {
        items = await kind.list(client);
      } catch {
        // A server that cannot list now keeps what it had; the next change or reconnect lists again.
        return;
      }
    }
    if (cleared) return;
    const now = new Map(items.map((item) => [kind.key(item), item]));
    for (const [key, { reg }] of registered) {
      if (!now.has(key)) {
        reg.remove();
        registered.delete(key);
      }
    }
    for (const [key, item] of now) {
      const wire = JSON.stringify(item);
      const had = registered.get(key);
      if (had?.wire === wire) continue;
      // Changed (a description, arguments): registered anew, which the clients see as a list change.
      had?.reg.remove();
      try {
        registered.set(key, { reg: kind.register(item, key), wire });
      } catch {
        // Taken by the server's own item (or another mount's): the server's own wins.
        registered.delete(key);
      }
    }
  };

  let queue: Promise<void> = Promise.resolve();
  let cleared = false;
  return {
    sync() {
      // One listing at a time, each applying what the server says at its turn.
      queue = queue.then(async () => {
        if (cleared) return;
        for (const h of held) await apply(current(), h);
      });
      return queue;
    },
    prompts: () => [...held[0].registered.keys()],
    resources: () => [...held[1].registered.keys()],
    resourceTemplates: () => [...held[2].registered.keys()],
    clear() {
      cleared = true;
      for (const h of held) {
        for (const { reg } of h.registered.values()) reg.remove();
        h.registered.clear();
      }
    },
  };
}
