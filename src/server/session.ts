import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/messages.js';
import { Peer, type PeerHandlers, type PeerOptions, type RequestOptions } from '../engine/peer.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { InboundRequest } from '../engine/inbound.js';
import { HandshakeServerEra, type RequestEnvelope } from '../protocol/handshake.js';
import { requestEra } from '../protocol/era.js';
import { LOGGING_LEVELS, type ClientCapabilities, type Implementation, type LoggingLevel } from '../protocol/types.js';
import { features } from '../protocol/versions.js';
import type { Transport, TransportKind } from '../engine/transport.js';
import { ServerContext, type Session } from './context.js';
import type { Server } from './server.js';

/**
 * One client connection to a server (a stdio process, an HTTP session, an in-memory pair).
 * Holds what the handshake negotiated and per-connection state (log level, subscriptions).
 */
export class ServerSession implements PeerHandlers, Session {
  readonly server: Server;
  readonly peer: Peer;
  readonly era: HandshakeServerEra;
  /** Minimum level for `notifications/message`, set by `logging/setLevel` (until then `info`). */
  logLevel: LoggingLevel | undefined;
  // Made on first use: most connections (every stateless HTTP request) never touch them.
  private subs: Set<string> | undefined;
  private dataMap: Map<string, unknown> | undefined;

  constructor(server: Server, transport: Transport) {
    this.server = server;
    this.era = new HandshakeServerEra(server.identityOf);
    // The session is the engine's handler itself: no handler object and closures per connection.
    this.peer = new Peer(transport, this, server.sessionMiddleware === undefined ? server.peerOptions : withSessionMiddleware(server));
  }

  /** Resource URIs this client subscribed to. */
  get subscriptions(): Set<string> {
    return (this.subs ??= new Set());
  }

  /** Free for application use (per-connection state). */
  get data(): Map<string, unknown> {
    return (this.dataMap ??= new Map());
  }

  /** PeerHandlers: the engine's request handler (not for application use). */
  onrequest(req: JsonRpcRequest, inbound: InboundRequest): Promise<JsonObject> | JsonObject {
    return this.onRequest(req, inbound);
  }

  /** PeerHandlers: the engine's notification handler (not for application use). */
  onnotification(n: JsonRpcNotification): Promise<void> {
    return this.onNotification(n);
  }

  /** PeerHandlers: whether the engine may accept a batch now (not for application use). */
  allowBatch(): boolean {
    return this.era.envelope !== undefined && features.batching(this.era.envelope.protocolVersion);
  }

  /** PeerHandlers: the connection closed, the server forgets it (not for application use). */
  onclose(): void {
    this.server.detach(this);
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  get initialized(): boolean {
    return this.era.state !== 'new';
  }
  get ready(): boolean {
    return this.era.state === 'ready';
  }
  get protocolVersion(): string | undefined {
    return this.era.envelope?.protocolVersion;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.era.envelope?.clientCapabilities ?? {};
  }
  get clientInfo(): Implementation | undefined {
    return this.era.envelope?.clientInfo;
  }

  onClose(listener: (reason?: Error) => void): void {
    this.peer.onClose(listener);
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.peer.notify(method, params);
  }

  /** A server-to-client request not tied to any client request (handshake era only). */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.peer.request(method, params, options);
  }

  ping(options?: RequestOptions): Promise<JsonObject> {
    return this.peer.request('ping', undefined, options);
  }

  /** Whether a message at `level` passes this session's `logging/setLevel` filter. */
  wantsLog(level: LoggingLevel): boolean {
    if (!this.server.capabilities.logging) return false;
    // A client that never chose a level gets info and above: debug output is opted into.
    return LOGGING_LEVELS.indexOf(level) >= LOGGING_LEVELS.indexOf(this.logLevel ?? 'info');
  }

  get transportKind(): TransportKind | undefined {
    return this.peer.transport.kind;
  }

  private onRequest(req: JsonRpcRequest, inbound: InboundRequest): Promise<JsonObject> | JsonObject {
    const observe = this.server.observer;
    return observe === undefined ? this.serve(req, inbound) : observe(req, inbound, this, () => this.serve(req, inbound));
  }

  private serve(req: JsonRpcRequest, inbound: InboundRequest): Promise<JsonObject> | JsonObject {
    // Dual era: a 2026-07-28 request is served statelessly, whatever this connection's handshake
    // state; everything else goes through the handshake codec. The era comes with the frame when
    // the transport decided it (HTTP); otherwise it is decided here, once.
    const modern = this.server.modern;
    if (modern && (inbound.info?.era ?? requestEra(req.method, req.params)) === 'modern') return modern.handle(req, inbound);
    switch (req.method) {
      case 'initialize': {
        const result = this.era.initialize(req.params);
        // Extensions may declare more at the negotiated revision (2025-11-25 core tasks).
        result.capabilities = this.server.initializeCapabilities(result.capabilities, result.protocolVersion);
        return result as unknown as JsonObject;
      }
      case 'ping':
        return {};
    }
    const envelope: RequestEnvelope = this.era.admit(req.method);
    return this.server.dispatch(req.method, req.params, new ServerContext(this, inbound, envelope));
  }

  /** `logging/setLevel` for this connection. */
  setLevel(params: JsonObject | undefined): JsonObject {
    if (!this.server.capabilities.logging)
      throw new McpError(ErrorCode.MethodNotFound, 'Method not found: logging/setLevel (the server does not offer logging)');
    const level = params?.level;
    if (typeof level !== 'string' || !(LOGGING_LEVELS as readonly string[]).includes(level)) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: "level" must be one of ${LOGGING_LEVELS.join(', ')}`);
    }
    this.logLevel = level as LoggingLevel;
    return {};
  }

  private async onNotification(n: JsonRpcNotification): Promise<void> {
    switch (n.method) {
      case 'notifications/initialized':
        this.era.markReady();
        return;
      case 'notifications/closed':
        // Some peers send this on shutdown; it is not part of the spec and needs no answer.
        return;
    }
    if (!this.initialized) return;
    if (n.method === 'notifications/roots/list_changed' && !this.clientCapabilities.roots?.listChanged) return;
    await this.server.handleNotification(n.method, n.params, this);
  }

  /** Checks before sending a server-to-client request: the client must have declared it. */
  requireClientCapability(what: 'sampling' | 'elicitation' | 'roots', method: string): void {
    if (!this.clientCapabilities[what]) {
      throw new LocalError('capability', `Cannot send "${method}": the client did not declare the "${what}" capability`);
    }
  }
}

/** The server's peer options with what its extensions add for one session (none: the shared options). */
function withSessionMiddleware(server: Server): PeerOptions {
  let own: MessageMiddleware[] | undefined;
  for (const make of server.sessionMiddleware ?? []) {
    const mw = make();
    if (mw !== undefined) (own ??= []).push(mw);
  }
  return own === undefined ? server.peerOptions : { ...server.peerOptions, middleware: [...server.messageMiddleware, ...own] };
}
