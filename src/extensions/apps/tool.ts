import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import { APPS_EXTENSION, LEGACY_RESOURCE_URI_KEY, type AppVisibility } from '../../protocol/apps.js';
import type { Tool } from '../../protocol/types.js';
import type { RequestContext } from '../../server/context.js';
import type { ToolHook } from '../../server/extension.js';

/** The `ui` option of a tool (installed with `apps()`): what `_meta.ui` of the tool says. */
export interface AppToolOptions {
  /** The `ui://` resource that renders this tool's results (served by `apps({ resources })` or `server.resource`). */
  resourceUri?: string;
  /**
   * Who may call the tool. Default `["model", "app"]`. `["app"]`: only the tool's app calls it
   * (a refresh button); hosts keep it from the model, and clients without the extension neither
   * see it nor may call it.
   */
  visibility?: AppVisibility[];
}

/** A tool's UI settings after normalisation: the option, else `_meta.ui`, else the deprecated flat key. */
export interface ToolUiSettings {
  resourceUri: string | undefined;
  /** As written; undefined means the default (both). */
  visibility: AppVisibility[] | undefined;
}

/** Reads and checks a tool's UI settings at registration; undefined when the tool has none. */
export function toolUiSettings(name: string, option: unknown, meta: Record<string, unknown> | undefined): ToolUiSettings | undefined {
  const where = `Tool "${name}"`;
  if (option !== undefined && (option === null || typeof option !== 'object' || Array.isArray(option))) {
    throw new TypeError(`${where}: ui must be an object ({ resourceUri, visibility })`);
  }
  const metaUi = meta?.ui;
  if (metaUi !== undefined && (metaUi === null || typeof metaUi !== 'object' || Array.isArray(metaUi))) {
    throw new TypeError(`${where}: _meta.ui must be an object`);
  }
  const flat = meta?.[LEGACY_RESOURCE_URI_KEY];
  if (option === undefined && metaUi === undefined && flat === undefined) return undefined;
  const o = (option ?? {}) as Record<string, unknown>;
  const m = (metaUi ?? {}) as Record<string, unknown>;
  for (const k of ['csp', 'permissions']) {
    // The spec puts these on the UI resource; a host ignores them on a tool.
    if (o[k] !== undefined || m[k] !== undefined) throw new TypeError(`${where}: ${k} belongs on the ui:// resource (apps({ resources })), not on the tool`);
  }
  const uri = o.resourceUri ?? m.resourceUri ?? flat;
  if (uri !== undefined && (typeof uri !== 'string' || !uri.startsWith('ui://'))) {
    throw new TypeError(`${where}: resourceUri must be a ui:// URI (got ${JSON.stringify(uri)})`);
  }
  const visibility = o.visibility ?? m.visibility;
  if (visibility !== undefined) {
    if (
      !Array.isArray(visibility) ||
      visibility.length === 0 ||
      !visibility.every((v) => v === 'model' || v === 'app') ||
      new Set(visibility).size !== visibility.length
    ) {
      throw new TypeError(`${where}: visibility must be a non-empty list of "model" and/or "app"`);
    }
  }
  return { resourceUri: uri as string | undefined, visibility: visibility as AppVisibility[] | undefined };
}

/**
 * The tool's part of the extension. To a client that runs apps (or every client, with
 * `negotiate: false`), `tools/list` shows `_meta.ui` and the deprecated flat key (older hosts read
 * only that one). To a client without the extension the tool is an ordinary one: no UI metadata,
 * and a tool only an app may call is neither listed nor callable (no app can exist there).
 */
export function appToolHook(name: string, settings: ToolUiSettings, supports: (ctx: RequestContext) => boolean): ToolHook {
  const ui: JsonObject = {};
  if (settings.resourceUri !== undefined) ui.resourceUri = settings.resourceUri;
  if (settings.visibility !== undefined) ui.visibility = [...settings.visibility];
  const appOnly = settings.visibility !== undefined && !settings.visibility.includes('model');
  let withUi: Tool | undefined;
  let withoutUi: Tool | undefined;
  return {
    list(wire, ctx) {
      if (supports(ctx)) {
        withUi ??= (() => {
          const meta: JsonObject = { ...(wire._meta ?? {}), ui };
          if (settings.resourceUri === undefined) delete meta[LEGACY_RESOURCE_URI_KEY];
          else meta[LEGACY_RESOURCE_URI_KEY] = settings.resourceUri;
          return { ...wire, _meta: meta };
        })();
        return withUi;
      }
      if (appOnly) return undefined;
      withoutUi ??= (() => {
        const { ui: _ui, [LEGACY_RESOURCE_URI_KEY]: _flat, ...rest } = (wire._meta ?? {}) as JsonObject;
        const { _meta: _drop, ...tool } = wire;
        return Object.keys(rest).length > 0 ? { ...tool, _meta: rest } : tool;
      })();
      return withoutUi;
    },
    call(_params, ctx, next) {
      if (appOnly && !supports(ctx)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Tool "${name}" may only be called by its MCP App (visibility ["app"]), and this client did not declare the ${APPS_EXTENSION} extension`,
          { name },
        );
      }
      const out = next(ctx);
      return typeof (out as PromiseLike<JsonObject>).then === 'function' ? Promise.resolve(out).then(withText) : withText(out as JsonObject);
    },
  };
}

/**
 * The spec asks app tools for a meaningful `content` array whatever the client (the model reads
 * it; a host without apps shows only it): a result that carries only `structuredContent` gets
 * its JSON as text.
 */
function withText(result: JsonObject): JsonObject {
  const content = result.content;
  if (result.isError === true || !Array.isArray(content) || content.length > 0 || result.structuredContent === undefined) return result;
  return { ...result, content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }] };
}
