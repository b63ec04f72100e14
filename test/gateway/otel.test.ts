// The gateway traced: a Host with otelHost() calls a tool through the gateway (otel() on its
// front, otelClient() on its backend connections) to a backend with otel(). One trace, from
// the host's message to the backend's span, over real HTTP in both eras.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { otel, otelClient, otelHost } from '../../src/entries/otel.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { Host } from '../../src/host/host.js';
import { serve } from '../../src/serving/node.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { startScriptedOpenAI, textTurn, toolCallsTurn } from '../support/index.js';
import { telemetry } from '../extensions/otel/helpers.js';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

function childOf(child: ReadableSpan, parent: ReadableSpan): void {
  assert.equal(child.parentSpanContext?.spanId, parent.spanContext().spanId, `${child.name} (${child.kind}) is a child of ${parent.name} (${parent.kind})`);
  assert.equal(child.spanContext().traceId, parent.spanContext().traceId);
}

for (const era of ['handshake', 'modern'] as const) {
  test(`gateway (${era}): host -> gateway -> backend is one trace`, async (t) => {
    const tel = telemetry();
    const backend = new McpServer({ name: 'weather', version: '1.0.0', extensions: [otel(tel.options)] });
    backend.tool('forecast', { input: { city: z.string() } }, ({ city }) => `sunny in ${city}`);
    const backendRunning = await serve(backend, { port: 0 });
    t.after(() => backendRunning.close());
    const gateway = createGateway({
      servers: { weather: { url: backendRunning.url, era } },
      server: { extensions: [otel(tel.options)] },
      clientMiddleware: () => [otelClient(tel.options)],
    });
    const front = await gateway.listen({ port: 0 });
    t.after(() => gateway.close());
    await gateway.ready;
    const llm = await startScriptedOpenAI([toolCallsTurn({ name: 'weather_forecast', arguments: { city: 'Hangzhou' } }), textTurn('Sunny.')]);
    t.after(() => llm.close());
    const host = new Host({
      servers: { gw: { url: front.url, era } },
      model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
      observer: otelHost(tel.options),
    });
    t.after(() => host.close());
    await host.start();

    const answer = await host.conversation().send('Weather in Hangzhou?');
    assert.equal(answer.text, 'Sunny.');
    assert.equal(answer.toolCalls[0].result?.content[0].type === 'text' && answer.toolCalls[0].result.content[0].text, 'sunny in Hangzhou');
    llm.assertNoErrors();

    const agent = tel.span('invoke_agent', SpanKind.INTERNAL);
    const tool = tel.span('execute_tool weather_forecast', SpanKind.INTERNAL);
    const hostClient = tel.span('tools/call weather_forecast', SpanKind.CLIENT);
    const gatewayFront = tel.span('tools/call weather_forecast', SpanKind.SERVER);
    const gatewayClient = tel.span('tools/call forecast', SpanKind.CLIENT);
    const backendServer = tel.span('tools/call forecast', SpanKind.SERVER);
    childOf(tool, agent);
    childOf(hostClient, tool);
    childOf(gatewayFront, hostClient);
    childOf(gatewayClient, gatewayFront);
    childOf(backendServer, gatewayClient);
    assert.equal(gatewayClient.attributes['gen_ai.tool.name'], 'forecast');
    assert.equal(gatewayFront.attributes['gen_ai.tool.name'], 'weather_forecast');
  });
}
