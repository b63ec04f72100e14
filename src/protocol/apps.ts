import type { ClientCapabilities, Tool } from './types.js';

/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): a tool names a `ui://`
 * resource in `_meta.ui.resourceUri`; the host reads it (`text/html;profile=mcp-app`) and renders
 * it in a sandbox built from the resource's `_meta.ui` (csp, permissions, domain, prefersBorder).
 * `_meta.ui.visibility` says who may call the tool: the model, the app, or both (the default).
 * Both sides' helpers share what is here.
 */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The one content type the extension defines: an HTML5 document for a sandboxed iframe. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The flat key the spec deprecated for `_meta.ui.resourceUri`; read by older hosts, so still written. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

export type AppVisibility = 'model' | 'app';

/** The default: a tool the model and its app may both call. */
export const DEFAULT_VISIBILITY: readonly AppVisibility[] = ['model', 'app'];

/** A tool's `_meta.ui`. */
export interface AppToolUi {
  /** The `ui://` resource that renders this tool's results. */
  resourceUri?: string;
  /** Who may call the tool; omitted means `["model", "app"]`. */
  visibility?: AppVisibility[];
}

/** Origins the app's sandbox may reach (each maps to CSP directives; omitted: none). */
export interface AppCsp {
  /** fetch/XHR/WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts, media (`script-src`, `style-src`, `img-src`, ...). */
  resourceDomains?: string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: string[];
  /** The document's `<base>` (`base-uri`). */
  baseUriDomains?: string[];
}

/** Browser features the app asks for (Permission Policy); a host may refuse them. */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** A UI resource's `_meta.ui` (on the `resources/list` entry and on the `resources/read` content). */
export interface AppResourceUi {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin; its format is the host's. */
  domain?: string;
  /** Whether the host should draw a border and background; omitted: the host decides. */
  prefersBorder?: boolean;
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

/** The app settings a client declares (`mimeTypes` is required by the spec). */
export function appsCapability(mimeTypes: readonly string[] = [APP_MIME_TYPE]): { mimeTypes: string[] } {
  return { mimeTypes: [...mimeTypes] };
}

/**
 * Whether these client capabilities can render MCP Apps: the extension declared with
 * `mimeTypes` including `text/html;profile=mcp-app` (in the handshake's `initialize`, or in a
 * 2026-07-28 request's envelope).
 */
export function declaresApps(caps: ClientCapabilities | undefined): boolean {
  const v = caps?.extensions?.[APPS_EXTENSION];
  if (v === null || typeof v !== 'object') return false;
  const types = (v as { mimeTypes?: unknown }).mimeTypes;
  return Array.isArray(types) && types.includes(APP_MIME_TYPE);
}

/**
 * A tool's UI settings with the deprecated flat key read too (`_meta.ui.resourceUri` wins when
 * both are present) and the default visibility filled in. Undefined fields stay undefined; a
 * malformed value is ignored, as a host must (it cannot refuse a listed tool).
 */
export function toolUi(tool: Pick<Tool, '_meta'>): { resourceUri: string | undefined; visibility: AppVisibility[] } {
  const meta = tool._meta as Record<string, unknown> | undefined;
  const ui = meta?.ui !== null && typeof meta?.ui === 'object' ? (meta.ui as Record<string, unknown>) : undefined;
  const nested = typeof ui?.resourceUri === 'string' ? ui.resourceUri : undefined;
  const flat = typeof meta?.[LEGACY_RESOURCE_URI_KEY] === 'string' ? (meta[LEGACY_RESOURCE_URI_KEY] as string) : undefined;
  const raw = ui?.visibility;
  const visibility = Array.isArray(raw) && raw.every((v) => v === 'model' || v === 'app') ? (raw as AppVisibility[]) : [...DEFAULT_VISIBILITY];
  return { resourceUri: nested ?? flat, visibility };
}

/** Whether the model (the agent) may see and call this tool. */
export function visibleToModel(tool: Pick<Tool, '_meta'>): boolean {
  return toolUi(tool).visibility.includes('model');
}

/** Whether an app of the same server may call this tool. */
export function callableByApp(tool: Pick<Tool, '_meta'>): boolean {
  return toolUi(tool).visibility.includes('app');
}

/**
 * Checks a resource's UI settings where they are written (server) or read (client) and returns
 * a copy holding only the spec's fields. Throws a TypeError naming the bad field.
 */
export function checkResourceUi(value: unknown, where: string): AppResourceUi {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`${where}: _meta.ui must be an object`);
  const v = value as Record<string, unknown>;
  const out: AppResourceUi = {};
  if (v.csp !== undefined) {
    if (v.csp === null || typeof v.csp !== 'object' || Array.isArray(v.csp)) throw new TypeError(`${where}: csp must be an object`);
    const csp: AppCsp = {};
    for (const k of CSP_KEYS) {
      const list = (v.csp as Record<string, unknown>)[k];
      if (list === undefined) continue;
      if (!Array.isArray(list) || !list.every((d) => typeof d === 'string' && d !== '')) {
        throw new TypeError(`${where}: csp.${k} must be a list of origins (strings)`);
      }
      csp[k] = [...(list as string[])];
    }
    out.csp = csp;
  }
  if (v.permissions !== undefined) {
    const p = v.permissions;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new TypeError(`${where}: permissions must be an object`);
    const perms: AppPermissions = {};
    for (const k of PERMISSION_KEYS) {
      const one = (p as Record<string, unknown>)[k];
      if (one === undefined) continue;
      if (one === null || typeof one !== 'object' || Array.isArray(one)) throw new TypeError(`${where}: permissions.${k} must be {} (an empty object)`);
      perms[k] = {};
    }
    out.permissions = perms;
  }
  if (v.domain !== undefined) {
    if (typeof v.domain !== 'string' || v.domain === '') throw new TypeError(`${where}: domain must be a non-empty string`);
    out.domain = v.domain;
  }
  if (v.prefersBorder !== undefined) {
    if (typeof v.prefersBorder !== 'boolean') throw new TypeError(`${where}: prefersBorder must be a boolean`);
    out.prefersBorder = v.prefersBorder;
  }
  return out;
}
