// With a context manager (as NodeSDK registers), the trace follows the code: a client call made
// inside an application span is its child, a handler's own spans are children of the server
// span, and a span active where the request arrived (an HTTP server span) is linked to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, ROOT_CONTEXT, SpanKind, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { McpServer } from '../../../src/server/mcp-server.js';
import { McpClient } from '../../../src/client/client.js';
import { createLinkedPair } from '../../../src/transports/memory/index.js';
import { serve } from '../../../src/serving/node.js';
import { StreamableHttpClientTransport } from '../../../src/transports/http/client/streamable.js';
import { otel, otelClient } from '../../../src/entries/otel.js';
import { telemetry } from './helpers.js';

/** The AsyncLocalStorage context manager, in a few lines (the SDK's package is not a dependency). */
class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}
context.setGlobalContextManager(new StorageContextManager());

for (const era of ['handshake', 'modern'] as const) {
  test(`otel (${era}): the application's span, the client span, the server span and the handler's span form one chain`, async () => {
    const t = telemetry();
    const tracer = t.options.tracerProvider!.getTracer('app');
    const server = new McpServer({ name: 's', version: '1', extensions: [otel(t.options)] });
    server.tool('lookup', () => tracer.startActiveSpan('db query', (span) => (span.end(), 'found')));
    const [a, b] = createLinkedPair();
    await server.connect(a);
    const client = new McpClient({ name: 'c', version: '1', era, middleware: [otelClient(t.options)] });
    await client.connect(b);
    try {
      await tracer.startActiveSpan('agent turn', async (turn) => {
        await client.callTool('lookup', {});
        turn.end();
      });
      const turn = t.span('agent turn', SpanKind.INTERNAL);
      const c = t.span('tools/call lookup', SpanKind.CLIENT);
      const s = t.span('tools/call lookup', SpanKind.SERVER);
      const db = t.span('db query', SpanKind.INTERNAL);
      assert.equal(c.parentSpanContext?.spanId, turn.spanContext().spanId);
      assert.equal(s.parentSpanContext?.spanId, c.spanContext().spanId);
      assert.equal(db.parentSpanContext?.spanId, s.spanContext().spanId);
      assert.equal(new Set([turn, c, s, db].map((x) => x.spanContext().traceId)).size, 1);
    } finally {
      await client.close();
    }
  });
}

test('otel over HTTP: a span active where the request arrived is linked, not made the parent', async () => {
  const t = telemetry();
  const tracer = t.options.tracerProvider!.getTracer('http');
  const server = new McpServer({ name: 's', version: '1', extensions: [otel(t.options)] });
  server.tool('echo', () => 'ok');
  const running = await serve(server, { port: 0 });
  // Stands in for HTTP instrumentation: every request is handled inside an HTTP server span.
  const handle = running.httpServer.listeners('request')[0] as (...args: unknown[]) => void;
  running.httpServer.removeAllListeners('request');
  running.httpServer.on('request', (...args: unknown[]) => {
    const span = tracer.startSpan('POST /mcp', { kind: SpanKind.SERVER });
    context.with(trace.setSpan(ROOT_CONTEXT, span), () => handle(...args));
    span.end();
  });
  const client = new McpClient({ name: 'c', version: '1', era: 'modern', middleware: [otelClient(t.options)] });
  await client.connect(new StreamableHttpClientTransport({ url: running.url }));
  try {
    await client.callTool('echo', {});
    const c = t.span('tools/call echo', SpanKind.CLIENT);
    const s = t.span('tools/call echo', SpanKind.SERVER);
    assert.equal(s.parentSpanContext?.spanId, c.spanContext().spanId);
    const httpSpans = new Set(
      t
        .spans()
        .filter((x) => x.name === 'POST /mcp')
        .map((x) => x.spanContext().spanId),
    );
    assert.equal(s.links.length, 1);
    assert.ok(httpSpans.has(s.links[0].context.spanId), 'the link names an HTTP server span');
  } finally {
    await client.close();
    await running.close();
  }
});
