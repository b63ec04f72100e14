import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../jsonrpc/messages.js';
import type { InboundRequest } from '../engine/inbound.js';
import type { RequestOptions } from '../engine/peer.js';
import type { RequestEnvelope } from '../protocol/handshake.js';
import type { ClientCapabilities, Implementation, LoggingLevel, Root } from '../protocol/types.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult } from '../protocol/params.js';
import type { Era } from '../protocol/era.js';
import { features } from '../protocol/versions.js';
import type { InferSchemaOutput } from '../schema/standard.js';
import type { AuthInfo } from '../engine/transport.js';
import { checkAnswer, formRequest, type ElicitAnswer, type ElicitSchema, type ElicitSchemaParams } from './elicit.js';
import { RequestFacts } from './request-facts.js';
import { StepLog } from './steps.js';

/**
 * One client connection of the handshake era, as handlers and extensions see it (`ServerSession`
 * is the implementation). An interface, so that what a request sees does not depend on the
 * connection machinery.
 */
export interface Session {
  readonly protocolVersion: string | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** `initialize` was answered. */
  readonly initialized: boolean;
  /** The client sent `notifications/initialized`: the server may send it notifications. */
  readonly ready: boolean;
  /** Resource URIs this client subscribed to. */
  readonly subscriptions: Set<string>;
  /** Free for application use (per-connection state). */
  readonly data: Map<string, unknown>;
  /** Minimum level for `notifications/message`, set by `logging/setLevel` (undefined: not set, `info` applies). */
  readonly logLevel: LoggingLevel | undefined;
  /** Whether a message at `level` passes this connection's `logging/setLevel` filter (`info` until the client sets one). */
  wantsLog(level: LoggingLevel): boolean;
  /** `logging/setLevel` for this connection. */
  setLevel(params: JsonObject | undefined): JsonObject;
  notify(method: string, params?: JsonObject): Promise<void>;
  /** A server-to-client request not tied to any client request. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  ping(options?: RequestOptions): Promise<JsonObject>;
  onClose(listener: (reason?: Error) => void): void;
  close(): Promise<void>;
}

/** Options of ctx.elicit / ctx.sample / ctx.roots. */
export interface InputOptions extends RequestOptions {
  /**
   * The key this question has in a 2026-07-28 `input_required` result (default: `elicit-1`,
   * `sample-1`... in call order). Ignored in the handshake era, where it is a real request.
   */
  key?: string;
}

/** What every handler receives besides its arguments. */
export interface RequestContext {
  /**
   * How this request is served: 'handshake' (a connection that ran `initialize`; `session` is
   * set) or 'modern' (2026-07-28, stateless). Decided once, where the request came in.
   */
  readonly era: Era;
  readonly requestId: RequestId;
  readonly method: string;
  /** Fires when the client cancels or the connection goes away. */
  readonly signal: AbortSignal;
  /** The request's `_meta` (progress token, trace context, vendor keys). */
  readonly meta: JsonObject | undefined;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly authInfo: AuthInfo | undefined;
  /** The caller's network address, when the transport knows it (HTTP). */
  readonly remoteAddress: string | undefined;
  /** The connection (handshake era); undefined for stateless requests. */
  readonly session: Session | undefined;
  /** Reports progress if the client asked for it; non-increasing values are dropped. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** `notifications/message`, filtered by the client's log level. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the user to fill in a form whose `requestedSchema` is a Standard Schema (a
   * `z.object(...)`) or a shape of them: sent as its JSON Schema, and an accepted answer is
   * validated by it (an invalid one rejects with -32602) and typed as its output. The
   * once-per-call rule of the overload below applies.
   */
  elicit<S extends ElicitSchema>(params: ElicitSchemaParams<S>, options?: InputOptions): Promise<ElicitAnswer<InferSchemaOutput<S>>>;
  /**
   * Asks the user for input through the client (form mode with a JSON Schema, or URL mode).
   *
   * In 2026-07-28 the request is answered with `input_required` and this call waits for the
   * client's retry. Code before it runs once per call when the retry reaches the instance that
   * asked (the waiting run resumes); a retry that lands elsewhere (another instance, a restart,
   * after `modern.suspend.ttlMs`) runs the handler again from the top, with the answers it got
   * so far. Wrap side effects that come before a question in {@link RequestContext.step}.
   */
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion. In 2026-07-28, an input round: see {@link RequestContext.elicit}. */
  sample(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult>;
  /** The client's roots. In 2026-07-28, an input round: see {@link RequestContext.elicit}. */
  roots(options?: InputOptions): Promise<Root[]>;
  /**
   * Runs `fn` once per call and returns its result; `name` identifies the step within the call
   * (the same name again returns the recorded result). The result is recorded as JSON in the
   * call's sealed `requestState`, so a handler replayed on another instance gets it back instead
   * of running `fn` again: wrap in it what must not happen twice before an
   * `elicit`/`sample`/`roots` (charging a card). The result must be JSON data (you get a JSON copy
   * of it, as a replay would; 64 KiB for all steps of a call); a step that throws is not recorded.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /** Any notification tied to this request. */
  notify(method: string, params?: JsonObject): Promise<void>;
  /**
   * The task this handler runs as (set by the tasks extensions: 2026-07-28, or 2025-11-25 core
   * tasks), or undefined for an ordinary request. While it is set, elicit/sample/roots park the task in
   * `input_required` and `signal` fires on `tasks/cancel`. In 2026-07-28 progress, log and
   * notify send nothing; in 2025-11-25 they go out on the session tagged with the task.
   */
  readonly taskId: string | undefined;
  /**
   * For a tool registered with `task: { support, start: 'handler' }`: turns this request into a
   * task. The request is answered with the task at once and the handler carries on in the
   * background (what it returns then becomes the task's result). Ask for input through MRTR
   * before calling it. Resolves at once, changing nothing, when the request cannot become a
   * task (handshake era, a client without the extension, any other tool, already a task).
   */
  startTask(): Promise<void>;
}

/** The handshake-era context: server-to-client needs become real requests on the connection. */
export class ServerContext extends RequestFacts implements RequestContext {
  readonly session: Session;

  constructor(session: Session, inbound: InboundRequest, envelope: RequestEnvelope) {
    super(inbound, envelope);
    this.session = session;
  }

  get era(): 'handshake' {
    return 'handshake';
  }

  private steps: StepLog | undefined = undefined;

  /** Set only in the context of a handler running as a task (an extension's subclass). */
  get taskId(): string | undefined {
    return undefined;
  }

  startTask(): Promise<void> {
    return Promise.resolve();
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    const msg = message !== undefined && features.progressMessage(this.protocolVersion) ? message : undefined;
    return this.inbound.progress(progress, total, msg);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.session.wantsLog(level) ? this.sendLog(level, data, logger) : Promise.resolve();
  }

  elicit<S extends ElicitSchema>(params: ElicitSchemaParams<S>, options?: InputOptions): Promise<ElicitAnswer<InferSchemaOutput<S>>>;
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult>;
  async elicit(params: ElicitParams | ElicitSchemaParams<ElicitSchema>, options?: RequestOptions): Promise<ElicitResult> {
    const mode = params.mode ?? 'form';
    if (!features.elicitation(this.protocolVersion)) {
      throw new LocalError('capability', `Cannot elicit: protocol version ${this.protocolVersion} has no elicitation`);
    }
    this.reachable('elicit');
    const cap = this.clientCapabilities.elicitation;
    if (!cap) throw new LocalError('capability', 'Cannot elicit: the client did not declare the "elicitation" capability');
    // An empty elicitation object means form only (2025-06-18 semantics).
    const modes = cap.form || cap.url ? { form: !!cap.form, url: !!cap.url } : { form: true, url: false };
    if (mode === 'url' && (!modes.url || !features.urlElicitation(this.protocolVersion))) {
      throw new LocalError('capability', 'Cannot elicit in URL mode: the client did not declare elicitation.url');
    }
    if (mode === 'form' && !modes.form) {
      throw new LocalError('capability', 'Cannot elicit in form mode: the client declared URL mode only');
    }
    const { wire, form } = formRequest(params);
    const result = await this.ask('elicitation/create', wire as unknown as JsonObject, options);
    const action = result.action;
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
      throw new McpError(ErrorCode.InvalidParams, `Client answered elicitation with an invalid action: ${JSON.stringify(action)}`);
    }
    return form ? checkAnswer(result as unknown as ElicitResult, form) : (result as unknown as ElicitResult);
  }

  async sample(params: CreateMessageParams, options?: RequestOptions): Promise<CreateMessageResult> {
    this.reachable('sample');
    const cap = this.clientCapabilities.sampling;
    if (!cap) throw new LocalError('capability', 'Cannot sample: the client did not declare the "sampling" capability');
    if ((params.tools || params.toolChoice) && (!cap.tools || !features.samplingTools(this.protocolVersion))) {
      throw new LocalError('capability', 'Cannot sample with tools: the client did not declare sampling.tools');
    }
    const result = await this.ask('sampling/createMessage', params as unknown as JsonObject, options);
    return result as unknown as CreateMessageResult;
  }

  async roots(options?: RequestOptions): Promise<Root[]> {
    this.reachable('list roots');
    if (!this.clientCapabilities.roots) throw new LocalError('capability', 'Cannot list roots: the client did not declare the "roots" capability');
    const result = await this.ask('roots/list', undefined, options);
    return (result.roots as Root[] | undefined) ?? [];
  }

  /**
   * A transport that cannot carry a question to the client (stateless HTTP) is named first: the
   * client's capabilities are unknown there, and blaming them would send the user the wrong way.
   */
  private reachable(action: string): void {
    const why = this.inbound.info?.cannotAsk;
    if (why !== undefined) throw new LocalError('capability', `Cannot ${action}: ${why}`);
  }

  step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    // Nothing replays in this era; the same log keeps the rules (and values) of 2026-07-28.
    return (this.steps ??= new StepLog()).run(name, fn);
  }

  /** @internal What a 2025-11-25 task's context is built from: this tools/call. */
  get origin(): { inbound: InboundRequest; envelope: RequestEnvelope } {
    return { inbound: this.inbound, envelope: this.envelope };
  }

  /**
   * @internal A server-to-client request on this request's stream (HTTP: its SSE response).
   * 2025-11-25 tasks deliver their questions on the stream of a pending `tasks/result`.
   */
  sendRelated(method: string, params: JsonObject | undefined, options?: RequestOptions): Promise<JsonObject> {
    return this.inbound.sendRequest(method, params, options);
  }

  /** How a question reaches the client; a task's context queues it for `tasks/result` instead. */
  protected ask(method: string, params: JsonObject | undefined, options?: RequestOptions): Promise<JsonObject> {
    return this.inbound.sendRequest(method, params, options);
  }
}
