import { LocalError } from '../jsonrpc/errors.js';
import type { JsonObject, RequestId } from '../jsonrpc/messages.js';
import type { InboundRequest } from '../engine/inbound.js';
import { META, missingCapability, type ModernEnvelope } from '../protocol/modern.js';
import {
  LOGGING_LEVELS,
  type ClientCapabilities,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type Implementation,
  type LoggingLevel,
  type Root,
} from '../protocol/types.js';
import type { AuthInfo } from '../transports/transport.js';
import type { RequestContext } from './context.js';
import type { InputCollector } from './mrtr.js';

/**
 * The stateless-era context: no session; logs only when the request asked for them; and
 * elicit/sample/roots become `input_required` rounds instead of server-to-client requests.
 */
export class ModernContext implements RequestContext {
  readonly session = undefined;

  constructor(
    private readonly inbound: InboundRequest,
    private readonly envelope: ModernEnvelope,
    private readonly collector: InputCollector | undefined,
  ) {}

  get requestId(): RequestId {
    return this.inbound.id;
  }
  get method(): string {
    return this.inbound.request.method;
  }
  get signal(): AbortSignal {
    return this.inbound.signal;
  }
  get meta(): JsonObject | undefined {
    return this.inbound.request.params?._meta as JsonObject | undefined;
  }
  get protocolVersion(): string {
    return this.envelope.protocolVersion;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.envelope.clientCapabilities;
  }
  get clientInfo(): Implementation | undefined {
    return this.envelope.clientInfo;
  }
  get authInfo(): AuthInfo | undefined {
    return this.inbound.info?.authInfo;
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    return this.inbound.progress(progress, total, message);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const min = this.envelope.logLevel;
    // No logLevel in the request: the server must not send notifications/message at all.
    if (min === undefined || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(min)) return Promise.resolve();
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.inbound.notify('notifications/message', params);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.inbound.notify(method, params);
  }

  private input(method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', params: unknown): Promise<unknown> {
    if (!this.collector) {
      return Promise.reject(new LocalError('capability', `Cannot ask the client for input in "${this.method}": only tools/call, resources/read and prompts/get may`));
    }
    return this.collector.need(method, params);
  }

  async elicit(params: ElicitParams): Promise<ElicitResult> {
    const cap = this.clientCapabilities.elicitation;
    const mode = params.mode ?? 'form';
    if (!cap) throw missingCapability({ elicitation: {} }, 'elicitation');
    if (mode === 'url' && !cap.url) throw missingCapability({ elicitation: { url: {} } }, 'elicitation.url');
    if (mode === 'form' && cap.url && !cap.form) throw missingCapability({ elicitation: { form: {} } }, 'elicitation.form');
    return (await this.input('elicitation/create', params)) as ElicitResult;
  }

  async sample(params: CreateMessageParams): Promise<CreateMessageResult> {
    const cap = this.clientCapabilities.sampling;
    if (!cap) throw missingCapability({ sampling: {} }, 'sampling');
    if ((params.tools || params.toolChoice) && !cap.tools) throw missingCapability({ sampling: { tools: {} } }, 'sampling.tools');
    return (await this.input('sampling/createMessage', params)) as CreateMessageResult;
  }

  async roots(): Promise<Root[]> {
    if (!this.clientCapabilities.roots) throw missingCapability({ roots: {} }, 'roots');
    const r = (await this.input('roots/list', undefined)) as { roots?: Root[] } | undefined;
    return r?.roots ?? [];
  }
}

