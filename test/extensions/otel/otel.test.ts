// OpenTelemetry by the MCP semantic conventions (https://github.com/open-telemetry/semantic-conventions/blob/main/docs/gen-ai/mcp.md):
// span names, kinds and attributes, one trace from client to server through params._meta in
// both eras, errors (protocol errors and isError results), cancellations, the HTTP traceparent
// header, and the operation and session metrics. Real HTTP, stdio streams and memory pairs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { McpServer } from '../../../src/server/mcp-server.js';
import { McpClient } from '../../../src/client/client.js';
import { serve } from '../../../src/serving/node.js';
import { StreamableHttpClientTransport } from '../../../src/transports/http/client/streamable.js';
import { StdioServerTransport } from '../../../src/transports/stdio/server.js';
import { createLinkedPair } from '../../../src/transports/memory/index.js';
import type { Transport } from '../../../src/engine/transport.js';
import { otel, otelClient } from '../../../src/entries/otel.js';
import { latch, waitFor } from '../../support/index.js';
import { telemetry, type HistogramPoint, type Telemetry } from './helpers.js';

type Era = 'handshake' | 'modern';

function server(t: Telemetry, started?: () => void): McpServer {
  const s = new McpServer({ name: 'traced', version: '1.0.0', extensions: [otel(t.options)], onerror: () => {} });
  s.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => String((args as { text?: string }).text));
  s.tool('broken', () => {
    throw new Error('the tool broke');
  });
  s.tool('slow', (_args, ctx) => {
    started?.();
    return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
  });
  s.prompt('greet', () => 'hello');
  s.resource('note', 'memo://note', () => 'a note');
  return s;
}

async function overHttp(t: Telemetry, era: Era, started?: () => void) {
  const running = await serve(server(t, started), { port: 0 });
  const client = new McpClient({ name: 'c', version: '1', era, middleware: [otelClient({ ...t.options, transport: 'http', url: running.url })] });
  await client.connect(new StreamableHttpClientTransport({ url: running.url }));
  return {
    client,
    url: running.url,
    close: async () => {
      await client.close();
      await running.close();
    },
  };
}

const attr = (s: ReadableSpan, k: string) => s.attributes[k];
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

for (const era of ['handshake', 'modern'] as const) {
  test(`otel over HTTP (${era}): one trace from the client span to the server span, with the conventions' attributes`, async () => {
    const t = telemetry();
    const { client, url, close } = await overHttp(t, era);
    try {
      await client.callTool('echo', { text: 'hi' });
      const c = t.span('tools/call echo', SpanKind.CLIENT);
      const s = t.span('tools/call echo', SpanKind.SERVER);
      assert.equal(s.spanContext().traceId, c.spanContext().traceId);
      assert.equal(parentOf(s), c.spanContext().spanId, 'the server span is a child of the client span (params._meta.traceparent)');
      for (const span of [c, s]) {
        assert.equal(attr(span, 'mcp.method.name'), 'tools/call');
        assert.equal(attr(span, 'gen_ai.tool.name'), 'echo');
        assert.equal(attr(span, 'gen_ai.operation.name'), 'execute_tool');
        assert.equal(typeof attr(span, 'jsonrpc.request.id'), 'string');
        assert.equal(attr(span, 'network.transport'), 'tcp');
        assert.equal(attr(span, 'network.protocol.name'), 'http');
        assert.equal(attr(span, 'mcp.protocol.version'), era === 'modern' ? '2026-07-28' : '2025-11-25');
        assert.equal(attr(span, 'error.type'), undefined);
        assert.equal(span.status.code, SpanStatusCode.UNSET);
      }
      assert.equal(attr(s, 'jsonrpc.request.id'), attr(c, 'jsonrpc.request.id'));
      assert.equal(attr(c, 'server.address'), '127.0.0.1');
      assert.equal(attr(c, 'server.port'), Number(new URL(url).port));
      assert.equal(attr(s, 'client.address'), '127.0.0.1');
      // A session exists only in the handshake era (Mcp-Session-Id).
      if (era === 'handshake') assert.match(String(attr(s, 'mcp.session.id')), /./);
      else assert.equal(attr(s, 'mcp.session.id'), undefined);

      await client.getPrompt('greet');
      await client.readResource('memo://note');
      assert.equal(attr(t.span('prompts/get greet', SpanKind.SERVER), 'gen_ai.prompt.name'), 'greet');
      // The URI is recorded, but kept out of the span name (the conventions' default).
      assert.equal(attr(t.span('resources/read', SpanKind.SERVER), 'mcp.resource.uri'), 'memo://note');
      assert.equal(attr(t.span('resources/read', SpanKind.CLIENT), 'mcp.resource.uri'), 'memo://note');
      // The era's own requests are spans too: initialize or server/discover.
      const first = era === 'modern' ? 'server/discover' : 'initialize';
      assert.equal(parentOf(t.span(first, SpanKind.SERVER)), t.span(first, SpanKind.CLIENT).spanContext().spanId);

      const m = await t.metric('mcp.server.operation.duration');
      assert.equal(m.descriptor.unit, 's');
      const call = (m.dataPoints as HistogramPoint[]).find((p) => p.attributes['gen_ai.tool.name'] === 'echo');
      assert.ok(call, 'a duration for the echo call');
      assert.equal(call.value.count, 1);
      assert.deepEqual(call.value.buckets.boundaries, [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
      assert.equal(call.attributes['mcp.method.name'], 'tools/call');
      // High-cardinality attributes stay off metrics.
      assert.equal(call.attributes['jsonrpc.request.id'], undefined);
      assert.equal(call.attributes['mcp.session.id'], undefined);
      const cm = await t.metric('mcp.client.operation.duration');
      assert.equal((cm.dataPoints as HistogramPoint[]).find((p) => p.attributes['gen_ai.tool.name'] === 'echo')?.value.count, 1);
    } finally {
      await close();
    }
  });

  test(`otel over HTTP (${era}): a protocol error and an isError result are recorded as errors`, async () => {
    const t = telemetry();
    const { client, close } = await overHttp(t, era);
    try {
      await assert.rejects(client.callTool('missing', {}));
      for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
        const s = t.span('tools/call missing', kind);
        assert.equal(attr(s, 'error.type'), '-32602');
        assert.equal(attr(s, 'rpc.response.status_code'), '-32602');
        assert.equal(s.status.code, SpanStatusCode.ERROR);
        assert.match(String(s.status.message), /missing/);
      }
      const r = await client.callTool('broken', {});
      assert.equal(r.isError, true);
      for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
        const s = t.span('tools/call broken', kind);
        assert.equal(attr(s, 'error.type'), 'tool_error');
        assert.equal(attr(s, 'rpc.response.status_code'), undefined, 'the JSON-RPC call itself succeeded');
        assert.equal(s.status.code, SpanStatusCode.ERROR);
      }
      const errors = await t.metric('mcpkit.server.tool.errors');
      const byType = Object.fromEntries(errors.dataPoints.map((p) => [String(p.attributes['error.type']), p.value]));
      assert.deepEqual(byType, { '-32602': 1, tool_error: 1 });
    } finally {
      await close();
    }
  });

  test(`otel over HTTP (${era}): a cancelled call ends both spans as cancelled`, async () => {
    const t = telemetry();
    const entered = latch();
    const { client, close } = await overHttp(t, era, () => entered.arrive());
    try {
      const abort = new AbortController();
      const call = client.callTool('slow', {}, { signal: abort.signal });
      await entered.opened;
      abort.abort();
      await assert.rejects(call);
      const c = t.span('tools/call slow', SpanKind.CLIENT);
      assert.equal(attr(c, 'error.type'), 'cancelled');
      assert.equal(c.status.code, SpanStatusCode.ERROR);
      await waitFor(() => t.spans().some((s) => s.name === 'tools/call slow' && s.kind === SpanKind.SERVER));
      const s = t.span('tools/call slow', SpanKind.SERVER);
      assert.equal(attr(s, 'error.type'), 'cancelled');
      assert.equal(parentOf(s), c.spanContext().spanId);
    } finally {
      await close();
    }
  });
}

test('otel over HTTP: with no traceparent in _meta, the HTTP traceparent header is the parent', async () => {
  const t = telemetry();
  const running = await serve(server(t), { port: 0 });
  try {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const res = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
        traceparent: `00-${traceId}-${parent}-01`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: { text: 'x' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    await res.text();
    const s = t.span('tools/call echo', SpanKind.SERVER);
    assert.equal(s.spanContext().traceId, traceId);
    assert.equal(parentOf(s), parent);
    assert.equal(attr(s, 'jsonrpc.request.id'), '7');
  } finally {
    await running.close();
  }
});

async function overStream(t: Telemetry, serverSide: Transport, clientSide: Transport) {
  const s = server(t);
  await s.connect(serverSide);
  const client = new McpClient({ name: 'c', version: '1', era: 'handshake', middleware: [otelClient({ ...t.options, transport: 'stdio' })] });
  await client.connect(clientSide);
  return client;
}

test('otel over stdio (handshake): pipe transport, parent from _meta, session metrics', async () => {
  const t = telemetry();
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const serverSide = new StdioServerTransport({ stdin: toServer, stdout: toClient });
  // The client end of the pipe: the same line protocol, the other way round.
  const clientSide = new StdioServerTransport({ stdin: toClient, stdout: toServer });
  const client = await overStream(t, serverSide, clientSide);
  await client.callTool('echo', { text: 'over a pipe' });
  const s = t.span('tools/call echo', SpanKind.SERVER);
  assert.equal(attr(s, 'network.transport'), 'pipe');
  assert.equal(attr(s, 'network.protocol.name'), undefined);
  assert.equal(attr(s, 'mcp.session.id'), undefined, 'stdio has no session id');
  assert.equal(parentOf(s), t.span('tools/call echo', SpanKind.CLIENT).spanContext().spanId);
  const active = await t.metric('mcpkit.server.session.active');
  assert.equal(active.dataPoints[0]?.value, 1);
  await client.close();
  await serverSide.close();
  await waitFor(async () => ((await t.metric('mcpkit.server.session.active')).dataPoints[0]?.value as number) === 0);
  const sessions = (await t.metric('mcp.server.session.duration')).dataPoints as HistogramPoint[];
  assert.equal(sessions.length, 1);
  assert.equal(sessions[0].value.count, 1);
  assert.equal(sessions[0].attributes['network.transport'], 'pipe');
  assert.equal(sessions[0].attributes['mcp.protocol.version'], '2025-11-25');
});

test('otel over memory (modern): the trace crosses an in-process pair too', async () => {
  const t = telemetry();
  const [a, b] = createLinkedPair();
  const s = server(t);
  await s.connect(a);
  const client = new McpClient({ name: 'c', version: '1', era: 'modern', middleware: [otelClient(t.options)] });
  await client.connect(b);
  try {
    await client.callTool('echo', { text: 'in process' });
    const span = t.span('tools/call echo', SpanKind.SERVER);
    assert.equal(parentOf(span), t.span('tools/call echo', SpanKind.CLIENT).spanContext().spanId);
    assert.equal(attr(span, 'mcp.protocol.version'), '2026-07-28');
    assert.equal(attr(span, 'network.transport'), undefined, 'no network in process');
  } finally {
    await client.close();
  }
});
