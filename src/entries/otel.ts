// OpenTelemetry by the MCP semantic conventions. The only entry point that imports
// @opentelemetry/api (an optional peer dependency): nothing else in mcpkit loads it.
export { otel, type OtelOptions } from '../extensions/otel/server.js';
export { otelClient, type OtelClientOptions } from '../extensions/otel/client.js';
export { ATTR as OTEL_ATTRIBUTES, METRIC as OTEL_METRICS, DURATION_BUCKETS } from '../extensions/otel/semconv.js';
export { otelHost, type OtelHostObserver } from '../extensions/otel/host.js';
