// Spans beyond the requests a client sends: the requests a handshake-era server sends its client
// (sampling here), served by the client under the server's context, and notifications both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpServer } from '../../../src/server/mcp-server.js';
import { McpClient } from '../../../src/client/client.js';
import { serve } from '../../../src/serving/node.js';
import { StreamableHttpClientTransport } from '../../../src/transports/http/client/streamable.js';
import { otel, otelClient } from '../../../src/entries/otel.js';
import { waitFor } from '../../support/index.js';
import { telemetry } from './helpers.js';

// What an SDK does at start (NodeSDK registers this one): without a context manager nothing is
// ever active, and a request a handler sends could not know the span it runs in. This file runs
// in a process of its own.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const attr = (s: ReadableSpan, key: string) => s.attributes[key];

test('a sampling request from a tool: server CLIENT span under the tools/call span, client SERVER span under it, one trace', async () => {
  const t = telemetry();
  const s = new McpServer({ name: 'traced', version: '1.0.0', extensions: [otel(t.options)], onerror: () => {} });
  s.tool('ask', async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hello?' } }], maxTokens: 10 });
    const block = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return block?.type === 'text' ? block.text : '';
  });
  const running = await serve(s, { port: 0 });
  const client = new McpClient({
    name: 'c',
    version: '1',
    era: 'handshake',
    middleware: [otelClient({ ...t.options, transport: 'http', url: running.url })],
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'hi from the model' }, model: 'scripted' }),
  });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: running.url }));
    const result = await client.callTool('ask', {});
    assert.deepEqual(result.content, [{ type: 'text', text: 'hi from the model' }]);
    await waitFor(() => t.spans().filter((x) => x.name === 'sampling/createMessage').length === 2);
    const call = t.span('tools/call ask', SpanKind.SERVER);
    const asked = t.span('sampling/createMessage', SpanKind.CLIENT);
    const served = t.span('sampling/createMessage', SpanKind.SERVER);
    assert.equal(parentOf(asked), call.spanContext().spanId, "the server's sampling request is a child of the tool call it serves");
    assert.equal(parentOf(served), asked.spanContext().spanId, "the client serves it under the server's span (context in _meta)");
    assert.equal(served.spanContext().traceId, t.span('tools/call ask', SpanKind.CLIENT).spanContext().traceId, 'one trace from the first call');
    assert.equal(attr(asked, 'mcp.method.name'), 'sampling/createMessage');
    assert.equal(attr(asked, 'mcp.protocol.version'), '2025-11-25');
    assert.equal(attr(served, 'jsonrpc.request.id'), attr(asked, 'jsonrpc.request.id'));
    const served2 = (await t.metric('mcp.server.operation.duration')).dataPoints.filter((p) => p.attributes['mcp.method.name'] === 'sampling/createMessage');
    assert.equal(served2.length, 1, "the client's serving of it is measured as a server operation");
  } finally {
    await client.close();
    await running.close();
  }
});

test('notifications get spans both ways: notifications/initialized sent by the client, received by the server as its child', async () => {
  const t = telemetry();
  const s = new McpServer({ name: 'traced', version: '1.0.0', extensions: [otel(t.options)], onerror: () => {} });
  const running = await serve(s, { port: 0 });
  const client = new McpClient({ name: 'c', version: '1', era: 'handshake', middleware: [otelClient({ ...t.options, transport: 'http', url: running.url })] });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: running.url }));
    await waitFor(() => t.spans().filter((x) => x.name === 'notifications/initialized').length === 2);
    const sent = t.span('notifications/initialized', SpanKind.CLIENT);
    const received = t.span('notifications/initialized', SpanKind.SERVER);
    assert.equal(parentOf(received), sent.spanContext().spanId);
    assert.equal(attr(received, 'mcp.method.name'), 'notifications/initialized');
  } finally {
    await client.close();
    await running.close();
  }
});
