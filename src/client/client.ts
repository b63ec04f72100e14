import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/messages.js';
import { Peer, type RequestOptions } from '../engine/peer.js';
import type { ClientRequestMap, ServerNotificationMap } from '../protocol/methods.js';
import { LOGGING_LEVELS, type ClientCapabilities, type Implementation, type LoggingLevel, type Root, type ServerCapabilities } from '../protocol/types.js';
import type { CallToolResult, SubscriptionFilter } from '../protocol/params.js';
import { APPS_EXTENSION, appsCapability } from '../protocol/apps.js';
import { declaresTasks, TASKS_EXTENSION, type CreateTaskResult, type DetailedTask, type Task } from '../protocol/tasks.js';
import { isHandshakeVersion } from '../protocol/versions.js';
import type { SessionExpiredError } from '../transports/http/client/http-common.js';
import { SseClientTransport } from '../transports/http/client/sse-legacy.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import type { Transport } from '../engine/transport.js';
import { eraCache, eraKeyOf, eraOf, probeEra, startFailure } from './era.js';
import type { Era, EraOption, Verdict } from './era.js';
import { handshakeUnlessLate, performHandshake } from './handshake.js';
import { ServerCalls, type CallOptions } from './calls.js';
import { ClientInputs, type ElicitationHandler, type SamplingHandler } from './inputs.js';
import { keepListening, ListenRegistry, ListenStream, missedWhileAway, type ListenNotification, type ListenOptions, type Subscription } from './listen.js';
import { ModernSession, type ConnectOutcome } from './modern.js';
import { HeaderingTransport, modernSendOptions, ToolHeaderBook } from './param-headers.js';
import { SessionRecovery, type SessionState } from './reconnect.js';
import { TaskDriver } from './tasks.js';
import { CoreTasks, modernNames } from './core-tasks.js';
import { callRefusal } from './call-rules.js';

export type { SamplingHandler, ElicitationHandler };

import type { ClientOptions } from './options.js';
import { systemClock } from '../engine/clock.js';
export type { ClientOptions, ReinitializeEvent } from './options.js';

type Listener = (params: JsonObject | undefined) => void;

/** Options objects of {@link McpClient.startToolCall}: their tasks are the caller's to follow. */
const handOver = new WeakSet<object>();

/**
 * The MCP client: connects, negotiates the era (2026-07-28 stateless requests, or the
 * `initialize` handshake), and offers a typed call for every server method, plus the handlers
 * a server may ask for input with (sampling, elicitation, roots) in either era.
 */
export class McpClient extends ServerCalls {
  readonly options: ClientOptions;
  private peer: Peer | undefined;
  private outcome: ConnectOutcome | undefined;
  private recovery: SessionRecovery | undefined;
  /** Set while speaking 2026-07-28. */
  private session: ModernSession | undefined;
  /** What this client told the server (at initialize, or with every request); calls are judged against it. */
  private declared: ClientCapabilities = {};
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly inputs: ClientInputs;
  private readonly listens = new ListenRegistry();
  private readonly toolBook = new ToolHeaderBook();
  private readonly tasks: TaskDriver;
  /** 2025-11-25 core tasks, for handshake sessions at that revision. */
  private readonly core: CoreTasks;
  /** Whether tools/call tasks are driven here: the stateless era, with the extension declared. */
  private driving = false;

  constructor(options: ClientOptions) {
    super();
    this.options = options;
    this.inputs = new ClientInputs(options);
    this.tasks = new TaskDriver(
      {
        request: (method, params, opts) => this.request(method, params, opts),
        inputs: this.inputs,
        declared: () => this.declared,
        listen: (taskId) => {
          try {
            return this.listen({ taskIds: [taskId] });
          } catch (err) {
            // Polling alone still gets there; the stream would only have been quicker.
            this.options.onerror?.(err instanceof Error ? err : new Error(String(err)));
            return undefined;
          }
        },
        warn: (m) => this.options.onerror?.(new Error(m)),
        clock: options.clock,
      },
      typeof options.tasks === 'object' ? options.tasks : {},
    );
    this.core = new CoreTasks({
      request: (method, params, opts) => this.request(method, params, opts),
      optIn: () => !!this.options.tasks,
      cancel: (taskId) => this.tasks.cancel(taskId),
      warn: (m) => this.options.onerror?.(new Error(m)),
    });
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

  /** What this client declares: in the stateless era with the tasks extension if opted in. */
  get capabilities(): ClientCapabilities {
    const caps = this.handshakeCapabilities();
    if (this.options.tasks && !declaresTasks(caps)) caps.extensions = { ...caps.extensions, [TASKS_EXTENSION]: {} };
    return caps;
  }

  /**
   * What `initialize` declares. No `tasks`: 2025-11-25's client capability offers to run the
   * server's sampling/elicitation as tasks, which this client does not; calling task tools
   * needs only the server's capability.
   */
  private handshakeCapabilities(): ClientCapabilities {
    const caps = this.inputs.capabilities(this.options.capabilities, this.options.elicitationUrl);
    if (this.options.apps && caps.extensions?.[APPS_EXTENSION] === undefined) caps.extensions = { ...caps.extensions, [APPS_EXTENSION]: appsCapability() };
    return caps;
  }

  /**
   * Connects and settles the era (see {@link ClientOptions.era}): the handshake, or
   * `server/discover`. Resolves once the client may send requests.
   */
  async connect(transport: Transport): Promise<ConnectOutcome> {
    if (this.peer && !this.peer.isClosed) throw new LocalError('protocol', 'This client is already connected; close it first');
    const wanted = this.wantedEra(transport);
    const peer = new Peer(
      // The transport is told what each message is: once this connection speaks 2026-07-28,
      // everything it sends belongs to that era. No transport guesses it from the body.
      new HeaderingTransport(transport, (m) => (this.session === undefined ? undefined : modernSendOptions(this.toolBook, m))),
      { onrequest: (req, inbound) => this.onServerRequest(req, inbound.signal), onnotification: (n) => this.onNotification(n) },
      { requestTimeoutMs: this.options.requestTimeoutMs, middleware: this.options.middleware, onerror: this.options.onerror, clock: this.options.clock },
    );
    // Innermost: it sees listen requests exactly as this client built them.
    peer.use(this.listens.middleware);
    // 2026-07-28 servers send no requests and clients send no responses (§2.1): drop, unanswered.
    peer.use({
      incoming: (m, next) => {
        if (!this.session || !('method' in m) || !('id' in m)) return next(m);
        this.options.onerror?.(new Error(`Ignored a "${m.method}" request from the server: 2026-07-28 servers ask for input with input_required results`));
        return Promise.resolve();
      },
    });
    this.peer = peer;
    this.outcome = undefined;
    this.session = undefined;
    this.driving = false;
    this.toolBook.clear();
    this.core.reset(undefined, undefined);
    this.recovery = new SessionRecovery((cause) => this.reinitialize(peer, cause), this.options.reinitializeOnExpiry !== false);
    await peer.start();
    this.declared = this.capabilities;
    try {
      this.outcome = await this.negotiate(peer, transport, wanted);
    } catch (err) {
      await peer.close().catch(() => {});
      throw err;
    }
    return this.outcome;
  }

  /** The era asked for, with what a pinned version or the transport implies. */
  private wantedEra(transport: Transport): EraOption {
    const era = eraOf(this.options);
    const pinned = this.options.protocolVersion;
    if (era === 'modern' && isHandshakeVersion(pinned)) {
      throw new LocalError('protocol', `protocolVersion "${pinned}" belongs to the handshake era; era 'modern' needs 2026-07-28 or later`);
    }
    // HTTP+SSE is a 2024-11-05 transport: the stateless era is not defined on it.
    if (era === 'auto' && (isHandshakeVersion(pinned) || transport instanceof SseClientTransport)) return 'handshake';
    return era;
  }

  private async negotiate(peer: Peer, transport: Transport, wanted: EraOption): Promise<ConnectOutcome> {
    const pinned = this.options.protocolVersion;
    const session = new ModernSession(
      {
        // No sessions in this era, so nothing for SessionRecovery to recover: straight to the engine.
        // The session's params are its own copies (made to carry the envelope): the engine may write into them.
        send: (method, params, options) => peer.request(method, params, options, true),
        inputs: this.inputs,
        clientInfo: this.clientInfo,
        declared: this.declared,
        credential: async () => {
          const c = (transport as { credentialKey?: () => Promise<string | undefined> | string | undefined }).credentialKey;
          return typeof c === 'function' ? await c.call(transport) : undefined;
        },
        tools: this.toolBook,
        // Only HTTP mirrors arguments into headers, so only there is a bad annotation fatal.
        dropInvalidTools: transport instanceof StreamableHttpClientTransport,
        maxInputRounds: this.options.maxInputRounds ?? 8,
        cache: this.options.cache !== false,
        clock: this.options.clock ?? systemClock,
        tasks: declaresTasks(this.declared),
        warn: (m) => this.options.onerror?.(new Error(m)),
      },
      isHandshakeVersion(pinned) ? undefined : pinned,
    );
    const key = wanted === 'auto' ? eraKeyOf(transport) : undefined;
    const cached = eraCache.get(key);
    let verdict: Verdict | undefined;
    let era: Era;
    if (wanted !== 'auto') era = wanted;
    else if (cached === 'modern' || cached === 'handshake') era = cached;
    else {
      verdict = await probeEra(peer, transport, session.withEnvelope(undefined), key, this.options);
      era = verdict.era;
      if (verdict.era === 'modern') session.adopt(verdict.supported);
    }
    try {
      let outcome: ConnectOutcome | undefined;
      if (era === 'handshake') {
        const declared = this.handshakeCapabilities();
        // After a probe that timed out, a stdio server answers in order: the probe's answer, if
        // it comes before initialize's, says it was only slow to start (and speaks 2026-07-28).
        const first = await handshakeUnlessLate(
          peer,
          this.clientInfo,
          declared,
          { protocolVersion: isHandshakeVersion(pinned) || wanted === 'handshake' ? pinned : undefined, timeoutMs: this.options.requestTimeoutMs },
          verdict?.era === 'handshake' ? verdict.late : undefined,
        );
        if ('v' in first) {
          era = 'modern';
          verdict = first.v;
          session.adopt(first.v.supported);
        } else {
          this.declared = declared;
          outcome = { ...first.o, era: 'handshake' };
          this.core.reset(first.o.protocolVersion, first.o.serverCapabilities);
        }
      }
      if (era === 'modern') {
        this.session = session;
        this.driving = declaresTasks(this.declared);
        outcome = await session.discover(verdict?.era === 'modern' ? verdict.discovered : undefined, this.options.requestTimeoutMs);
      }
      if (!outcome) throw new LocalError('protocol', 'no era was settled');
      eraCache.set(key, era);
      return outcome;
    } catch (err) {
      // Whatever was remembered did not work: the next connection probes again.
      this.session = undefined;
      this.driving = false;
      eraCache.delete(key);
      throw startFailure(err, era === 'modern' ? 'server/discover' : 'initialize');
    }
  }

  get connected(): boolean {
    return !!this.outcome && !!this.peer && !this.peer.isClosed;
  }
  /** The era in use once connected: 'modern' (2026-07-28, stateless) or 'handshake'. */
  get era(): Era | undefined {
    return this.outcome?.era;
  }
  get protocolVersion(): string | undefined {
    return this.session?.version ?? this.outcome?.protocolVersion;
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
  request<M extends keyof ClientRequestMap>(
    method: M,
    params?: ClientRequestMap[M]['params'],
    options?: RequestOptions,
  ): Promise<ClientRequestMap[M]['result']>;
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  request(method: string, params?: object, options?: RequestOptions): Promise<unknown> {
    const peer = this.peer;
    const outcome = this.outcome;
    if (!peer || !outcome || !this.recovery) return Promise.reject(new LocalError('closed', `Cannot send "${method}": the client is not connected`));
    const session = this.session;
    // The stateless era has no session-wide log level: it travels with each request.
    if (session && method === 'logging/setLevel') return this.setModernLevel(session, (params as { level?: unknown } | undefined)?.level);
    const refused = callRefusal(method, {
      modernVersion: session?.version,
      tasksDeclared: this.driving,
      strict: this.options.strictCapabilities !== false,
      serverCapabilities: outcome.serverCapabilities,
      protocolVersion: outcome.protocolVersion,
    });
    if (refused) return Promise.reject(refused);
    if (session) {
      const sent = session.request(method, params as JsonObject | undefined, options);
      if (!this.driving || method !== 'tools/call') return sent;
      return sent.then((r) =>
        r.resultType === 'task' && !(options && handOver.has(options)) ? this.tasks.drive(r as unknown as Task, options as CallOptions) : r,
      );
    }
    const sent = this.recovery.run(() => peer.request(method, params as JsonObject | undefined, options));
    // Only tools/list teaches core tasks anything: other requests pay no extra promise.
    return method === 'tools/list' && this.core.active ? sent.then((r) => this.core.observe(method, r)) : sent;
  }

  /**
   * Calls a tool and returns its result. In 2025-11-25 sessions a tool that needs (or, when
   * asked, allows) a task is called as one and followed to its result; `request('tools/call')`
   * stays as sent, for callers who augment calls themselves.
   */
  override callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult> {
    if (!this.core.active || this.session) return super.callTool(name, args, options);
    return this.core.call(args === undefined ? { name } : { name, arguments: args }, options) as Promise<unknown> as Promise<CallToolResult>;
  }

  /** In 2025-11-25 sessions the task also gets the extension's names (`ttlMs`, `pollIntervalMs`). */
  override async getTask(taskId: string, options?: RequestOptions): Promise<DetailedTask> {
    const task = await super.getTask(taskId, options);
    return this.core.active && !this.session ? modernNames(task as unknown as JsonObject) : task;
  }

  /**
   * Starts a tool call and returns what the server answered first: the tool's result, or,
   * when the server runs the call as a task (2026-07-28, `tasks` option on), the
   * CreateTaskResult (`resultType: "task"`), which this client then leaves alone. Follow it
   * with {@link waitForTask}, or with getTask/updateTask/cancelTask yourself. A handshake-era
   * (2025-11-25) task is followed to its result, as by callTool. `meta`: the request's `_meta`.
   */
  startToolCall(name: string, args?: Record<string, unknown>, options: CallOptions = {}, meta?: JsonObject): Promise<CallToolResult | CreateTaskResult> {
    const params: JsonObject = { name, ...(args === undefined ? {} : { arguments: args as JsonObject }), ...(meta === undefined ? {} : { _meta: meta }) };
    // Handshake era: callTool, or (with a _meta callTool cannot carry) the same call with these params.
    if (this.core.active && !this.session) return (meta === undefined ? this.callTool(name, args, options) : this.core.call(params, options)) as Promise<never>;
    const own: CallOptions = { ...options };
    handOver.add(own);
    return this.request('tools/call', params, own) as Promise<unknown> as Promise<CallToolResult | CreateTaskResult>;
  }

  /**
   * Follows a task to its end as `callTool` does (polls, answers input requests once each,
   * `tasks/cancel` on abort) and returns its result: for a task from {@link startToolCall},
   * or one whose id was kept from an earlier connection. Given an id, its state is read first.
   */
  async waitForTask(task: string | Task, options: CallOptions = {}): Promise<CallToolResult> {
    if (!this.driving) {
      throw new LocalError(
        'capability',
        this.session
          ? 'waitForTask needs the tasks extension: set the `tasks` client option'
          : 'waitForTask needs protocol version 2026-07-28 and the `tasks` client option',
      );
    }
    const first = typeof task === 'string' ? await this.getTask(task, { signal: options.signal, timeoutMs: options.timeoutMs }) : task;
    return (await this.tasks.drive(first, options)) as CallToolResult;
  }

  private async setModernLevel(session: ModernSession, level: unknown): Promise<JsonObject> {
    if (typeof level !== 'string' || !(LOGGING_LEVELS as readonly string[]).includes(level)) {
      throw new TypeError(`Invalid logging level ${JSON.stringify(level)}; expected one of ${LOGGING_LEVELS.join(', ')}`);
    }
    session.logLevel = level as LoggingLevel;
    return {};
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

  /**
   * 2026-07-28: opens a `subscriptions/listen` stream for the notifications `filter` opts into
   * (list changes, resource updates, and with the `tasks` option `notifications/tasks` for the
   * `taskIds` given, which also wake whoever follows those tasks). Its notifications go to
   * `onNotification`, and to {@link on} listeners too; list changes also invalidate cached
   * lists. Several may be open at once. A stream lost without the server ending it (HTTP: the SSE stream broke, the server
   * restarted) is listened again with backoff, under a new request id, and the cached lists and
   * reads it covers are dropped, since what was sent meanwhile is not replayed (see
   * {@link ListenOptions}). `ended` settles when the server ends it, `close()` is called, the
   * connection closes, or listening again keeps failing.
   */
  listen(filter: SubscriptionFilter, onNotification: (notification: ListenNotification) => void = () => {}, options: ListenOptions = {}): Subscription {
    const peer = this.peer;
    const session = this.session;
    if (!peer || !this.outcome || peer.isClosed) throw new LocalError('closed', 'Cannot listen: the client is not connected');
    if (!session) throw new LocalError('capability', 'listen() needs protocol version 2026-07-28; in the handshake era use on() and subscribeResource()');
    if (filter?.taskIds !== undefined && !this.driving)
      throw new LocalError('capability', 'listen({ taskIds }) needs the tasks extension: set the `tasks` client option');
    const stream = new ListenStream(session.withEnvelope({ notifications: filter as JsonObject }), onNotification, (e) => this.options.onerror?.(e));
    stream.reacknowledged = (acknowledged) => {
      for (const n of missedWhileAway(acknowledged)) session.cache?.notify(n.method, n.params);
      // A status change sent in the gap is gone: whoever follows those tasks looks now.
      for (const taskId of acknowledged.taskIds ?? []) this.tasks.notified({ taskId });
      options.onrelisten?.(acknowledged);
    };
    this.listens.add(stream);
    const host = {
      // Long-lived by design: no timeout. It ends by close(), the server, or the connection.
      send: (s: ListenStream) => peer.request('subscriptions/listen', s.params, { signal: s.abort.signal, timeoutMs: 0 }),
      open: () => !peer.isClosed && this.peer === peer,
      registry: this.listens,
    };
    void keepListening(stream, host, options.relisten).then((err) => {
      this.listens.remove(stream);
      stream.over(err);
    });
    return stream;
  }

  setSamplingHandler(handler: SamplingHandler | undefined): void {
    this.inputs.sampling = handler;
  }
  setElicitationHandler(handler: ElicitationHandler | undefined): void {
    this.inputs.elicitation = handler;
  }

  /**
   * Replaces the roots. In the handshake era the server is told (notifications/roots/list_changed);
   * in 2026-07-28 servers ask for roots within each request, so there is nobody to tell.
   */
  async setRoots(roots: Root[]): Promise<void> {
    for (const r of roots) if (!r.uri.startsWith('file://')) throw new TypeError(`Root "${r.uri}" must be a file:// URI`);
    this.inputs.roots = roots;
    // Only a client that declared roots.listChanged may send it (and the server drops it otherwise).
    if (this.connected && !this.session && this.declared.roots?.listChanged) await this.notify('notifications/roots/list_changed');
  }

  async close(): Promise<void> {
    // A task abandoned just before closing deserves its tasks/cancel.
    await this.tasks.settle();
    await this.peer?.close();
  }

  /** One re-initialization for {@link SessionRecovery}: the handshake again, same transport. */
  private async reinitialize(peer: Peer, cause: SessionExpiredError): Promise<void> {
    if (this.peer !== peer || peer.isClosed) throw new LocalError('closed', 'the client is closed');
    peer.cancelInbound('the session this request belonged to has ended');
    const declared = this.handshakeCapabilities();
    const outcome = await performHandshake(peer, this.clientInfo, declared, {
      protocolVersion: this.options.protocolVersion,
      timeoutMs: this.options.requestTimeoutMs,
    });
    this.declared = declared;
    this.outcome = { ...outcome, era: 'handshake' };
    this.core.reset(outcome.protocolVersion, outcome.serverCapabilities);
    try {
      this.options.onreinitialize?.({ outcome, cause });
    } catch (err) {
      this.options.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private async onServerRequest(req: JsonRpcRequest, signal: AbortSignal): Promise<JsonObject> {
    if (req.method === 'ping') return {};
    const answer = await this.inputs.answer(req.method, req.params, this.declared, signal);
    if (answer === undefined) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${req.method}`);
    return answer;
  }

  private onNotification(n: JsonRpcNotification): void {
    this.session?.cache?.notify(n.method, n.params);
    if (n.method === 'notifications/tasks') this.tasks.notified(n.params);
    if (n.method === 'notifications/tools/list_changed') this.core.forget();
    this.listens.streamOf(n)?.deliver(n);
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
