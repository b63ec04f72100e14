import type { JsonObject } from '../../jsonrpc/messages.js';
import { APP_MIME_TYPE, checkResourceUi, type AppResourceUi } from '../../protocol/apps.js';
import type { Icon, Resource } from '../../protocol/types.js';
import type { ReadResourceResult } from '../../protocol/params.js';
import type { RequestContext } from '../../server/context.js';

/** What an app resource's `html` function returns: the document, or it with per-read settings. */
export type AppHtml = string | { html: string; ui?: AppResourceUi };

/** A `ui://` resource: the HTML a host renders for the tools that name it. */
export interface AppResource {
  /** Must start with `ui://`. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  /**
   * The HTML5 document (a single file: the sandbox reaches only the origins `ui.csp` declares),
   * or a function read at every `resources/read`. A function may return settings with it, which
   * replace `ui` on that read's content (the spec: the content's `_meta.ui` wins over the listing's).
   */
  html: string | ((ctx: RequestContext) => AppHtml | Promise<AppHtml>);
  /** The sandbox settings: shown on the `resources/list` entry and sent with every read. */
  ui?: AppResourceUi;
  /** Other `_meta` keys for the listing and the content (vendor keys). */
  _meta?: Record<string, unknown>;
}

export interface CheckedAppResource {
  def: AppResource;
  ui: AppResourceUi;
  listing: Resource;
}

/** Checks a resource definition where it is written. */
export function checkAppResource(def: AppResource): CheckedAppResource {
  if (def === null || typeof def !== 'object') throw new TypeError('apps: each resource must be an object ({ uri, name, html })');
  const where = `App resource ${JSON.stringify(def.uri)}`;
  if (typeof def.uri !== 'string' || !def.uri.startsWith('ui://') || def.uri.length <= 'ui://'.length) {
    throw new TypeError(`${where}: uri must be a ui:// URI`);
  }
  if (typeof def.name !== 'string' || def.name === '') throw new TypeError(`${where}: name must be a non-empty string`);
  if (typeof def.html !== 'string' && typeof def.html !== 'function') throw new TypeError(`${where}: html must be a string or a function returning one`);
  if (def._meta !== undefined && 'ui' in def._meta) throw new TypeError(`${where}: give the UI settings as ui, not _meta.ui`);
  const ui = checkResourceUi(def.ui, where);
  const listing: Resource = { uri: def.uri, name: def.name, mimeType: APP_MIME_TYPE };
  if (def.title !== undefined) listing.title = def.title;
  if (def.description !== undefined) listing.description = def.description;
  if (def.icons !== undefined) listing.icons = def.icons;
  const meta = withUi(def._meta, ui);
  if (meta !== undefined) listing._meta = meta;
  return { def, ui, listing };
}

/** `resources/read` of one app resource: one text content with the app MIME type and its `_meta.ui`. */
export async function readAppResource(res: CheckedAppResource, ctx: RequestContext): Promise<ReadResourceResult> {
  const { def } = res;
  const got = typeof def.html === 'string' ? def.html : await def.html(ctx);
  const [html, ui] = typeof got === 'string' ? [got, res.ui] : [got?.html, checkResourceUi(got?.ui, `App resource ${JSON.stringify(def.uri)}`)];
  if (typeof html !== 'string') throw new TypeError(`App resource ${JSON.stringify(def.uri)}: html() must return a string or { html, ui }`);
  const content: JsonObject = { uri: def.uri, mimeType: APP_MIME_TYPE, text: html };
  const meta = withUi(def._meta, ui);
  if (meta !== undefined) content._meta = meta;
  return { contents: [content] } as unknown as ReadResourceResult;
}

function withUi(meta: Record<string, unknown> | undefined, ui: AppResourceUi): JsonObject | undefined {
  const hasUi = Object.keys(ui).length > 0;
  if (meta === undefined && !hasUi) return undefined;
  return { ...((meta ?? {}) as JsonObject), ...(hasUi ? { ui: ui as JsonObject } : {}) };
}
