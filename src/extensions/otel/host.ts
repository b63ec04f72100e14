// OpenTelemetry for the host loop (src/host), by the GenAI semantic conventions: a span per user
// message (`invoke_agent`), per model turn (`chat {model}`), per tool call (`execute_tool
// {name}`) and per wait for the user's approval. The types below are the host's HostObserver,
// written structurally: extensions come before the host in the layers and cannot import it.
import { SpanKind, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { MessageMiddleware } from '../../engine/middleware.js';
import { otelClient } from './client.js';
import { INSTRUMENTATION, type OtelOptions } from './server.js';
import { ATTR, CANCELLED, fail, thrownFailure, TOOL_ERROR, tracingOff, type Failure } from './semconv.js';

interface ModelTurn {
  provider: string;
  model: string;
  request: { maxTokens?: number; temperature?: number; signal?: AbortSignal };
}
interface ModelAnswer {
  stopReason: string;
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
}
interface ToolCall {
  id: string;
  name: string;
  server: string;
  tool: string;
  signal?: AbortSignal;
}

/** What `otelHost()` gives: a HostObserver of `mcpkit/host` (HostOptions.observer). */
export interface OtelHostObserver {
  message<R extends { usage?: { inputTokens: number; outputTokens: number } }>(
    info: { conversationId: string; signal?: AbortSignal },
    run: () => Promise<R>,
  ): Promise<R>;
  modelCall<R extends ModelAnswer>(info: ModelTurn, run: () => Promise<R>): Promise<R>;
  toolCall<R extends { isError?: boolean }>(info: ToolCall, run: () => Promise<R>): Promise<R>;
  approval(info: ToolCall & { reason: string }, run: () => Promise<boolean>): Promise<boolean>;
  clientMiddleware(server: string): MessageMiddleware[];
}

// The conventions' finish reasons for the loop's stop reasons.
const FINISH: Record<string, string> = { end: 'stop', tool_calls: 'tool_call', length: 'length', refusal: 'content_filter' };

/**
 * Tracing for a Host: its spans, and `otelClient()` on each of its pool's clients. The tool call
 * span is active while the pool's client sends `tools/call`, so the MCP client span is its child
 * and the server (given `otel()`) continues the trace from `params._meta`. Needs a context
 * manager (NodeSDK registers one) for the spans to nest across awaits.
 *
 *     new Host({ config: '.mcp.json', model, observer: otelHost() })
 */
export function otelHost(options: OtelOptions = {}): OtelHostObserver {
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer = provider.getTracer(INSTRUMENTATION);
  const on = () => !tracingOff(provider);
  return {
    message(info, run) {
      if (!on()) return run();
      const attrs: Attributes = { [ATTR.operationName]: 'invoke_agent', [ATTR.conversationId]: info.conversationId };
      return around(tracer, 'invoke_agent', SpanKind.INTERNAL, attrs, info.signal, run, (span, answer) => {
        if (answer.usage) span.setAttributes({ [ATTR.inputTokens]: answer.usage.inputTokens, [ATTR.outputTokens]: answer.usage.outputTokens });
      });
    },
    modelCall(info, run) {
      if (!on()) return run();
      const attrs: Attributes = { [ATTR.operationName]: 'chat', [ATTR.providerName]: info.provider, [ATTR.requestModel]: info.model };
      if (info.request.maxTokens !== undefined) attrs[ATTR.requestMaxTokens] = info.request.maxTokens;
      if (info.request.temperature !== undefined) attrs[ATTR.requestTemperature] = info.request.temperature;
      return around(tracer, `chat ${info.model}`, SpanKind.CLIENT, attrs, info.request.signal, run, (span, r) => {
        span.setAttribute(ATTR.finishReasons, [FINISH[r.stopReason] ?? r.stopReason]);
        if (r.model !== undefined) span.setAttribute(ATTR.responseModel, r.model);
        if (r.usage) span.setAttributes({ [ATTR.inputTokens]: r.usage.inputTokens, [ATTR.outputTokens]: r.usage.outputTokens });
      });
    },
    toolCall(info, run) {
      if (!on()) return run();
      return around(
        tracer,
        `execute_tool ${info.name}`,
        SpanKind.INTERNAL,
        { [ATTR.operationName]: 'execute_tool', ...toolAttributes(info) },
        info.signal,
        run,
        (span, r) => {
          if (r.isError === true) fail(span, {}, TOOL_ERROR);
        },
      );
    },
    approval(info, run) {
      if (!on()) return run();
      const attrs = { ...toolAttributes(info), [ATTR.approvalReason]: info.reason };
      return around(tracer, `approval ${info.name}`, SpanKind.INTERNAL, attrs, info.signal, run, (span, granted) => {
        span.setAttribute(ATTR.approvalGranted, granted);
      });
    },
    clientMiddleware: () => [otelClient(options)],
  };
}

function toolAttributes(info: ToolCall): Attributes {
  return { [ATTR.toolName]: info.name, [ATTR.toolCallId]: info.id, [ATTR.hostServer]: info.server, [ATTR.hostTool]: info.tool };
}

/** Runs `run` with a new span active; what it throws marks the span (cancellation by the signal as `cancelled`). */
function around<T>(
  tracer: Tracer,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
  done: (span: Span, value: T) => void,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      const value = await run();
      done(span, value);
      return value;
    } catch (err) {
      fail(span, {}, signal?.aborted ? CANCELLED : failureOf(err));
      throw err;
    } finally {
      span.end();
    }
  });
}

function failureOf(err: unknown): Failure {
  if (err instanceof Error && err.name === 'AbortError') return { ...CANCELLED, message: err.message };
  // A ModelError: its HTTP status when the endpoint answered, else its class.
  if (err instanceof Error && err.name === 'ModelError') {
    const status = (err as { status?: unknown }).status;
    return { type: typeof status === 'number' ? String(status) : err.name, message: err.message };
  }
  return thrownFailure(err);
}
