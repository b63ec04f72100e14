import {
  context,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Meter,
  type MeterProvider,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
  type TracerProvider,
} from '@opentelemetry/api';
import type { JsonObject, JsonRpcRequest } from '../../jsonrpc/messages.js';
import type { HttpHeaders } from '../../engine/transport.js';
import type { InboundRequest } from '../../engine/inbound.js';
import { META } from '../../protocol/modern.js';
import type { ObservedConnection, RequestObserver, ServerExtension } from '../../server/extension.js';
import type { MessageMiddleware } from '../../engine/middleware.js';
import { messageSpans } from './messages.js';
import {
  ATTR,
  CANCELLED,
  DURATION_BUCKETS,
  fail,
  isNoopMeter,
  isObject,
  metaGetter,
  METRIC,
  networkAttributes,
  resultFailure,
  seconds,
  targetOf,
  thrownFailure,
  tracingOff,
  type Failure,
} from './semconv.js';

export interface OtelOptions {
  /** Default: the global one (`trace.setGlobalTracerProvider`, or what your SDK registered). */
  tracerProvider?: TracerProvider;
  /** Default: the global one. */
  meterProvider?: MeterProvider;
  /** How trace context is read from `params._meta` and HTTP headers. Default: the global propagator. */
  propagator?: TextMapPropagator;
  /** Put the resource URI in span names (`resources/read file:///a`): off by default, as the conventions advise (unbounded names). */
  resourceUriInSpanName?: boolean;
}

export const INSTRUMENTATION = 'mcpkit';

interface Extractor {
  extract<C>(context: Context, carrier: C, getter: TextMapGetter<C>): Context;
}

const headerGetter: TextMapGetter<HttpHeaders> = {
  keys: () => [],
  get: (carrier, key) => carrier.header(key.toLowerCase()),
};

/**
 * OpenTelemetry for a server: a SERVER span and an `mcp.server.operation.duration` sample per
 * request, session metrics, by the MCP semantic conventions. The span's parent is the trace
 * context the client put in `params._meta` (or, failing that, an HTTP `traceparent` header);
 * handlers run with it active, so their own spans nest under it.
 *
 *     new McpServer({ name: 'demo', version: '1.0.0', extensions: [otel()] })
 */
export function otel(options: OtelOptions = {}): ServerExtension {
  return {
    name: 'mcpkit/otel',
    setup() {
      return { observe: serverObserver(options), sessionMiddleware: sessionSpans(options) };
    },
  };
}

/**
 * Per handshake-era session: CLIENT spans for the requests the server sends its client
 * (sampling, elicitation, roots), with their context in `params._meta`, and spans for
 * notifications both ways. The requests it serves are the observer's.
 */
function sessionSpans(o: OtelOptions): () => MessageMiddleware | undefined {
  const tracer = (o.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION);
  const meter = (o.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION);
  const sent = meter.createHistogram(METRIC.clientOperation, {
    unit: 's',
    description: 'MCP request duration as observed on the sender, from sending until the answer arrives',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const uriInName = o.resourceUriInSpanName === true;
  const off = offWhen(meter, o.tracerProvider);
  // A session begun while nothing records gets none (one started after an SDK is registered does).
  return () => (off() ? undefined : messageSpans({ tracer, propagator: o.propagator, sent, served: undefined, common: {}, peer: {}, uriInName, off }));
}

/** When spans and samples would all be thrown away (no SDK), for the middleware to step aside. */
export function offWhen(meter: Meter, provider: TracerProvider | undefined): () => boolean {
  if (!isNoopMeter(meter)) return () => false;
  return () => tracingOff(provider ?? trace.getTracerProvider());
}

function serverObserver(o: OtelOptions): RequestObserver {
  const tracer = (o.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION);
  const meter = (o.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION);
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  const operation = meter.createHistogram(METRIC.serverOperation, {
    unit: 's',
    description: 'MCP request duration as observed on the receiver, from receipt until the answer is sent',
    advice,
  });
  const sessionDuration = meter.createHistogram(METRIC.serverSession, {
    unit: 's',
    description: 'The duration of an MCP session as observed on the server',
    advice,
  });
  const active = meter.createUpDownCounter(METRIC.serverActiveSessions, { unit: '{session}', description: 'MCP sessions open on this server' });
  const toolErrors = meter.createCounter(METRIC.serverToolErrors, {
    unit: '{error}',
    description: 'tools/call requests that failed, isError results included',
  });
  const sessions = new WeakSet<ObservedConnection>();
  const uriInName = o.resourceUriInSpanName === true;

  // The global API looks the registered propagator up on each call, so an SDK started later counts.
  const propagator: Extractor = o.propagator ?? propagation;

  const sessionStarted = (conn: ObservedConnection, attrs: Attributes): void => {
    if (sessions.has(conn)) return;
    sessions.add(conn);
    const start = performance.now();
    active.add(1, attrs);
    conn.onClose(() => {
      active.add(-1, attrs);
      sessionDuration.record(seconds(start), attrs);
    });
  };

  const meterOff = isNoopMeter(meter);
  return (req, inbound, conn, next) => {
    if (meterOff && tracingOff(o.tracerProvider ?? trace.getTracerProvider())) return next();
    const start = performance.now();
    const params = req.params;
    const { name, attrs: metricAttrs } = targetOf(req.method, params, uriInName);
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const metaVersion = meta?.[META.protocolVersion];
    const modern = typeof metaVersion === 'string';
    const version = modern ? metaVersion : conn?.protocolVersion;
    if (version !== undefined) metricAttrs[ATTR.protocolVersion] = version;
    const http = inbound.info?.http;
    networkAttributes(http !== undefined ? 'http' : conn?.transportKind, metricAttrs);

    // The client's context (params._meta) is the parent; the transport's ambient context (an HTTP
    // server span, if the application traces HTTP) is linked, as the conventions ask.
    const ambient = context.active();
    let parent = ambient;
    if (meta !== undefined && typeof meta.traceparent === 'string') parent = propagator.extract(ROOT_CONTEXT, meta, metaGetter);
    else if (http !== undefined && http.header('traceparent') !== undefined) parent = propagator.extract(ROOT_CONTEXT, http, headerGetter);
    const ambientSpan = parent === ambient ? undefined : trace.getSpanContext(ambient);
    const links: Link[] | undefined = ambientSpan !== undefined && trace.isSpanContextValid(ambientSpan) ? [{ context: ambientSpan }] : undefined;

    const spanAttrs: Attributes = { ...metricAttrs, [ATTR.requestId]: String(req.id) };
    // A session id exists only for a handshake-era HTTP session (Mcp-Session-Id); stdio and the
    // 2026-07-28 era have none to record.
    const sid = modern ? undefined : http?.header('mcp-session-id');
    if (sid !== undefined) spanAttrs[ATTR.sessionId] = sid;
    const address = inbound.info?.remoteAddress;
    if (address !== undefined) spanAttrs[ATTR.clientAddress] = address;
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: spanAttrs, links }, parent);

    const end = (failure: Failure | undefined, result: JsonObject | undefined): void => {
      if (req.method === 'initialize' && failure === undefined && conn !== undefined) {
        const v = result?.protocolVersion;
        if (typeof v === 'string') {
          metricAttrs[ATTR.protocolVersion] = v;
          span.setAttribute(ATTR.protocolVersion, v);
        }
        const sessionAttrs: Attributes = { ...metricAttrs };
        delete sessionAttrs[ATTR.method];
        sessionStarted(conn, sessionAttrs);
      }
      if (failure !== undefined) {
        fail(span, metricAttrs, failure);
        if (req.method === 'tools/call') toolErrors.add(1, metricAttrs);
      }
      span.end();
      operation.record(seconds(start), metricAttrs);
    };

    return run(span, parent, inbound, req, next, end);
  };
}

/** Runs the request with its span active, and ends the span however it settles. */
function run(
  span: Span,
  parent: Context,
  inbound: InboundRequest,
  req: JsonRpcRequest,
  next: () => Promise<JsonObject> | JsonObject,
  end: (failure: Failure | undefined, result: JsonObject | undefined) => void,
): Promise<JsonObject> | JsonObject {
  // A cancelled request is answered by nobody: whatever its handler did, that is the outcome.
  const settle = (failure: Failure | undefined, result: JsonObject | undefined) =>
    end(inbound.cancelled && inbound.signal.aborted ? CANCELLED : failure, result);
  let out: Promise<JsonObject> | JsonObject;
  try {
    out = context.with(trace.setSpan(parent, span), next);
  } catch (err) {
    settle(thrownFailure(err), undefined);
    throw err;
  }
  if (out !== null && typeof (out as Promise<JsonObject>).then === 'function') {
    return (out as Promise<JsonObject>).then(
      (r) => {
        settle(resultFailure(req.method, r), r);
        return r;
      },
      (err: unknown) => {
        settle(thrownFailure(err), undefined);
        throw err;
      },
    );
  }
  settle(resultFailure(req.method, out as JsonObject), out as JsonObject);
  return out;
}
