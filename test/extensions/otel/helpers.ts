// An OpenTelemetry SDK in memory for the otel tests: spans into an exporter, metrics read on
// demand, the W3C propagator. Passed to otel()/otelClient() explicitly, so no global state.
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import type { OtelOptions } from '../../../src/extensions/otel/server.js';

class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

export interface Telemetry {
  options: OtelOptions;
  exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  span(name: string, kind: number): ReadableSpan;
  metrics(): Promise<MetricData[]>;
  metric(name: string): Promise<MetricData>;
}

export function telemetry(): Telemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const t: Telemetry = {
    options: { tracerProvider, meterProvider, propagator: new W3CTraceContextPropagator() },
    exporter,
    spans: () => exporter.getFinishedSpans(),
    span(name, kind) {
      const found = exporter.getFinishedSpans().filter((s) => s.name === name && s.kind === kind);
      if (found.length !== 1)
        throw new Error(`expected one span "${name}" of kind ${kind}, found ${found.length}: ${exporter.getFinishedSpans().map((s) => s.name)}`);
      return found[0];
    },
    async metrics() {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    },
    async metric(name) {
      const m = (await t.metrics()).find((x) => x.descriptor.name === name);
      if (!m) throw new Error(`no metric ${name}`);
      return m;
    },
  };
  return t;
}

export type HistogramPoint = DataPoint<Histogram>;
