import { metrics, trace, type Attributes } from '@opentelemetry/api';
import type { MessageMiddleware } from '../../engine/middleware.js';
import type { TransportKind } from '../../engine/transport.js';
import { INSTRUMENTATION, offWhen, type OtelOptions } from './server.js';
import { messageSpans } from './messages.js';
import { ATTR, DURATION_BUCKETS, METRIC, networkAttributes } from './semconv.js';

export interface OtelClientOptions extends OtelOptions {
  /** What carries the messages (the middleware cannot see the transport): sets `network.*`. */
  transport?: TransportKind;
  /** The server's URL, for `server.address` and `server.port` (HTTP). */
  url?: string | URL;
}

/**
 * OpenTelemetry for a client, as message middleware: a CLIENT span and an
 * `mcp.client.operation.duration` sample per request, by the MCP semantic conventions. The
 * span's context goes to the server in `params._meta` (`traceparent`, `tracestate`, `baggage`),
 * in both eras and over every transport, so the server's span is its child. Requests the server
 * sends (sampling, elicitation, roots) get a SERVER span under the server's context, with the
 * handler running inside it; notifications either way get a span of their own.
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
  return messageSpans({
    tracer,
    propagator: options.propagator,
    sent: operation,
    served: meter.createHistogram(METRIC.serverOperation, {
      unit: 's',
      description: 'MCP request duration as observed on the receiver, from receipt until the answer is sent',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    common: network,
    peer: server,
    uriInName,
    off: offWhen(meter, options.tracerProvider),
  });
}
