// Code mode under otelHost(): each call a program makes has the span a direct call has,
// `execute_tool <name>` under the message's `invoke_agent`, with the MCP client and server spans
// below it: one trace, though the program runs in a worker and its calls come back as messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { otel, otelHost, OTEL_ATTRIBUTES as A } from '../../../src/entries/otel.js';
import { runProgram } from '../../../src/codemode/sandbox.js';
import { startLoopRig, textTurn, toolCallsTurn } from '../../support/index.js';
import { telemetry } from './helpers.js';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

function childOf(child: ReadableSpan, parent: ReadableSpan): void {
  assert.equal(child.parentSpanContext?.spanId, parent.spanContext().spanId, `${child.name} is a child of ${parent.name}`);
  assert.equal(child.spanContext().traceId, parent.spanContext().traceId);
}

test("otelHost with code mode: a program's calls are execute_tool spans of the message, as direct calls are", async () => {
  // A worker made before any trace (the pool keeps it): its messages must not carry that context.
  await runProgram({ code: 'return 1;', api: new Map(), call: async () => null });
  const t = telemetry();
  const rig = await startLoopRig({
    extensions: [otel(t.options)],
    servers: { srv: (mcp) => mcp.tool('lookup', { input: { q: z.string() }, annotations: { readOnlyHint: true } }, ({ q }) => `found ${q}`) },
    host: { observer: otelHost(t.options), codeMode: true },
    script: [
      toolCallsTurn({
        name: 'run_code',
        arguments: { code: 'const a = await srv.lookup({ q: "x" });\nconst b = await srv.lookup({ q: "y" });\nreturn [a, b];' },
      }),
      textTurn('done'),
    ],
  });
  try {
    const answer = await rig.host.conversation().send('go');
    rig.llm.assertNoErrors();
    assert.equal(answer.text, 'done');
    const agent = t.span('invoke_agent', SpanKind.INTERNAL);
    const tools = t.spans().filter((s) => s.name === 'execute_tool lookup');
    assert.equal(tools.length, 2);
    for (const tool of tools) {
      childOf(tool, agent);
      assert.equal(tool.attributes[A.hostServer], 'srv');
      assert.match(String(tool.attributes[A.toolCallId]), /^call_0_0\.[12]$/);
    }
    const clients = t.spans().filter((s) => s.name === 'tools/call lookup' && s.kind === SpanKind.CLIENT);
    assert.equal(clients.length, 2);
    for (const client of clients) assert.ok(tools.some((tool) => client.parentSpanContext?.spanId === tool.spanContext().spanId));
  } finally {
    await rig.close();
  }
});
