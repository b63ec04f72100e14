import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/messages.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import { Peer, type RequestOptions } from '../engine/peer.js';
import type { ClientRequestMap, ServerNotificationMap } from '../protocol/methods.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Implementation,
  Root,
  ServerCapabilities,
} from '../protocol/types.js';
import { applyElicitationDefaults, validateElicitationSchema } from '../schema/elicitation.js';
import type { SessionExpiredError } from '../transports/http/client/http-common.js';
import type { Transport } from '../transports/transport.js';
import { performHandshake, type HandshakeOutcome } from './handshake.js';
import { ServerCalls } from './calls.js';
import { SessionRecovery, type SessionState } from './reconnect.js';

export type SamplingHandler = (params: CreateMessageParams, ctx: { signal: AbortSignal }) => Promise<CreateMessageResult> | CreateMessageResult;
export type ElicitationHandler = (params: ElicitParams, ctx: { signal: AbortSignal }) => Promise<ElicitResult> | ElicitResult;

export interface ClientOptions extends Implementation {
  /** Extra capabilities; sampling/elicitation/roots are declared from the handlers given. */
  capabilities?: ClientCapabilities;
  /** Pin the handshake revision instead of asking for the latest. */
  protocolVersion?: string;
  /** Default timeout (ms) for requests. Default 60 000. */
  requestTimeoutMs?: number;
  /**
   * Refuse, locally, calls to capabilities the server did not declare (the spec's MUST).
   * Default true; turn off for servers that under-declare.
   */
  strictCapabilities?: boolean;
  sampling?: SamplingHandler;
  elicitation?: ElicitationHandler;
  /** Elicitation modes to declare (default: form, plus url when `elicitationUrl` is true). */
  elicitationUrl?: boolean;
  /** Roots to offer; `setRoots` changes them later and notifies the server. */
  roots?: Root[];
  middleware?: MessageMiddleware[];
  onerror?: (error: Error) => void;
  /**
   * When the server says the session is gone (Streamable HTTP: a 404 for a request carrying
   * the session id, surfaced as {@link SessionExpiredError}), start a new session as the spec
   * requires: run the handshake again over the same transport, then retry the refused request
   * once with a new id. Requests failing together share one re-initialization; requests made
   * meanwhile wait for it. If it fails, those requests reject with a LocalError of kind
   * 'closed' that explains why (the next request tries once more). Server-side state tied to
   * the old session (subscriptions, log level) is not restored. Default true; false makes the
   * request reject with the SessionExpiredError itself.
   */
  reinitializeOnExpiry?: boolean;
  /** Called after a transparent re-initialization, with the new handshake outcome and its cause. */
  onreinitialize?: (event: ReinitializeEvent) => void;
}

/** What {@link ClientOptions.onreinitialize} receives. */
export interface ReinitializeEvent {
  /** The new session's handshake outcome (also what `serverInfo`, `protocolVersion`... now show). */
  outcome: HandshakeOutcome;
  /** The refusal that showed the old session had ended. */
  cause: SessionExpiredError;
}

type Listener = (params: JsonObject | undefined) => void;

/** Which server capability each method needs (the spec: use only what was negotiated). */
const NEEDS: Record<string, (c: ServerCapabilities, version: string) => boolean> = {
  'tools/list': (c) => !!c.tools,
  'tools/call': (c) => !!c.tools,
  'resources/list': (c) => !!c.resources,
  'resources/templates/list': (c) => !!c.resources,
  'resources/read': (c) => !!c.resources,
  'resources/subscribe': (c) => !!c.resources?.subscribe,
  'resources/unsubscribe': (c) => !!c.resources?.subscribe,
  'prompts/list': (c) => !!c.prompts,
  'prompts/get': (c) => !!c.prompts,
  // 2024-11-05 had completion/complete without a capability flag.
  'completion/complete': (c, v) => !!c.completions || v < '2025-03-26',
  'logging/setLevel': (c) => !!c.logging,
};

/**
 * The MCP client: connects, negotiates, and offers a typed call for every server method, plus
 * the handlers a server may call back (sampling, elicitation, roots).
 */
export class McpClient extends ServerCalls {
  readonly options: ClientOptions;
  private peer: Peer | undefined;
  private outcome: HandshakeOutcome | undefined;
  private recovery: SessionRecovery | undefined;
  /** What this client told the server at initialize; later requests are judged against it. */
  private declared: ClientCapabilities = {};
  private readonly listeners = new Map<string, Set<Listener>>();
  private roots: Root[] | undefined;
  private sampling: SamplingHandler | undefined;
  private elicitation: ElicitationHandler | undefined;

  constructor(options: ClientOptions) {
    super();
    this.options = options;
    this.roots = options.roots;
    this.sampling = options.sampling;
    this.elicitation = options.elicitation;
  }

  get clientInfo(): Implementation {
    const { name, version, title, description, websiteUrl, icons } = this.options;
    const info: Implementation = { name, version };
    if (title !== undefined) info.title = title;
    if (description !== undefined) info.description = description;
    if (websiteUrl !== undefined) info.websiteUrl = websiteUrl;
    if (icons !== undefined) info.icons = icons;
    return info;
  }

  get capabilities(): ClientCapabilities {
    const caps: ClientCapabilities = { ...this.options.capabilities };
    if (this.roots !== undefined) caps.roots = { listChanged: true };
    if (this.sampling) caps.sampling = caps.sampling ?? {};
    if (this.elicitation) caps.elicitation = caps.elicitation ?? (this.options.elicitationUrl ? { form: {}, url: {} } : { form: {} });
    return caps;
  }

  /** Connects and runs the handshake. Resolves once the client may send requests. */
  async connect(transport: Transport): Promise<HandshakeOutcome> {
    if (this.peer && !this.peer.isClosed) throw new LocalError('protocol', 'This client is already connected; close it first');
    const peer = new Peer(
      transport,
      { onrequest: (req, inbound) => this.onServerRequest(req, inbound.signal), onnotification: (n) => this.onNotification(n) },
      { requestTimeoutMs: this.options.requestTimeoutMs, middleware: this.options.middleware, onerror: this.options.onerror },
    );
    this.peer = peer;
    this.outcome = undefined;
    this.recovery = new SessionRecovery((cause) => this.reinitialize(peer, cause), this.options.reinitializeOnExpiry !== false);
    await peer.start();
    this.declared = this.capabilities;
    try {
      this.outcome = await performHandshake(peer, this.clientInfo, this.declared, {
        protocolVersion: this.options.protocolVersion,
        timeoutMs: this.options.requestTimeoutMs,
      });
    } catch (err) {
      await peer.close().catch(() => {});
      throw err;
    }
    return this.outcome;
  }

  get connected(): boolean {
    return !!this.outcome && !!this.peer && !this.peer.isClosed;
  }
  get protocolVersion(): string | undefined {
    return this.outcome?.protocolVersion;
  }
  get serverInfo(): Implementation | undefined {
    return this.outcome?.serverInfo;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.outcome?.serverCapabilities;
  }
  get instructions(): string | undefined {
    return this.outcome?.instructions;
  }
  /** The session's state: `reinitializing` while a new session replaces an expired one. */
  get sessionState(): SessionState | undefined {
    return this.recovery?.state;
  }

  /** Fired once when the connection ends (closed by us, the server, or a crash). */
  onClose(listener: (reason?: Error) => void): void {
    if (!this.peer) throw new LocalError('protocol', 'Not connected');
    this.peer.onClose(listener);
  }

  /** Sends any request; typed for every method MCP defines. */
  request<M extends keyof ClientRequestMap>(method: M, params?: ClientRequestMap[M]['params'], options?: RequestOptions): Promise<ClientRequestMap[M]['result']>;
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  request(method: string, params?: object, options?: RequestOptions): Promise<unknown> {
    const peer = this.peer;
    const outcome = this.outcome;
    if (!peer || !outcome || !this.recovery) return Promise.reject(new LocalError('closed', `Cannot send "${method}": the client is not connected`));
    const need = NEEDS[method];
    if (need && this.options.strictCapabilities !== false && !need(outcome.serverCapabilities, outcome.protocolVersion)) {
      return Promise.reject(new LocalError('capability', `Cannot call "${method}": the server did not declare that capability`));
    }
    return this.recovery.run(() => peer.request(method, params as JsonObject | undefined, options));
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    const peer = this.peer;
    if (!peer || !this.recovery) return Promise.reject(new LocalError('closed', 'Not connected'));
    return this.recovery.run(() => peer.notify(method, params));
  }

  /** Subscribes to a server notification; returns the unsubscribe function. */
  on<M extends keyof ServerNotificationMap>(method: M, listener: (params: ServerNotificationMap[M]) => void): () => void;
  on(method: string, listener: Listener): () => void;
  on(method: string, listener: (params: never) => void): () => void {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener as Listener);
    return () => set!.delete(listener as Listener);
  }

  setSamplingHandler(handler: SamplingHandler | undefined): void {
    this.sampling = handler;
  }
  setElicitationHandler(handler: ElicitationHandler | undefined): void {
    this.elicitation = handler;
  }

  /** Replaces the roots and tells the server (notifications/roots/list_changed). */
  async setRoots(roots: Root[]): Promise<void> {
    for (const r of roots) {
      if (!r.uri.startsWith('file://')) throw new TypeError(`Root "${r.uri}" must be a file:// URI`);
    }
    this.roots = roots;
    // Only a client that declared roots.listChanged may send it (and the server drops it otherwise).
    if (this.connected && this.declared.roots?.listChanged) await this.notify('notifications/roots/list_changed');
  }

  async close(): Promise<void> {
    await this.peer?.close();
  }

  /** One re-initialization for {@link SessionRecovery}: the handshake again, same transport. */
  private async reinitialize(peer: Peer, cause: SessionExpiredError): Promise<void> {
    if (this.peer !== peer || peer.isClosed) throw new LocalError('closed', 'the client is closed');
    const declared = this.capabilities;
    const outcome = await performHandshake(peer, this.clientInfo, declared, {
      protocolVersion: this.options.protocolVersion,
      timeoutMs: this.options.requestTimeoutMs,
    });
    this.declared = declared;
    this.outcome = outcome;
    try {
      this.options.onreinitialize?.({ outcome, cause });
    } catch (err) {
      this.options.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private async onServerRequest(req: JsonRpcRequest, signal: AbortSignal): Promise<JsonObject> {
    switch (req.method) {
      case 'ping':
        return {};
      case 'roots/list':
        if (this.roots === undefined) break;
        return { roots: this.roots } as unknown as JsonObject;
      case 'sampling/createMessage':
        if (!this.sampling) break;
        return (await this.sampling(req.params as unknown as CreateMessageParams, { signal })) as unknown as JsonObject;
      case 'elicitation/create':
        if (!this.elicitation) break;
        return (await this.elicit(req.params as unknown as ElicitParams, signal)) as unknown as JsonObject;
    }
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${req.method}`);
  }

  private async elicit(params: ElicitParams, signal: AbortSignal): Promise<ElicitResult> {
    const mode = params.mode ?? 'form';
    const declared = this.declared.elicitation ?? {};
    // `elicitation: {}` is the 2025-06-18 spelling of "form mode only".
    const form = !!declared.form || !declared.url;
    if ((mode === 'url' && !declared.url) || (mode === 'form' && !form) || (mode !== 'url' && mode !== 'form')) {
      throw new McpError(ErrorCode.InvalidParams, `This client does not accept elicitation in ${mode} mode`);
    }
    if (mode === 'form') {
      // Only flat forms of primitives can be shown to a user; anything else is the server's error.
      const problem = validateElicitationSchema((params as { requestedSchema?: unknown }).requestedSchema);
      if (problem) throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${problem}`);
    }
    const result = await this.elicitation!(params, { signal });
    if (result.action === 'accept' && mode === 'form' && 'requestedSchema' in params) {
      return { ...result, content: applyElicitationDefaults(params.requestedSchema, result.content) as ElicitResult['content'] };
    }
    return result;
  }

  private onNotification(n: JsonRpcNotification): void {
    const set = this.listeners.get(n.method);
    if (!set) return;
    for (const l of set) {
      try {
        l(n.params);
      } catch (err) {
        this.options.onerror?.(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}
