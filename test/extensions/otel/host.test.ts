// otelHost(): the host loop's spans by the GenAI conventions, and one trace from the user's
// message through the model turns and the tool call to the server's span, over real HTTP with
// a scripted model endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import type { HostObserver } from '../../../src/entries/host.js';
import { otel, otelHost, OTEL_ATTRIBUTES as A } from '../../../src/entries/otel.js';
import { deferred, startLoopRig, textTurn, toolCallsTurn, waitFor, within } from '../../support/index.js';
import { telemetry } from './helpers.js';

// As NodeSDK does: without a context manager no span is the parent of another across an await.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

function childOf(child: ReadableSpan, parent: ReadableSpan): void {
  assert.equal(child.parentSpanContext?.spanId, parent.spanContext().spanId, `${child.name} is a child of ${parent.name}`);
  assert.equal(child.spanContext().traceId, parent.spanContext().traceId);
}

for (const era of ['handshake', 'modern'] as const) {
  test(`otelHost (${era}): message, model turns, tool calls, the MCP client and server spans are one trace`, async () => {
    const t = telemetry();
    // The type the host takes: otelHost() is one.
    const observer: HostObserver = otelHost(t.options);
    const rig = await startLoopRig({
      extensions: [otel(t.options)],
      servers: {
        srv: (mcp) => {
          mcp.tool('lookup', { input: { q: z.string() } }, ({ q }) => `found ${q}`);
          mcp.tool('broken', { input: {} }, () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }));
        },
      },
      serverConfig: { srv: { era } },
      host: { observer },
      script: [
        toolCallsTurn(
          [
            { id: 'call_a', name: 'lookup', arguments: { q: 'x' } },
            { id: 'call_b', name: 'broken', arguments: {} },
          ],
          { usage: { input: 100, output: 10 }, model: 'scripted-2025' },
        ),
        textTurn('done', { usage: { input: 200, output: 20 } }),
      ],
    });
    try {
      const answer = await rig.host.conversation().send('go');
      assert.equal(answer.text, 'done');
      rig.llm.assertNoErrors();

      const agent = t.span('invoke_agent', SpanKind.INTERNAL);
      assert.equal(agent.parentSpanContext, undefined, 'the message is the root');
      assert.equal(agent.attributes[A.operationName], 'invoke_agent');
      assert.equal(typeof agent.attributes[A.conversationId], 'string');
      assert.equal(agent.attributes[A.inputTokens], 300);
      assert.equal(agent.attributes[A.outputTokens], 30);

      const chats = t.spans().filter((s) => s.name === 'chat scripted');
      assert.equal(chats.length, 2);
      chats.sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
      for (const c of chats) {
        childOf(c, agent);
        assert.equal(c.kind, SpanKind.CLIENT);
        assert.equal(c.attributes[A.operationName], 'chat');
        assert.equal(c.attributes[A.providerName], 'openai');
        assert.equal(c.attributes[A.requestModel], 'scripted');
      }
      assert.equal(chats[0].attributes[A.responseModel], 'scripted-2025');
      assert.deepEqual(chats[0].attributes[A.finishReasons], ['tool_call']);
      assert.equal(chats[0].attributes[A.inputTokens], 100);
      assert.equal(chats[0].attributes[A.outputTokens], 10);
      assert.deepEqual(chats[1].attributes[A.finishReasons], ['stop']);
      assert.equal(chats[1].attributes[A.inputTokens], 200);

      const tool = t.span('execute_tool lookup', SpanKind.INTERNAL);
      childOf(tool, agent);
      assert.deepEqual(
        [
          tool.attributes[A.operationName],
          tool.attributes[A.toolName],
          tool.attributes[A.toolCallId],
          tool.attributes[A.hostServer],
          tool.attributes[A.hostTool],
        ],
        ['execute_tool', 'lookup', 'call_a', 'srv', 'lookup'],
      );
      assert.equal(tool.status.code, SpanStatusCode.UNSET);
      const client = t.span('tools/call lookup', SpanKind.CLIENT);
      childOf(client, tool);
      const server = t.span('tools/call lookup', SpanKind.SERVER);
      childOf(server, client);
      assert.equal(server.attributes['mcp.protocol.version'], client.attributes['mcp.protocol.version']);

      const broken = t.span('execute_tool broken', SpanKind.INTERNAL);
      childOf(broken, agent);
      assert.equal(broken.attributes[A.errorType], 'tool_error');
      assert.equal(broken.status.code, SpanStatusCode.ERROR);
      childOf(t.span('tools/call broken', SpanKind.SERVER), t.span('tools/call broken', SpanKind.CLIENT));
    } finally {
      await rig.close();
    }
  });
}

test('otelHost: a cancelled message marks its tool call and the message as cancelled', async () => {
  const t = telemetry();
  const started = deferred();
  const rig = await startLoopRig({
    extensions: [otel(t.options)],
    servers: {
      srv: (mcp) =>
        mcp.tool('block', { input: {} }, async (_args, ctx) => {
          started.resolve();
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          return 'late';
        }),
    },
    serverConfig: { srv: { era: 'handshake' } },
    host: { observer: otelHost(t.options) },
    script: [toolCallsTurn({ name: 'block', arguments: {} })],
  });
  try {
    const controller = new AbortController();
    const sent = rig.host.conversation().send('go', { signal: controller.signal });
    await within(started.promise, 'the call to reach the server');
    controller.abort();
    await assert.rejects(sent, { name: 'AbortError' });
    for (const span of [t.span('execute_tool block', SpanKind.INTERNAL), t.span('invoke_agent', SpanKind.INTERNAL)]) {
      assert.equal(span.attributes[A.errorType], 'cancelled', span.name);
      assert.equal(span.status.code, SpanStatusCode.ERROR, span.name);
    }
    // The client span ends when the client tells the server it gave up.
    await waitFor(() => t.spans().some((s) => s.name === 'tools/call block' && s.kind === SpanKind.CLIENT), 'the client span to end');
    const client = t.span('tools/call block', SpanKind.CLIENT);
    assert.equal(client.attributes[A.errorType], 'cancelled');
    childOf(client, t.span('execute_tool block', SpanKind.INTERNAL));
  } finally {
    await rig.close();
  }
});

test('otelHost: the wait for the user is a span of its own, granted or not', async () => {
  const t = telemetry();
  const answers = [true, false];
  const rig = await startLoopRig({
    servers: {
      srv: (mcp) => mcp.tool('wipe', { input: { n: z.number() }, annotations: { destructiveHint: true } }, ({ n }) => `wiped ${n}`),
    },
    host: { observer: otelHost(t.options), interaction: { approve: async () => answers.shift()! } },
    script: [toolCallsTurn({ id: 'c1', name: 'wipe', arguments: { n: 1 } }), toolCallsTurn({ id: 'c2', name: 'wipe', arguments: { n: 2 } }), textTurn('ok')],
  });
  try {
    await rig.host.conversation().send('go');
    const agent = t.span('invoke_agent', SpanKind.INTERNAL);
    const waits = t.spans().filter((s) => s.name === 'approval wipe');
    assert.deepEqual(
      waits.map((s) => [s.attributes[A.toolCallId], s.attributes[A.approvalGranted], s.attributes[A.approvalReason], s.status.code]),
      [
        ['c1', true, 'destructive tool', SpanStatusCode.UNSET],
        ['c2', false, 'destructive tool', SpanStatusCode.UNSET],
      ],
    );
    for (const w of waits) childOf(w, agent);
    // Only the granted call ran.
    const tools = t.spans().filter((s) => s.name === 'execute_tool wipe');
    assert.deepEqual(
      tools.map((s) => s.attributes[A.toolCallId]),
      ['c1'],
    );
  } finally {
    await rig.close();
  }
});

test("otelHost (handshake): a server's sampling request is answered by a chat span under the request's span, in the message's trace", async () => {
  const t = telemetry();
  const rig = await startLoopRig({
    extensions: [otel(t.options)],
    servers: {
      srv: (mcp) =>
        mcp.tool('summarise', { input: {} }, async (_args, ctx) => {
          const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarise MCP.' } }], maxTokens: 50, temperature: 0.2 });
          return `summary: ${(r.content as { text: string }).text}`;
        }),
    },
    serverConfig: { srv: { era: 'handshake' } },
    host: { observer: otelHost(t.options), interaction: { approveSampling: () => true } },
    script: [toolCallsTurn({ name: 'summarise', arguments: {} }), textTurn('It connects models to tools.'), textTurn('done')],
  });
  try {
    await rig.host.conversation().send('go');
    rig.llm.assertNoErrors();
    const agent = t.span('invoke_agent', SpanKind.INTERNAL);
    const turns = t.spans().filter((s) => s.name === 'chat scripted');
    assert.equal(turns.length, 3);
    const sampled = turns.filter((s) => s.attributes[A.requestMaxTokens] === 50);
    assert.equal(sampled.length, 1, "the sampling turn carries the request's max_tokens");
    assert.equal(sampled[0].attributes[A.requestTemperature], 0.2);
    // The host's client serves the request in a SERVER span; the server sent it in a CLIENT span inside its tools/call.
    const served = t.span('sampling/createMessage', SpanKind.SERVER);
    childOf(sampled[0], served);
    const asked = t.span('sampling/createMessage', SpanKind.CLIENT);
    childOf(served, asked);
    childOf(asked, t.span('tools/call summarise', SpanKind.SERVER));
    assert.equal(sampled[0].spanContext().traceId, agent.spanContext().traceId);
  } finally {
    await rig.close();
  }
});
