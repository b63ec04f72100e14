import { context, defaultTextMapSetter, metrics, propagation, SpanKind, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { JsonObject, JsonRpcMessage, RequestId } from '../../jsonrpc/messages.js';
import type { MessageMiddleware } from '../../engine/middleware.js';
import type { TransportKind } from '../../engine/transport.js';
import { META } from '../../protocol/modern.js';
import { INSTRUMENTATION, type OtelOptions } from './server.js';
import { ATTR, DURATION_BUCKETS, fail, isObject, METRIC, networkAttributes, resultFailure, seconds, targetOf, wireFailure, type Failure } from './semconv.js';

export interface OtelClientOptions extends OtelOptions {
  /** What carries the messages (the middleware cannot see the transport): sets `network.*`. */
  transport?: TransportKind;
  /** The server's URL, for `server.address` and `server.port` (HTTP). */
  url?: string | URL;
}

interface Flight {
  span: Span;
  start: number;
  method: string;
  attrs: Attributes;
}

/**
 * OpenTelemetry for a client, as message middleware: a CLIENT span and an
 * `mcp.client.operation.duration` sample per request, by the MCP semantic conventions. The
 * span's context goes to the server in `params._meta` (`traceparent`, `tracestate`, `baggage`),
 * in both eras and over every transport, so the server's span is its child.
 *
 *     new McpClient({ name: 'app', version: '1.0.0', middleware: [otelClient()] })
 *
 * One middleware per client: it remembers its requests by id.
 */
export function otelClient(options: OtelClientOptions = {}): MessageMiddleware {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION);
  const operation = meter.createHistogram(METRIC.clientOperation, {
    unit: 's',
    description: 'MCP request duration as observed on the sender, from sending until the answer arrives',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const uriInName = options.resourceUriInSpanName === true;
  const network: Attributes = {};
  networkAttributes(options.transport, network);
  const server: Attributes = {};
  if (options.url !== undefined) {
    const u = new URL(options.url);
    server[ATTR.serverAddress] = u.hostname;
    server[ATTR.serverPort] = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  }
  const flights = new Map<RequestId, Flight>();
  // The handshake's revision, learned from the initialize answer (2026-07-28 requests carry their own).
  let negotiated: string | undefined;

  const end = (id: RequestId, failure: Failure | undefined): void => {
    const f = flights.get(id);
    if (f === undefined) return;
    flights.delete(id);
    if (failure !== undefined) fail(f.span, f.attrs, failure);
    f.span.end();
    operation.record(seconds(f.start), f.attrs);
  };

  const inject = (span: Span, params: JsonObject | undefined): JsonObject => {
    const carrier: Record<string, string> = {};
    const ctx = trace.setSpan(context.active(), span);
    (options.propagator ?? propagation).inject(ctx, carrier, defaultTextMapSetter);
    const meta = isObject(params?._meta) ? params._meta : undefined;
    return { ...params, _meta: { ...meta, ...carrier } };
  };

  return {
    outgoing(m: JsonRpcMessage, next) {
      if (!('method' in m)) return next(m);
      if (!('id' in m)) {
        // The peer gives up on a request (abort or timeout): that is how its span ends.
        if (m.method === 'notifications/cancelled') {
          const id = m.params?.requestId as RequestId | undefined;
          const reason = m.params?.reason;
          if (id !== undefined)
            end(id, { type: typeof reason === 'string' && /timed out|timeout/i.test(reason) ? 'timeout' : 'cancelled', message: reason as string | undefined });
        }
        return next(m);
      }
      const { name, attrs } = targetOf(m.method, m.params, uriInName);
      const metaVersion = isObject(m.params?._meta) ? m.params._meta[META.protocolVersion] : undefined;
      const version = typeof metaVersion === 'string' ? metaVersion : negotiated;
      if (version !== undefined) attrs[ATTR.protocolVersion] = version;
      Object.assign(attrs, network);
      const spanAttrs: Attributes = { ...attrs, ...server, [ATTR.requestId]: String(m.id) };
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: spanAttrs });
      Object.assign(attrs, server);
      if (attrs[ATTR.resourceUri] !== undefined) delete attrs[ATTR.resourceUri]; // opt-in on metrics
      flights.get(m.id)?.span.end(); // a reused id: the old request is long gone
      flights.set(m.id, { span, start: performance.now(), method: m.method, attrs });
      const sent = { ...m, params: inject(span, m.params) };
      return next(sent).catch((err: unknown) => {
        end(m.id, { type: 'transport_error', message: err instanceof Error ? err.message : String(err) });
        throw err;
      });
    },
    incoming(m: JsonRpcMessage, next) {
      if ('method' in m || !('id' in m) || m.id === null || m.id === undefined) return next(m);
      const id = m.id;
      const f = flights.get(id);
      if (f !== undefined) {
        if ('error' in m) end(id, wireFailure(m.error));
        else {
          const result = m.result;
          if (f.method === 'initialize' && typeof result?.protocolVersion === 'string') {
            negotiated = result.protocolVersion;
            f.attrs[ATTR.protocolVersion] = negotiated;
            f.span.setAttribute(ATTR.protocolVersion, negotiated);
          }
          end(id, resultFailure(f.method, result));
        }
      }
      return next(m);
    },
  };
}
