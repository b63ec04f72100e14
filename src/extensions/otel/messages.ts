// Spans for the messages a peer sends and receives outside the server's request observer: the
// requests a client sends (and, in the handshake era, those a server sends to its client:
// sampling, elicitation, roots), the requests a client serves, and notifications both ways.
// One message middleware, used by otelClient() on a client and by otel() on a server.
import {
  context,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Histogram,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import type { JsonObject, JsonRpcMessage, RequestId } from '../../jsonrpc/messages.js';
import type { MessageMiddleware } from '../../engine/middleware.js';
import { META } from '../../protocol/modern.js';
import { ATTR, fail, isObject, metaGetter, resultFailure, seconds, targetOf, wireFailure, type Failure } from './semconv.js';

export interface MessageSpanOptions {
  tracer: Tracer;
  propagator: TextMapPropagator | undefined;
  /** Duration of the requests this peer sends (`mcp.client.operation.duration`). */
  sent: Histogram;
  /** Duration of the requests this peer serves here (`mcp.server.operation.duration`); undefined: it serves none (a server's observer does). */
  served: Histogram | undefined;
  /** Attributes on every span and sample (network, server address). */
  common: Attributes;
  /** The peer's address (a client's server): on the spans and samples of requests sent. */
  peer: Attributes;
  uriInName: boolean;
  /** True while nothing would be recorded (no SDK): every message passes untouched. */
  off: () => boolean;
}

interface Flight {
  span: Span;
  start: number;
  method: string;
  attrs: Attributes;
  histogram: Histogram;
}

/** Requests are told apart from responses, and ours from the peer's, by the map they are in. */
export function messageSpans(o: MessageSpanOptions): MessageMiddleware {
  const sent = new Map<RequestId, Flight>();
  const served = new Map<RequestId, Flight>();
  // The handshake's revision, learned from the initialize exchange (2026-07-28 requests carry their own).
  let negotiated: string | undefined;
  // A server learns it from its own answer to `initialize` (its observer, not this, serves it).
  let initializeId: RequestId | undefined;

  const end = (flights: Map<RequestId, Flight>, id: RequestId, failure: Failure | undefined): void => {
    const f = flights.get(id);
    if (f === undefined) return;
    flights.delete(id);
    if (failure !== undefined) fail(f.span, f.attrs, failure);
    f.span.end();
    f.histogram.record(seconds(f.start), f.attrs);
  };

  const inject = (span: Span, params: JsonObject | undefined): JsonObject => {
    const carrier: Record<string, string> = {};
    (o.propagator ?? propagation).inject(trace.setSpan(context.active(), span), carrier, defaultTextMapSetter);
    const meta = isObject(params?._meta) ? params._meta : undefined;
    return { ...params, _meta: { ...meta, ...carrier } };
  };

  const attributesOf = (method: string, params: JsonObject | undefined) => {
    const { name, attrs } = targetOf(method, params, o.uriInName);
    const metaVersion = isObject(params?._meta) ? params._meta[META.protocolVersion] : undefined;
    const version = typeof metaVersion === 'string' ? metaVersion : negotiated;
    if (version !== undefined) attrs[ATTR.protocolVersion] = version;
    Object.assign(attrs, o.common);
    return { name, attrs };
  };

  const learn = (method: string, result: JsonObject | undefined, f: Flight) => {
    if (method === 'initialize' && typeof result?.protocolVersion === 'string') {
      negotiated = result.protocolVersion;
      f.attrs[ATTR.protocolVersion] = negotiated;
      f.span.setAttribute(ATTR.protocolVersion, negotiated);
    }
  };

  /** A notification is a span of its own, sent or received; it has no duration to measure. */
  const notification = (m: JsonRpcMessage & { method: string }, kind: SpanKind, parentFromMeta: boolean) => {
    const params = (m as { params?: JsonObject }).params;
    const { name, attrs } = attributesOf(m.method, params);
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const parent =
      parentFromMeta && meta !== undefined && typeof meta.traceparent === 'string'
        ? (o.propagator ?? propagation).extract(ROOT_CONTEXT, meta, metaGetter)
        : context.active();
    return o.tracer.startSpan(name, { kind, attributes: { ...attrs, ...o.peer } }, parent);
  };

  return {
    outgoing(m, next) {
      if (o.off()) return next(m);
      if (!('method' in m)) {
        // Our answer to a request we served: its span ends.
        const id = (m as { id?: RequestId }).id;
        if (id === initializeId && initializeId !== undefined && 'result' in m && typeof m.result?.protocolVersion === 'string') {
          negotiated = m.result.protocolVersion;
          initializeId = undefined;
        }
        if (id !== undefined && id !== null && served.has(id)) {
          const f = served.get(id)!;
          if ('error' in m) end(served, id, wireFailure(m.error));
          else {
            learn(f.method, m.result, f);
            end(served, id, resultFailure(f.method, m.result));
          }
        }
        return next(m);
      }
      if (!('id' in m)) {
        // The peer gives up on a request (abort or timeout): that is how its span ends.
        if (m.method === 'notifications/cancelled') {
          const id = m.params?.requestId as RequestId | undefined;
          const reason = m.params?.reason;
          if (id !== undefined)
            end(sent, id, {
              type: typeof reason === 'string' && /timed out|timeout/i.test(reason) ? 'timeout' : 'cancelled',
              message: reason as string | undefined,
            });
        }
        const span = notification(m, SpanKind.CLIENT, false);
        const out = next({ ...m, params: inject(span, m.params) });
        span.end();
        return out;
      }
      const { name, attrs } = attributesOf(m.method, m.params);
      const span = o.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: { ...attrs, ...o.peer, [ATTR.requestId]: String(m.id) } });
      Object.assign(attrs, o.peer);
      if (attrs[ATTR.resourceUri] !== undefined) delete attrs[ATTR.resourceUri]; // opt-in on metrics
      sent.get(m.id)?.span.end(); // a reused id: the old request is long gone
      sent.set(m.id, { span, start: performance.now(), method: m.method, attrs, histogram: o.sent });
      return next({ ...m, params: inject(span, m.params) }).catch((err: unknown) => {
        end(sent, m.id, { type: 'transport_error', message: err instanceof Error ? err.message : String(err) });
        throw err;
      });
    },
    incoming(m, next) {
      if (o.off()) return next(m);
      if (!('method' in m)) {
        const id = (m as { id?: RequestId }).id;
        const f = id === undefined || id === null ? undefined : sent.get(id);
        if (f !== undefined) {
          if ('error' in m) end(sent, id!, wireFailure(m.error));
          else {
            learn(f.method, m.result, f);
            end(sent, id!, resultFailure(f.method, m.result));
          }
        }
        return next(m);
      }
      if (!('id' in m)) {
        // The peer's cancellation ends the span of the request we were serving for it.
        if (m.method === 'notifications/cancelled' && served.size > 0) {
          const id = m.params?.requestId as RequestId | undefined;
          if (id !== undefined) end(served, id, { type: 'cancelled', message: m.params?.reason as string | undefined });
        }
        const span = notification(m, SpanKind.SERVER, true);
        span.end();
        return context.with(trace.setSpan(context.active(), span), () => next(m));
      }
      // A request for this peer to serve; a server's own requests are the observer's.
      if (o.served === undefined) {
        if (m.method === 'initialize') initializeId = m.id;
        return next(m);
      }
      const { name, attrs } = attributesOf(m.method, m.params);
      const meta = isObject(m.params?._meta) ? m.params._meta : undefined;
      const parent =
        meta !== undefined && typeof meta.traceparent === 'string' ? (o.propagator ?? propagation).extract(ROOT_CONTEXT, meta, metaGetter) : context.active();
      const span = o.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: { ...attrs, [ATTR.requestId]: String(m.id) } }, parent);
      served.set(m.id, { span, start: performance.now(), method: m.method, attrs, histogram: o.served });
      // The handler runs with the span active: what it does (a model call for sampling) nests under it.
      return context.with(trace.setSpan(parent, span), () => next(m));
    },
  };
}
