import type { Attributes, Meter, Span, TextMapGetter, TracerProvider } from '@opentelemetry/api';
import { createNoopMeter, ProxyTracerProvider, SpanStatusCode } from '@opentelemetry/api';
import { LocalError, McpError, toErrorObject } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import type { TransportKind } from '../../engine/transport.js';

// Names from the OpenTelemetry semantic conventions for MCP (semantic-conventions-genai,
// docs/gen-ai/mcp.md). Written out rather than imported: the incubating constants package is
// not a dependency, and these names are the contract the tests check.
export const ATTR = {
  method: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  protocolName: 'network.protocol.name',
  clientAddress: 'client.address',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  // The GenAI conventions' (docs/gen-ai/gen-ai-spans.md, gen-ai-agent-spans.md): the host's spans.
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolCallId: 'gen_ai.tool.call.id',
  conversationId: 'gen_ai.conversation.id',
  // Not in the conventions: under mcpkit's own namespace.
  hostServer: 'mcpkit.host.server',
  hostTool: 'mcpkit.host.tool',
  approvalReason: 'mcpkit.host.approval.reason',
  approvalGranted: 'mcpkit.host.approval.granted',
} as const;

export const METRIC = {
  clientOperation: 'mcp.client.operation.duration',
  serverOperation: 'mcp.server.operation.duration',
  serverSession: 'mcp.server.session.duration',
  // Not in the conventions (they define durations only): under mcpkit's own namespace.
  serverActiveSessions: 'mcpkit.server.session.active',
  serverToolErrors: 'mcpkit.server.tool.errors',
} as const;

/** The conventions' advice for every MCP duration histogram, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The low-cardinality part of a span name and its attributes, read from the request. */
export interface Target {
  /** `{mcp.method.name} {target}`, or the method alone. */
  name: string;
  attrs: Attributes;
}

export function targetOf(method: string, params: JsonObject | undefined, uriInName: boolean): Target {
  const attrs: Attributes = { [ATTR.method]: method };
  let target: string | undefined;
  if (method === 'tools/call' && typeof params?.name === 'string') {
    target = params.name;
    attrs[ATTR.toolName] = target;
    attrs[ATTR.operationName] = 'execute_tool';
  } else if (method === 'prompts/get' && typeof params?.name === 'string') {
    target = params.name;
    attrs[ATTR.promptName] = target;
  } else if ((method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe') && typeof params?.uri === 'string') {
    attrs[ATTR.resourceUri] = params.uri;
    // A URI makes span names unbounded: only when the user asks (the conventions' opt-in).
    if (uriInName) target = params.uri;
  }
  return { name: target === undefined ? method : `${method} ${target}`, attrs };
}

/** `network.*` for a transport, as the conventions' "Recording MCP transport" table says. */
export function networkAttributes(kind: TransportKind | undefined, into: Attributes): void {
  if (kind === 'http') {
    into[ATTR.networkTransport] = 'tcp';
    into[ATTR.protocolName] = 'http';
  } else if (kind === 'stdio') into[ATTR.networkTransport] = 'pipe';
}

/** How an operation failed: `error.type`, the JSON-RPC code when there is one, and the message for the span status. */
export interface Failure {
  type: string;
  code?: string;
  message?: string;
}

export const CANCELLED: Failure = { type: 'cancelled' };
export const TOOL_ERROR: Failure = { type: 'tool_error' };

/** A successful answer can still be a failure: a tool result with `isError` (the conventions' `tool_error`). */
export function resultFailure(method: string, result: JsonObject | undefined): Failure | undefined {
  return method === 'tools/call' && result?.isError === true ? TOOL_ERROR : undefined;
}

/** A JSON-RPC error object from the wire. */
export function wireFailure(error: { code?: unknown; message?: unknown }): Failure {
  const code = typeof error.code === 'number' ? String(error.code) : '_OTHER';
  return { type: code, code: code === '_OTHER' ? undefined : code, message: typeof error.message === 'string' ? error.message : undefined };
}

/** What a handler threw, as the answer will carry it; a local failure (timeout, closed) by its kind. */
export function thrownFailure(err: unknown): Failure {
  if (err instanceof LocalError) return { type: err.kind === 'aborted' ? 'cancelled' : err.kind, message: err.message };
  if (err instanceof McpError || err instanceof Error) return wireFailure(toErrorObject(err));
  return { type: '_OTHER' };
}

/** Marks span and metric attributes with a failure, and the span's status as the conventions ask. */
export function fail(span: Span, metricAttrs: Attributes, f: Failure): void {
  metricAttrs[ATTR.errorType] = f.type;
  span.setAttribute(ATTR.errorType, f.type);
  if (f.code !== undefined) {
    metricAttrs[ATTR.statusCode] = f.code;
    span.setAttribute(ATTR.statusCode, f.code);
  }
  span.setStatus(f.message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: f.message });
}

/** Reads propagation keys from `params._meta` (string values only). */
export const metaGetter: TextMapGetter<JsonObject> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const v = carrier[key];
    return typeof v === 'string' ? v : undefined;
  },
};

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function seconds(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

// With the API installed and no SDK registered, every span and sample is thrown away: building
// their attributes is all the cost, so it is skipped. Told by the classes the API uses for "none".
const NOOP_METER = createNoopMeter().constructor;
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate().constructor;

/** A meter that records nothing (no meter provider registered when it was made). */
export function isNoopMeter(meter: Meter): boolean {
  return meter.constructor === NOOP_METER;
}

/**
 * Whether spans of `provider` would record nothing now: the global proxy with no SDK behind it
 * (yet: an SDK registered later counts from then on), or the no-op provider itself.
 */
export function tracingOff(provider: TracerProvider): boolean {
  const p = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  return p.constructor === NOOP_TRACER_PROVIDER;
}
