import { APPS_EXTENSION, declaresApps } from '../../protocol/apps.js';
import type { RequestContext } from '../../server/context.js';
import type { ServerExtension } from '../../server/extension.js';
import { checkAppResource, readAppResource, type AppResource, type CheckedAppResource } from './resources.js';
import { appToolHook, toolUiSettings, type AppToolOptions } from './tool.js';

export type { AppResource, AppHtml } from './resources.js';
export type { AppToolOptions } from './tool.js';

declare module '../../server/tools.js' {
  interface ToolConfig {
    /**
     * MCP Apps (installed with `apps()`): the `ui://` resource that renders this tool's results
     * and who may call it. Sent as `_meta.ui` (plus the deprecated flat `_meta["ui/resourceUri"]`
     * for older hosts) to clients that declare `io.modelcontextprotocol/ui`; a `_meta.ui` or flat
     * key written by hand is read the same way.
     */
    ui?: AppToolOptions;
  }
}

export interface AppsOptions {
  /** The `ui://` resources this server serves (`resources/read`, and `resources/list` for app clients). */
  resources?: readonly AppResource[];
  /**
   * Serve UI metadata only to clients that declare the extension (the spec's negotiation).
   * Default true: other clients get plain tools (no `_meta.ui`, no app-only tools) and no
   * `ui://` entries in `resources/list`. False shows everything to every client, for hosts that
   * render apps without declaring the extension.
   */
  negotiate?: boolean;
}

/**
 * Whether the client of this request runs MCP Apps: it declared `io.modelcontextprotocol/ui`
 * with `text/html;profile=mcp-app` (at `initialize`, or in this 2026-07-28 request's envelope).
 * A tool handler answers such a client briefly (its app shows the data) and others with the
 * whole story as text.
 */
export function clientSupportsApps(ctx: Pick<RequestContext, 'clientCapabilities'>): boolean {
  return declaresApps(ctx.clientCapabilities);
}

/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865), both eras: tools name their UI
 * with the `ui` option, `ui://` resources are served as `text/html;profile=mcp-app` with their
 * sandbox settings in `_meta.ui`, and clients without the extension see plain tools. Needs an
 * `McpServer` for the resources.
 */
export function apps(options: AppsOptions = {}): ServerExtension {
  const byUri = new Map<string, CheckedAppResource>();
  for (const def of options.resources ?? []) {
    const checked = checkAppResource(def);
    if (byUri.has(def.uri)) throw new TypeError(`apps: resource ${def.uri} is given twice`);
    byUri.set(def.uri, checked);
  }
  const negotiate = options.negotiate ?? true;
  const supports = negotiate ? (ctx: RequestContext) => declaresApps(ctx.clientCapabilities) : () => true;
  return {
    name: APPS_EXTENSION,
    setup() {
      return {
        discover: () => ({}),
        initialize: () => ({ extensions: { [APPS_EXTENSION]: {} } }),
        toolOptions: ['ui'],
        tool(name, config) {
          const settings = toolUiSettings(name, config.ui, config._meta as Record<string, unknown> | undefined);
          return settings === undefined ? undefined : appToolHook(name, settings, supports);
        },
        resources: {
          // The spec lets servers leave UI resources out of the list (tools point at them);
          // a client that cannot render them has no use for them.
          list: (ctx) => (supports(ctx) ? [...byUri.values()].map((r) => r.listing) : []),
          read: (uri, ctx) => {
            const res = byUri.get(uri);
            return res === undefined ? undefined : readAppResource(res, ctx);
          },
        },
      };
    },
  };
}
