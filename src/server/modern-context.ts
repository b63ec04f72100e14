import { LocalError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { InboundRequest } from '../engine/inbound.js';
import type { ModernEnvelope } from '../protocol/modern.js';
import { LOGGING_LEVELS, type LoggingLevel, type Root } from '../protocol/types.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult } from '../protocol/params.js';
import type { InferSchemaOutput } from '../schema/standard.js';
import type { InputOptions, RequestContext } from './context.js';
import { checkAnswer, formRequest, type ElicitAnswer, type ElicitSchema, type ElicitSchemaParams } from './elicit.js';
import type { ContextBinding } from './extension.js';
import { inputRefusal, type InputRun, type RunContext } from './mrtr-run.js';
import { RequestFacts } from './request-facts.js';
import { StepLog } from './steps.js';

/**
 * The stateless-era context: no session; logs only when the request asked for them; and
 * elicit/sample/roots become `input_required` rounds instead of server-to-client requests.
 */
export class ModernContext extends RequestFacts implements RequestContext, RunContext {
  readonly session = undefined;
  declare protected envelope: ModernEnvelope;
  /** The request the handler started with: its signal is `ctx.signal` for the whole run, across rounds. */
  private readonly origin: InboundRequest;
  /** Steps of a request that has no input rounds (no run keeps them). */
  private steps: StepLog | undefined = undefined;
  /**
   * @internal Set by an extension that takes the work over (a task, SEP-2663). Once detached,
   * the request has been answered: input goes to the binding, the signal is its own, and
   * nothing more may be sent on the request (no progress or log notifications for tasks).
   */
  binding: ContextBinding | undefined = undefined;

  constructor(
    inbound: InboundRequest,
    envelope: ModernEnvelope,
    private readonly run: InputRun | undefined,
    /** Whether the server declared `logging`: without it, no `notifications/message` at all. */
    private readonly logging = true,
  ) {
    super(inbound, envelope);
    this.origin = inbound;
  }

  get era(): 'modern' {
    return 'modern';
  }

  override get signal(): AbortSignal {
    return this.binding?.signal ?? this.origin.signal;
  }

  /** @internal A retry resumes the run: what the handler reports goes to the retry from now on. */
  resume(inbound: InboundRequest, envelope: ModernEnvelope): void {
    this.inbound = inbound;
    this.envelope = envelope;
  }

  /** @internal The run is given up (expired, crowded out, cancelled, server closed). */
  abandon(reason: string): void {
    this.origin.abandon(reason);
  }

  /** Nothing goes out while the request is answered (a task) or the run waits for a retry. */
  private get silent(): boolean {
    return this.binding?.detached === true || this.run?.quiet === true;
  }

  get taskId(): string | undefined {
    return this.binding?.taskId;
  }

  startTask(): Promise<void> {
    const b = this.binding;
    // Nothing to start (not a task tool, no extension, or already a task): carry on as is.
    return b === undefined || b.detached || b.start === undefined ? Promise.resolve() : b.start();
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.silent) return Promise.resolve();
    return this.inbound.progress(progress, total, message);
  }

  override notify(method: string, params?: JsonObject): Promise<void> {
    if (this.silent) return Promise.resolve();
    return this.inbound.notify(method, params);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this.silent) return Promise.resolve();
    const min = this.envelope.logLevel;
    // No logLevel in the request: the server must not send notifications/message at all.
    if (!this.logging || min === undefined || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(min)) return Promise.resolve();
    return this.sendLog(level, data, logger);
  }

  private input(method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', params: unknown, key?: string): Promise<unknown> {
    const b = this.binding;
    if (b?.detached) return b.input(method, params, key);
    if (!this.run) {
      return Promise.reject(
        new LocalError('capability', `Cannot ask the client for input in "${this.method}": only tools/call, resources/read and prompts/get may`),
      );
    }
    return this.run.need(method, params, key);
  }

  step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    return (this.run?.stepLog() ?? (this.steps ??= new StepLog())).run(name, fn);
  }

  elicit<S extends ElicitSchema>(params: ElicitSchemaParams<S>, options?: InputOptions): Promise<ElicitAnswer<InferSchemaOutput<S>>>;
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult>;
  async elicit(params: ElicitParams | ElicitSchemaParams<ElicitSchema>, options?: InputOptions): Promise<ElicitResult> {
    const refusal = inputRefusal('elicitation/create', params, this.clientCapabilities);
    if (refusal) throw refusal;
    // formRequest refuses a form the client cannot render (this server's bug), as in the handshake era.
    const { wire, form } = formRequest(params);
    const result = (await this.input('elicitation/create', wire, options?.key)) as ElicitResult;
    return form ? checkAnswer(result, form) : result;
  }

  async sample(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult> {
    const refusal = inputRefusal('sampling/createMessage', params, this.clientCapabilities);
    if (refusal) throw refusal;
    return (await this.input('sampling/createMessage', params, options?.key)) as CreateMessageResult;
  }

  async roots(options?: InputOptions): Promise<Root[]> {
    const refusal = inputRefusal('roots/list', undefined, this.clientCapabilities);
    if (refusal) throw refusal;
    const r = (await this.input('roots/list', undefined, options?.key)) as { roots?: Root[] } | undefined;
    return r?.roots ?? [];
  }
}
