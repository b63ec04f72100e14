// The host side of the MCP Apps protocol (`io.modelcontextprotocol/ui`, 2026-01-26): JSON-RPC 2.0
// over postMessage with one view in a sandboxed iframe. The rules a host keeps, each here:
//   - only messages whose source is this iframe's window count; anything else (the page itself,
//     another frame, a popup) is logged as ignored and never answered or acted on;
//   - nothing is sent to the view before it said `ui/notifications/initialized` (queued, in order);
//   - the view's requests go to handlers the panel gives: its tool calls wait there for the
//     person's approval before anything reaches the server;
//   - a view that navigates its frame to another document is disconnected.
// The view's window has an opaque origin (no allow-same-origin), so replies go with target "*",
// to that window only.

export const APPS_PROTOCOL_VERSION = '2026-01-26';

export type DisplayMode = 'inline' | 'fullscreen' | 'pip';

export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string> };
  displayMode?: DisplayMode;
  availableDisplayModes?: DisplayMode[];
  containerDimensions?: Record<string, number>;
  locale?: string;
  timeZone?: string;
  userAgent?: string;
  platform?: 'web' | 'desktop' | 'mobile';
  deviceCapabilities?: { touch?: boolean; hover?: boolean };
  safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
  toolInfo?: { id?: string | number; tool: Record<string, unknown> };
  [key: string]: unknown;
}

/** One line of the bridge's log: what went to the view, what came from it, what was ignored. */
export interface BridgeLogEntry {
  dir: 'to view' | 'from view' | 'ignored' | 'note';
  method?: string;
  id?: string | number;
  text?: string;
  message?: unknown;
}

/** A JSON-RPC error a handler throws to answer the view with it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface BridgeHandlers {
  /** The view's `tools/call`: resolves with the result once approved and answered. */
  callTool(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  readResource(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  openLink(url: string): Promise<Record<string, unknown>>;
  /** A view's `sampling/createMessage`: answered by you (or the model's draft you send). */
  sample(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** `ui/download-file`: saved once you allow it. */
  downloadFile(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  message(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  updateModelContext(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The mode the host switched to (the current one when it refuses). */
  displayMode(mode: DisplayMode, offered: DisplayMode[] | undefined): DisplayMode;
  size(width: number | undefined, height: number | undefined): void;
  teardownRequested(): void;
  log(entry: BridgeLogEntry): void;
}

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: unknown; result?: unknown; error?: { code: number; message: string } };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A JSON-RPC 2.0 message as the protocol allows it (a request, notification or response). */
function asMessage(data: unknown): Message | undefined {
  if (!isObject(data) || data.jsonrpc !== '2.0') return undefined;
  const id = data.id;
  if (id !== undefined && typeof id !== 'string' && (typeof id !== 'number' || !Number.isFinite(id))) return undefined;
  if (data.method !== undefined && (typeof data.method !== 'string' || data.method === '')) return undefined;
  if (data.method === undefined && id === undefined) return undefined;
  if (data.params !== undefined && !isObject(data.params)) return undefined;
  return data as Message;
}

export class AppBridge {
  private initialized = false;
  private closed = false;
  private readonly queue: Message[] = [];
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private nextId = 1;
  private loads = 0;
  /** What the view said of itself in ui/initialize. */
  appInfo: Record<string, unknown> | undefined;
  appCapabilities: Record<string, unknown> | undefined;

  constructor(
    private readonly iframe: HTMLIFrameElement,
    private context: HostContext,
    private readonly host: { name: string; version: string; capabilities: Record<string, unknown> },
    private readonly h: BridgeHandlers,
  ) {
    addEventListener('message', this.onMessage);
    iframe.addEventListener('load', this.onLoad);
  }

  get ready(): boolean {
    return this.initialized;
  }

  /** The complete tool arguments (sent once the view is initialized). */
  toolInput(args: Record<string, unknown>): void {
    this.notify('ui/notifications/tool-input', { arguments: args });
  }

  toolResult(result: Record<string, unknown>): void {
    this.notify('ui/notifications/tool-result', result);
  }

  toolCancelled(reason: string): void {
    this.notify('ui/notifications/tool-cancelled', { reason });
  }

  /** Changes the host context; the view is told what changed. */
  setContext(changes: Partial<HostContext>): void {
    this.context = { ...this.context, ...changes };
    this.notify('ui/notifications/host-context-changed', changes);
  }

  /** Asks the view to wind down (ui/resource-teardown) and waits for it, `ms` at most. */
  async teardown(reason: string, ms = 1500): Promise<void> {
    if (!this.initialized || this.closed) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.request('ui/resource-teardown', { reason }).catch(() => {}), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    removeEventListener('message', this.onMessage);
    this.iframe.removeEventListener('load', this.onLoad);
    for (const p of this.pending.values()) p.reject(new Error('the view was closed'));
    this.pending.clear();
  }

  private readonly onLoad = () => {
    this.loads++;
    if (this.loads > 1) {
      this.h.log({ dir: 'note', text: 'The view navigated its frame to another document: disconnected' });
      this.close();
    }
  };

  private readonly onMessage = (e: MessageEvent) => {
    if (this.closed) return;
    const win = this.iframe.contentWindow;
    if (!win || e.source !== win) {
      // Not this view: another window posting to the page. Said, never answered.
      const m = asMessage(e.data);
      if (m)
        this.h.log({ dir: 'ignored', method: m.method, id: m.id, text: `from ${e.origin || 'an unknown origin'}, not this view's window`, message: e.data });
      return;
    }
    const m = asMessage(e.data);
    if (!m) {
      this.h.log({ dir: 'ignored', text: 'from the view: not a JSON-RPC 2.0 message', message: e.data });
      return;
    }
    this.h.log({ dir: 'from view', method: m.method, id: m.id, message: m });
    if (m.method !== undefined && m.id !== undefined) void this.onRequest(m.id, m.method, (m.params ?? {}) as Record<string, unknown>);
    else if (m.method !== undefined) this.onNotification(m.method, (m.params ?? {}) as Record<string, unknown>);
    else this.onResponse(m);
  };

  private async onRequest(id: string | number, method: string, params: Record<string, unknown>): Promise<void> {
    try {
      const result = await this.handle(method, params);
      this.post({ jsonrpc: '2.0', id, result });
    } catch (err) {
      const code = err instanceof RpcError ? err.code : -32603;
      this.post({ jsonrpc: '2.0', id, error: { code, message: err instanceof Error ? err.message : String(err) } });
    }
  }

  private async handle(method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'ui/initialize':
        this.appInfo = isObject(params.appInfo) ? params.appInfo : undefined;
        this.appCapabilities = isObject(params.appCapabilities) ? params.appCapabilities : undefined;
        return {
          protocolVersion: APPS_PROTOCOL_VERSION,
          hostInfo: { name: this.host.name, version: this.host.version },
          hostCapabilities: this.host.capabilities,
          hostContext: this.context,
        };
      case 'ping':
        return {};
      case 'tools/call':
        return this.h.callTool(params);
      case 'resources/read':
        return this.h.readResource(params);
      case 'ui/open-link':
        if (typeof params.url !== 'string') throw new RpcError(-32602, 'ui/open-link needs a url');
        return this.h.openLink(params.url);
      case 'ui/download-file':
        return this.h.downloadFile(params);
      case 'sampling/createMessage':
        return this.h.sample(params);
      case 'ui/message':
        return this.h.message(params);
      case 'ui/update-model-context':
        return this.h.updateModelContext(params);
      case 'ui/request-display-mode': {
        const offered = this.appCapabilities?.availableDisplayModes;
        // The panel tells the view of the change (host-context-changed) as it applies it.
        return { mode: this.h.displayMode(params.mode as DisplayMode, Array.isArray(offered) ? (offered as DisplayMode[]) : undefined) };
      }
      default:
        throw new RpcError(-32601, `Method not found: ${method} (not offered by this host)`);
    }
  }

  private onNotification(method: string, params: Record<string, unknown>): void {
    switch (method) {
      case 'ui/notifications/initialized':
        if (this.initialized) return;
        this.initialized = true;
        for (const m of this.queue.splice(0)) this.post(m);
        return;
      case 'ui/notifications/size-changed':
        this.h.size(num(params.width), num(params.height));
        return;
      case 'ui/notifications/request-teardown':
        this.h.teardownRequested();
        return;
      default:
        // notifications/message (its log) and the rest: in the log already.
        return;
    }
  }

  private onResponse(m: Message): void {
    const p = typeof m.id === 'number' ? this.pending.get(m.id) : undefined;
    if (!p) return;
    this.pending.delete(m.id as number);
    if (m.error) p.reject(new Error(m.error.message));
    else p.resolve(m.result);
  }

  private notify(method: string, params: unknown): void {
    const m: Message = { jsonrpc: '2.0', method, params };
    if (this.initialized) this.post(m);
    else this.queue.push(m);
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  private post(m: Message): void {
    if (this.closed) return;
    this.h.log({ dir: 'to view', method: m.method, id: m.id, message: m });
    this.iframe.contentWindow?.postMessage(m, '*');
  }
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}
