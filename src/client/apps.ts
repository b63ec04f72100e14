import type { JsonObject } from '../jsonrpc/messages.js';
import type { RequestOptions } from '../engine/peer.js';
import { base64ToBytes } from '../protocol/encoding.js';
import { APP_MIME_TYPE, callableByApp, checkResourceUi, toolUi, visibleToModel, type AppResourceUi } from '../protocol/apps.js';
import type { Resource, Tool } from '../protocol/types.js';
import type { ReadResourceResult } from '../protocol/params.js';

/** What the app helpers need of a client (an `McpClient`). */
export interface AppsClient {
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
}

/**
 * The tools to offer the model: every tool whose `visibility` includes `"model"` (the default).
 * The spec's host MUST: a tool only an app may call never reaches the agent's tool list.
 */
export function modelTools<T extends Pick<Tool, '_meta'>>(tools: readonly T[]): T[] {
  return tools.filter((t) => visibleToModel(t));
}

/**
 * The tools an app of this server may call through the host: `visibility` includes `"app"` (the
 * default). A host refuses an app's `tools/call` for any other tool, and for every tool of
 * another server.
 */
export function appTools<T extends Pick<Tool, '_meta'>>(tools: readonly T[]): T[] {
  return tools.filter((t) => callableByApp(t));
}

/** The `ui://` resource a tool renders with (`_meta.ui.resourceUri`, or the deprecated flat key), if any. */
export function appResourceUri(tool: Pick<Tool, '_meta'>): string | undefined {
  const uri = toolUi(tool).resourceUri;
  return uri?.startsWith('ui://') ? uri : undefined;
}

/** A UI resource as read, checked and fingerprinted: what a host renders and approves. */
export interface AppResourceContent {
  uri: string;
  /** The HTML5 document. */
  html: string;
  /** The sandbox settings: the content's `_meta.ui`, else the `resources/list` entry's. */
  ui: AppResourceUi;
  /** `sha256:<hex>` of the HTML and the security settings (see {@link fingerprintAppResource}). */
  fingerprint: string;
}

/** A UI resource the server sent in a form no host may render. */
export class AppResourceError extends Error {
  override name = 'AppResourceError';
  constructor(
    message: string,
    readonly uri: string,
  ) {
    super(message);
  }
}

export interface ReadAppResourceOptions extends RequestOptions {
  /** The resource's `resources/list` entry: its `_meta.ui` applies when the content has none. */
  listing?: Pick<Resource, '_meta'>;
}

/**
 * Reads the UI resource of `toolOrUri` with `resources/read` and checks it as the spec requires:
 * a `ui://` URI, `text/html;profile=mcp-app`, text or base64 HTML, well-formed `_meta.ui`. Any
 * problem throws an {@link AppResourceError}; nothing unchecked is returned.
 */
export async function readAppResource(
  client: AppsClient,
  toolOrUri: string | Pick<Tool, '_meta' | 'name'>,
  options: ReadAppResourceOptions = {},
): Promise<AppResourceContent> {
  const uri = typeof toolOrUri === 'string' ? toolOrUri : appResourceUri(toolOrUri);
  if (uri === undefined) throw new AppResourceError(`Tool "${(toolOrUri as Tool).name}" has no ui:// resource (_meta.ui.resourceUri)`, '');
  if (!uri.startsWith('ui://')) throw new AppResourceError(`${uri}: an app resource's URI must start with ui://`, uri);
  const { listing, ...request } = options;
  const result = await client.readResource(uri, request);
  const contents = Array.isArray(result?.contents) ? result.contents : [];
  const content = (contents.find((c) => c?.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined)) as JsonObject | undefined;
  if (content === undefined) throw new AppResourceError(`${uri}: resources/read returned no content for this URI`, uri);
  if (content.mimeType !== APP_MIME_TYPE) {
    throw new AppResourceError(`${uri}: mimeType is ${JSON.stringify(content.mimeType)}, not ${APP_MIME_TYPE}: not an MCP App`, uri);
  }
  let html: string;
  if (typeof content.text === 'string') html = content.text;
  else if (typeof content.blob === 'string') {
    try {
      const bytes = base64ToBytes(content.blob);
      if (bytes === undefined) throw new TypeError('not base64');
      html = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new AppResourceError(`${uri}: blob is not base64-encoded UTF-8 HTML`, uri);
    }
  } else throw new AppResourceError(`${uri}: the content has neither text nor blob`, uri);
  const contentUi = (content._meta as JsonObject | undefined)?.ui;
  const listingUi = (listing?._meta as JsonObject | undefined)?.ui;
  let ui: AppResourceUi;
  try {
    ui = checkResourceUi(contentUi ?? listingUi, uri);
  } catch (e) {
    throw new AppResourceError((e as Error).message, uri);
  }
  return { uri, html, ui, fingerprint: await fingerprintAppResource({ html, ui }) };
}

/**
 * A stable digest of what a user approves when they allow an app: the HTML, the CSP origins, the
 * permissions and the dedicated domain (`prefersBorder` is cosmetic and left out). Origin lists
 * are compared as sets, so reordering them is no change. `sha256:<hex>`.
 */
export async function fingerprintAppResource(resource: { html: string; ui?: AppResourceUi }): Promise<string> {
  const ui = resource.ui ?? {};
  const csp: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(ui.csp ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (Array.isArray(v) && v.length > 0) csp[k] = [...new Set(v)].sort();
  }
  const permissions = Object.keys(ui.permissions ?? {})
    .filter((k) => (ui.permissions as Record<string, unknown>)[k] !== undefined)
    .sort();
  const canonical = JSON.stringify({ html: resource.html, csp, permissions, domain: ui.domain ?? null });
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical));
  return `sha256:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** What {@link AppApprovals.check} finds. */
export type ApprovalStatus = 'approved' | 'changed' | 'unapproved';

/**
 * The fingerprints a user approved, per server and resource: a host asks before rendering and
 * learns whether the app is still the one approved (`'approved'`), changed since (`'changed'`:
 * ask again, the HTML or its sandbox settings drifted), or never approved. Persist it with
 * `toJSON()` and `new AppApprovals(saved)`.
 */
export class AppApprovals {
  private readonly approved: Map<string, string>;

  constructor(saved?: Record<string, string>) {
    this.approved = new Map(Object.entries(saved ?? {}));
  }

  /** Records the user's approval of this resource as it is now. */
  approve(server: string, resource: Pick<AppResourceContent, 'uri' | 'fingerprint'>): void {
    this.approved.set(key(server, resource.uri), resource.fingerprint);
  }

  /** Whether this resource, as read now, is the one approved. */
  check(server: string, resource: Pick<AppResourceContent, 'uri' | 'fingerprint'>): ApprovalStatus {
    const had = this.approved.get(key(server, resource.uri));
    if (had === undefined) return 'unapproved';
    return had === resource.fingerprint ? 'approved' : 'changed';
  }

  /** True only when this exact fingerprint was approved for the resource. */
  checkApproved(server: string, resource: Pick<AppResourceContent, 'uri' | 'fingerprint'>): boolean {
    return this.check(server, resource) === 'approved';
  }

  /** Forgets an approval (the user revoked it). */
  revoke(server: string, uri: string): void {
    this.approved.delete(key(server, uri));
  }

  toJSON(): Record<string, string> {
    return Object.fromEntries(this.approved);
  }
}

// One server's ui://x is not another's: approvals never carry across servers.
const key = (server: string, uri: string) => `${server}\n${uri}`;
