// With @opentelemetry/api installed and no SDK registered, otel() and otelClient() step aside:
// messages pass untouched (no traceparent added) and nothing is built; an SDK registered later
// counts from then on. Global state: this file runs in a process of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { propagation, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { McpServer } from '../../../src/server/mcp-server.js';
import { McpClient } from '../../../src/client/client.js';
import { createLinkedPair } from '../../../src/transports/memory/index.js';
import { otel, otelClient, otelHost } from '../../../src/entries/otel.js';

test('no SDK: otelHost() hands back what the loop runs, unwrapped', async () => {
  const host = otelHost();
  const info = { id: 'c1', name: 'echo', server: 's', tool: 'echo' };
  const result = Promise.resolve({ isError: true });
  assert.equal(
    host.toolCall(info, () => result),
    result,
    'the same promise: no span around it',
  );
  const granted = Promise.resolve(true);
  assert.equal(
    host.approval({ ...info, reason: 'r' }, () => granted),
    granted,
  );
  const turn = Promise.resolve({ stopReason: 'end' });
  assert.equal(
    host.modelCall({ provider: 'openai', model: 'm', request: {} }, () => turn),
    turn,
  );
});

test('no SDK: requests pass untouched; an SDK registered later is used from then on', async () => {
  const metas: unknown[] = [];
  const s = new McpServer({ name: 'traced', version: '1.0.0', extensions: [otel()] });
  s.tool('echo', (_args, ctx) => {
    metas.push(ctx.meta);
    return 'ok';
  });
  const [a, b] = createLinkedPair();
  await s.connect(a);
  const client = new McpClient({ name: 'c', version: '1', era: 'handshake', middleware: [otelClient()] });
  await client.connect(b);
  await client.callTool('echo', {});
  const before = metas[0] as Record<string, unknown> | undefined;
  assert.equal(before?.traceparent, undefined, 'no SDK: no trace context is written into _meta');

  const exporter = new InMemorySpanExporter();
  // What an SDK's start does.
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  await client.callTool('echo', {});
  const after = metas[1] as Record<string, unknown> | undefined;
  assert.match(String(after?.traceparent), /^00-[\da-f]{32}-[\da-f]{16}-01$/, 'with an SDK the context travels');
  const spans = exporter.getFinishedSpans().filter((x) => x.name === 'tools/call echo');
  assert.deepEqual(spans.map((x) => x.kind).sort(), [SpanKind.SERVER, SpanKind.CLIENT].sort());
  await client.close();
});
