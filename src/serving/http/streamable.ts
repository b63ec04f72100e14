import { decodeValue, DEFAULT_LIMITS, errorResponse, type DecodeLimits } from '../../jsonrpc/codec.js';
import { ErrorCode } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../jsonrpc/messages.js';
import type { McpServer } from '../../server/mcp-server.js';
import { servingPort, type ServerPort } from '../../server/server.js';
import { isModernVersion, requestEra } from '../../protocol/era.js';
import { DEFAULT_HTTP_VERSION, features, HANDSHAKE_VERSIONS, negotiateVersion } from '../../protocol/versions.js';
import type { AuthInfo, FrameInfo } from '../../engine/transport.js';
import { systemClock, unrefTimer, type Clock, type TimerHandle } from '../../engine/clock.js';
import { JSON_HEADERS, ResponseChannel, SSE_HEADERS, sseEvent, type ResponseMode } from './channel.js';
import { InMemoryEventStore, type EventStore } from '../../state/event-store.js';
import type { HttpRequestView, HttpResponder } from './exchange.js';
import { applyCors } from './cors.js';
import { checkModernHeaders, modernStatusFor } from './modern-http.js';
import { OAuthResourceGuard } from './oauth-resource.js';
import { ACCEPT_JSON, ACCEPT_SSE, accepts, isJsonContentType, NAMES_SSE, negotiate, parseJsonBody, REFUSED, sendError } from './responses.js';
import { checkOriginAndHost, type Authenticate } from './security.js';
import { defaultCheckMs, RESTORE, SessionTable, type LiveSession } from './session-table.js';
import { HttpSessionTransport } from './session-transport.js';
import { StatelessExchange } from './stateless.js';
import type { StreamableHttpOptions } from './streamable-options.js';

export type { StreamableHttpOptions } from './streamable-options.js';

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

const DONE: Promise<void> = Promise.resolve();

function isInitialize(m: JsonRpcMessage): boolean {
  return 'method' in m && m.method === 'initialize';
}

const SUPPORTED_HEADER_VERSIONS: ReadonlySet<string> = new Set(HANDSHAKE_VERSIONS);
const MODERN_STATUS = (m: JsonRpcMessage): number => ('error' in m ? modernStatusFor(m.error.code) : 200);
const NOTHING = (): void => {};

// Why a stateless handshake-era request cannot ask the client anything. The client may well have
// declared the capability (in an initialize this server has forgotten): the transport is to blame.
const STATELESS_ASK =
  'this HTTP server is stateless (no sessions), so it cannot send requests to the client: the answer would come back in another POST, ' +
  'with nothing to route it here. Serve it with sessions, or use protocol 2026-07-28, which asks without sessions';

/**
 * The Streamable HTTP server core (handshake era): POST, GET and DELETE on one endpoint,
 * independent of node:http or fetch. Adapters hand it a request view and a responder.
 */
export class StreamableHttpHandler {
  readonly server: ServerPort;
  readonly endpoint: string;
  private readonly o: StreamableHttpOptions;
  private readonly eventStore: EventStore | undefined;
  private readonly table: SessionTable;
  /** The table's sessions, under the name tests (and debuggers) look for. */
  private readonly sessions: Map<string, LiveSession>;
  private sweeper: TimerHandle | undefined;
  /** Stops listening for sessions ended on other instances (with a session store only). */
  private readonly stopEndedRelay: (() => void) | undefined;
  /** The sweep's period while it is still to be armed (stateful handlers only). */
  private sweepEveryMs: number | undefined;
  private readonly clock: Clock;
  /** Made once: every event stream's channel reports a failing event store here. */
  private readonly reportError: (error: Error) => void;
  /** The OAuth resource server, when `oauth` is set. */
  readonly oauth: OAuthResourceGuard | undefined;
  /** Only with `oauth.scopesFor`: POST bodies are screened for per-request scopes. */
  private readonly scopeGate: OAuthResourceGuard | undefined;
  /** Whether admission awaits anything (`authenticate` or `oauth`). */
  private readonly guarded: boolean;
  /**
   * What a body is decoded under, once, here: the sessions' engines take that decode as it is.
   * The depth limit is the stricter of the HTTP default and the server's own.
   */
  private readonly limits: DecodeLimits;
  /** 2026-07-28 `subscriptions/listen` streams open here: idle by nature, ended first by a drain. */
  readonly listens = new Set<ResponseChannel>();

  constructor(server: McpServer | ServerPort, options: StreamableHttpOptions = {}) {
    this.server = servingPort(server);
    this.o = options;
    this.endpoint = options.endpoint ?? '/mcp';
    this.eventStore = options.eventStore === false ? undefined : (options.eventStore ?? new InMemoryEventStore());
    const idle = options.sessionIdleMs ?? 60 * 60_000;
    const checkMs = options.sessionCheckMs ?? defaultCheckMs(idle);
    if (!(checkMs >= 0)) throw new RangeError(`sessionCheckMs must be 0 or more, got ${String(options.sessionCheckMs)}`);
    this.clock = options.clock ?? systemClock;
    this.table = new SessionTable(this.server, { store: options.sessionStore, eventStore: this.eventStore, idleMs: idle, checkMs, clock: this.clock });
    this.sessions = this.table.sessions;
    if (options.stateful !== false) this.stopEndedRelay = this.table.followEnds();
    this.reportError = (e) => this.server.onerror(e);
    const depth = this.server.limits?.maxDepth;
    this.limits = depth === undefined || depth >= DEFAULT_LIMITS.maxDepth ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS, maxDepth: depth };
    if (options.oauth !== undefined && options.authenticate !== undefined) {
      throw new TypeError('oauth and authenticate cannot be combined: oauth authenticates bearer tokens itself (use its verifyToken)');
    }
    this.oauth = options.oauth === undefined ? undefined : new OAuthResourceGuard(options.oauth, this.endpoint, this.reportError, this.clock);
    this.scopeGate = this.oauth?.perMessage ? this.oauth : undefined;
    this.guarded = options.authenticate !== undefined || this.oauth !== undefined;
    // Armed by the first request, not here: Workers refuse timers while a module loads, which is
    // where a handler is usually built. No session exists before a request anyway.
    this.sweepEveryMs = options.stateful === false ? undefined : Math.max(10, Math.min(idle / 2, 60_000));
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Admission checks shared with the legacy SSE transport: Origin/Host, then auth. */
  async admit(req: HttpRequestView, res: HttpResponder): Promise<{ authInfo?: AuthInfo } | undefined> {
    const refusal = checkOriginAndHost(req, this.o);
    if (refusal) {
      sendError(res, 403, refusal);
      return undefined;
    }
    if (this.oauth) {
      const info = await this.oauth.admit(req, res);
      return info ? { authInfo: info } : undefined;
    }
    // The framework's own middleware already said who is calling: that stands in for `authenticate`.
    const authenticate = this.o.authenticate;
    if (req.authInfo === undefined && !authenticate) return {};
    return this.authenticated(req.authInfo ?? (await authenticate!(req)), res);
  }

  /** Whether the caller `authenticate` found may in (a 401 sent when not). */
  private authenticated(authInfo: AuthInfo | undefined, res: HttpResponder): { authInfo: AuthInfo } | undefined {
    // A sender-constrained token (jwtAccessTokens fills `confirmation`) is only good with the
    // proof of its key, which only `oauth` checks: here it would pass as a bearer token.
    if (!authInfo || authInfo.confirmation !== undefined) {
      sendError(res, 401, 'Unauthorized: a valid API key or bearer token is required', -32600, { 'www-authenticate': 'Bearer' });
      return undefined;
    }
    return { authInfo };
  }

  /** `admit` then `route`, in the same turn when the `authenticate` hook answers at once (API keys). */
  private admitNow(req: HttpRequestView, res: HttpResponder, authenticate: Authenticate): Promise<void> {
    const refusal = checkOriginAndHost(req, this.o);
    if (refusal) {
      sendError(res, 403, refusal);
      return DONE;
    }
    const go = (found: AuthInfo | undefined): Promise<void> => {
      const admitted = this.authenticated(found, res);
      return admitted ? this.route(req, res, admitted.authInfo) : DONE;
    };
    try {
      const found = authenticate(req);
      // Any thenable is awaited, as admit's await would (not only a native Promise).
      return typeof (found as { then?: unknown } | undefined)?.then === 'function' ? Promise.resolve(found).then(go) : go(found as AuthInfo | undefined);
    } catch (err) {
      return Promise.reject(err); // as admit's would: the hook's failure rejects the handling
    }
  }

  private armSweep(every: number): void {
    this.sweepEveryMs = undefined;
    this.sweeper = this.clock.setInterval(() => this.table.sweep(), every);
    unrefTimer(this.sweeper);
  }

  handle(req: HttpRequestView, res: HttpResponder): Promise<void> {
    if (this.sweepEveryMs !== undefined) this.armSweep(this.sweepEveryMs);
    if (applyCors(req, res, this.o, this.allow())) return DONE;
    // Without an authenticate hook or OAuth, admission needs no await: `admit`'s checks, inline.
    const authenticate = this.o.authenticate;
    if (authenticate !== undefined && req.authInfo === undefined && this.oauth === undefined) return this.admitNow(req, res, authenticate);
    if (this.guarded || req.authInfo !== undefined)
      return this.admit(req, res).then((admitted) => (admitted ? this.route(req, res, admitted.authInfo) : undefined));
    const refusal = checkOriginAndHost(req, this.o);
    if (refusal) {
      sendError(res, 403, refusal);
      return DONE;
    }
    return this.route(req, res, undefined);
  }

  private route(req: HttpRequestView, res: HttpResponder, authInfo: AuthInfo | undefined): Promise<void> {
    switch (req.method) {
      case 'POST':
        return this.post(req, res, authInfo);
      case 'GET':
        return this.get(req, res, authInfo);
      case 'DELETE':
        return this.delete(req, res, authInfo);
      default:
        sendError(res, 405, `Method Not Allowed: ${req.method}`, -32600, { allow: this.allow() });
        return DONE;
    }
  }

  private allow(): string {
    return this.o.stateful === false ? 'POST' : 'GET, POST, DELETE';
  }

  private async post(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo): Promise<void> {
    if (!isJsonContentType(req.header('content-type'))) {
      return sendError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const accept = req.header('accept');
    const bits = negotiate(accept);
    const json = (bits & ACCEPT_JSON) !== 0;
    // An absent Accept header allows JSON only: a stream needs a client that asked for one.
    const sse = accept !== undefined && (bits & ACCEPT_SSE) !== 0;
    if (!json && !sse) return sendError(res, 406, 'Not Acceptable: Accept must allow application/json or text/event-stream');
    // Stream only to clients that name text/event-stream (or take nothing else): `*/*` is what
    // curl and fetch send by default, and such callers expect a plain JSON body.
    const mode: ResponseMode = !json ? 'sse' : (bits & NAMES_SSE) === 0 ? 'json' : (this.o.responseMode ?? 'auto');
    const limit = this.o.maxBodyBytes ?? DEFAULT_LIMITS.maxMessageSize;
    // In hand already on serve()'s own front: no await then.
    const text = req.bodyNow?.(limit) ?? (await req.readBody(limit));
    const parsed = parseJsonBody(text, res, limit);
    if (parsed === REFUSED) return;
    const decoded = decodeValue(parsed, this.limits, text?.length);
    if (decoded.messages.length === 0) {
      return res.send(400, { 'content-type': 'application/json' }, JSON.stringify(decoded.errors.length === 1 ? decoded.errors[0] : decoded.errors));
    }
    const messages = decoded.messages;
    if (this.scopeGate !== undefined && !this.scopeGate.checkMessages(messages, authInfo, req, res)) return;
    const headerVersion = req.header('mcp-protocol-version');
    // The era is decided here, once, from the first message and the version header; it travels
    // with the messages (FrameInfo.era), so no layer above decides again.
    const first = messages[0];
    const request = 'method' in first ? first : undefined;
    if (this.server.modern && requestEra(request?.method, request?.params, headerVersion) === 'modern') {
      return this.postModern(req, res, decoded.batch ? undefined : first, sse ? mode : undefined, authInfo, text);
    }
    const isInit = messages.length === 1 ? isInitialize(first) : messages.some(isInitialize);
    if (isInit && messages.length > 1) return sendError(res, 400, 'Invalid request: initialize must not be batched');
    if (!isInit && this.badVersion(req, res)) return;
    const stateful = this.o.stateful !== false;
    const info: FrameInfo = stateful
      ? { authInfo, remoteAddress: req.remoteAddress, era: 'handshake', http: req }
      : { authInfo, remoteAddress: req.remoteAddress, era: 'handshake', cannotAsk: STATELESS_ASK, http: req };
    let live: LiveSession | undefined;
    if (!stateful) live = this.transient(isInit ? undefined : (headerVersion ?? DEFAULT_HTTP_VERSION));
    else if (!isInit) {
      // In memory, the usual case: no await (a promise and a hop less per request).
      const found = this.table.lookupNow(req, res, authInfo);
      live = found === RESTORE ? await this.table.lookup(req, res, authInfo) : found;
    } else {
      // A second initialize on a live session is refused (a new session starts without the header;
      // an unknown or expired id is let through, as clients re-initializing after a 404 may send it).
      const sid = req.header('mcp-session-id');
      if (sid !== undefined && this.table.sessions.has(sid)) {
        const id = 'id' in first ? (first as { id: RequestId }).id : null;
        const refusal = errorResponse(
          id,
          ErrorCode.InvalidRequest,
          'Invalid request: this session is already initialized; send initialize without Mcp-Session-Id to start a new one',
        );
        return res.send(400, { 'content-type': 'application/json' }, JSON.stringify(refusal));
      }
      if (this.table.sessions.size >= (this.o.maxSessions ?? 10_000)) {
        return sendError(res, 503, 'Service Unavailable: too many open sessions; retry later', -32603, { 'retry-after': '5' });
      }
      live = await this.table.open(authInfo);
    }
    if (!live) return;
    // The engine's batch and reused-id checks, asked before routing: its refusal carries no
    // request id (or the id of a request that already has a stream), so only this POST can
    // carry it, and a reused id bound here would steal the first request's stream.
    const refused = live.session.peer.refusal(decoded);
    if (refused) {
      if (!stateful) void live.session.close();
      else if (isInit) this.table.drop(live);
      return res.send(400, { 'content-type': 'application/json' }, JSON.stringify(refused));
    }
    const ids: RequestId[] = [];
    for (const m of messages) if ('method' in m && 'id' in m) ids.push((m as { id: RequestId }).id);
    if (ids.length === 0) {
      live.transport.receive(decoded, info);
      res.send(202, {});
      if (!stateful) void live.session.close();
      return;
    }
    // For initialize, the version the handshake will settle on (the priming decision needs it).
    const version = isInit
      ? negotiateVersion((first as { params?: { protocolVersion?: unknown } }).params?.protocolVersion, this.server.versions)
      : (live.session.protocolVersion ?? DEFAULT_HTTP_VERSION);
    const target = live;
    const channel = new ResponseChannel(res, {
      streamPrefix: target.streamPrefix,
      streamNo: ++target.streams,
      ids,
      batch: decoded.batch,
      mode,
      headers: target.headers,
      jsonHeaders: target.jsonHeaders,
      sseHeaders: target.headers === NO_HEADERS ? SSE_HEADERS : undefined,
      eventStore: stateful ? this.eventStore : undefined,
      onError: this.reportError,
      priming: features.resumableStreams(version),
      retryMs: this.o.retryMs ?? 1000,
      keepAliveMs: this.o.keepAliveMs ?? 15_000,
      onDone: (c) => {
        target.transport.unbind(c);
        if (!stateful) void target.session.close();
        else if (isInit && !target.session.initialized) this.table.drop(target);
        else if (isInit) this.table.remember(target);
      },
    });
    target.transport.bind(ids, channel);
    target.transport.receive(decoded, info);
  }

  /**
   * The 2026-07-28 era: one request per POST, no session (a `Mcp-Session-Id` is ignored, never
   * minted), routing headers checked against the body, errors mapped to HTTP statuses, and a
   * closed response stream cancels the request. No connection machinery either: the server's
   * stateless entry serves the request, which writes to this POST's channel directly.
   */
  /** `mode` is undefined when the client does not accept an event stream (JSON only then). */
  private async postModern(
    req: HttpRequestView,
    res: HttpResponder,
    message: JsonRpcMessage | undefined,
    mode: ResponseMode | undefined,
    authInfo: AuthInfo | undefined,
    body: string | undefined,
  ): Promise<void> {
    if (!message) return sendError(res, 400, 'Invalid request: protocol version 2026-07-28 has no JSON-RPC batches');
    const id = 'id' in message ? (message.id as RequestId) : undefined;
    // The tool's schema comes from the server, whatever built it (McpServer, the gateway...), for
    // this caller (what it may call can depend on who it is); awaited only when it is a promise.
    const tool = 'method' in message && message.method === 'tools/call' ? message.params?.name : undefined;
    let schema = typeof tool === 'string' ? this.server.toolInputSchema?.(tool, authInfo) : undefined;
    if (schema instanceof Promise) schema = await schema.catch(() => undefined);
    const refused = checkModernHeaders(req, message, () => schema as object | undefined);
    if (refused) {
      return res.send(
        modernStatusFor(refused.code),
        { 'content-type': 'application/json' },
        JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: refused.toJSON() }),
      );
    }
    // The only client notification of this era is cancellation, which HTTP expresses by closing
    // the stream: accept and drop.
    if (id === undefined || !('method' in message)) return res.send(202, {});
    const listen = message.method === 'subscriptions/listen';
    if (listen) {
      // Its acknowledgement and notifications come before any answer: only a stream carries them,
      // whatever the response mode (a JSON one would drop them, and the client would wait forever).
      if (mode === undefined)
        return sendError(res, 406, 'Not Acceptable: subscriptions/listen is answered with an event stream; Accept must allow text/event-stream');
      mode = 'sse';
    }
    const exchange = new StatelessExchange(this.server.messageMiddleware, this.reportError);
    const channel = (exchange.channel = new ResponseChannel(res, {
      streamPrefix: 'modern',
      ids: [id],
      batch: false,
      mode: mode ?? 'json',
      headers: NO_HEADERS,
      jsonHeaders: JSON_HEADERS,
      sseHeaders: SSE_HEADERS,
      priming: false,
      retryMs: 0,
      keepAliveMs: this.o.keepAliveMs ?? 15_000,
      statusFor: MODERN_STATUS,
      onDisconnect: () => {
        if (listen) this.listens.delete(channel);
        exchange.disconnected();
      },
      onDone: listen ? () => this.listens.delete(channel) : NOTHING,
    }));
    if (listen) this.listens.add(channel);
    exchange.serve(this.server.modern!, message as JsonRpcRequest, { authInfo, remoteAddress: req.remoteAddress, era: 'modern', http: req, body });
  }

  /** GET and DELETE do not exist in the 2026-07-28 era. */
  private modernOnly(req: HttpRequestView, res: HttpResponder): boolean {
    const v = req.header('mcp-protocol-version');
    if (!this.server.modern || v === undefined || !isModernVersion(v)) return false;
    sendError(res, 405, `Method Not Allowed: protocol version ${v} serves POST only`, -32600, { allow: 'POST' });
    return true;
  }

  /** An unsupported MCP-Protocol-Version header is a 400 on every request after initialize. */
  private badVersion(req: HttpRequestView, res: HttpResponder): boolean {
    const v = req.header('mcp-protocol-version');
    if (v === undefined || SUPPORTED_HEADER_VERSIONS.has(v)) return false;
    sendError(res, 400, `Bad Request: unsupported MCP-Protocol-Version "${v}" (supported: ${[...SUPPORTED_HEADER_VERSIONS].join(', ')})`);
    return true;
  }

  private async get(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo): Promise<void> {
    if (this.modernOnly(req, res)) return;
    if (this.o.stateful === false) return sendError(res, 405, 'Method Not Allowed: this server is stateless and has no GET stream', -32600, { allow: 'POST' });
    if (this.badVersion(req, res)) return;
    if (!accepts(req.header('accept'), 'text/event-stream') || req.header('accept') === undefined) {
      return sendError(res, 406, 'Not Acceptable: GET needs Accept: text/event-stream');
    }
    const live = await this.table.lookup(req, res, authInfo);
    if (!live) return;
    const lastEventId = req.header('last-event-id');
    const headers = { ...SSE_HEADERS, 'mcp-session-id': live.id };
    const store = this.eventStore;
    if (lastEventId !== undefined && store) {
      const missed: Array<[string, JsonRpcMessage]> = [];
      const streamId = await store.replayEventsAfter(lastEventId, (id, m) => missed.push([id, m]));
      // Event ids are per session: another session's stream is as good as unknown.
      // 400, not 404: a 404 tells the client its whole session is gone, which this is not.
      if (!streamId?.startsWith(`${live.id}/`)) return sendError(res, 400, 'Bad Request: unknown or expired Last-Event-ID; open a new GET stream without it');
      const writer = res.stream(200, headers);
      for (const [id, m] of missed) writer.write(sseEvent(id, m));
      // Whatever was stored while the first replay ran (an async store) comes with a second one.
      const after = missed.length > 0 ? missed[missed.length - 1][0] : lastEventId;
      const replay = (send: (id: string, m: JsonRpcMessage) => void) => store.replayEventsAfter(after, send);
      const channel = live.transport.openChannels.find((c) => c.streamId === streamId);
      if (channel) return channel.resume(writer, replay);
      // That stream has finished: everything it will ever have is stored.
      await replay((id, m) => writer.write(sseEvent(id, m)));
      return writer.end();
    }
    if (live.transport.standalone?.connected) return sendError(res, 409, 'Conflict: this session already has an open GET stream');
    live.transport.standalone?.close();
    const channel = new ResponseChannel(res, {
      streamPrefix: live.streamPrefix,
      streamNo: ++live.streams,
      ids: [],
      batch: false,
      mode: 'sse',
      headers: { 'mcp-session-id': live.id },
      eventStore: this.eventStore,
      onError: this.reportError,
      priming: features.resumableStreams(live.session.protocolVersion ?? ''),
      retryMs: this.o.retryMs ?? 1000,
      keepAliveMs: this.o.keepAliveMs ?? 15_000,
      onDone: (c) => live.transport.unbind(c),
    });
    live.transport.standalone = channel;
  }

  private async delete(req: HttpRequestView, res: HttpResponder, authInfo?: AuthInfo): Promise<void> {
    if (this.modernOnly(req, res)) return;
    if (this.o.stateful === false) return sendError(res, 405, 'Method Not Allowed: this server is stateless and has no sessions', -32600, { allow: 'POST' });
    if (this.badVersion(req, res)) return;
    const live = await this.table.lookup(req, res, authInfo);
    if (!live) return;
    await this.table.logout(live);
    res.send(200, {});
  }

  /**
   * Stateless: a throwaway connection whose handshake is taken as done at the header's version.
   * Synchronous: the transport's start does nothing, so the session needs no wait to be ready.
   */
  private transient(version: string | undefined): LiveSession {
    const transport = new HttpSessionTransport();
    const session = this.server.attach(transport, false);
    void session.start();
    if (version !== undefined) session.era.assume({ era: 'handshake', protocolVersion: version, clientCapabilities: {} });
    return {
      id: '',
      transport,
      session,
      principal: undefined,
      lastSeen: 0,
      streams: 0,
      streamPrefix: '/',
      headers: NO_HEADERS,
      jsonHeaders: JSON_HEADERS,
      checkAt: Infinity,
    };
  }

  /**
   * Ends the connections of open streams, leaving the requests running (see
   * ResponseChannel.hangUp): the standalone GET streams only, or every stream.
   */
  hangUp(which: 'standalone' | 'all'): void {
    // A listen is the 2026-07-28 standalone stream: it waits for notifications, never for work.
    for (const c of this.listens) c.hangUp();
    for (const live of this.sessions.values()) {
      const t = live.transport;
      if (which === 'standalone') t.standalone?.hangUp();
      else for (const c of t.openChannels) c.hangUp();
    }
  }

  /** Handshake-era requests still running here (their response not complete). */
  get requestsInFlight(): number {
    let n = 0;
    for (const live of this.sessions.values()) {
      const t = live.transport;
      for (const c of t.openChannels) if (c !== t.standalone && !c.done) n++;
    }
    return n;
  }

  /** Closes every session and stops timers. */
  async close(): Promise<void> {
    this.sweepEveryMs = undefined;
    if (this.sweeper !== undefined) this.clock.clearInterval(this.sweeper);
    this.stopEndedRelay?.();
    await this.table.close();
  }
}
