// Interop: the OFFICIAL SDK client (a black-box peer from npm) against our HTTP server, in
// stateful and stateless modes, with JSON and SSE responses, and over legacy HTTP+SSE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ServeOptions } from '../../../src/serving/node.js';
import { getStreamOpen, start, type Started } from './helpers.js';
import { waitFor } from '../../support/index.js';

type Text = { content: Array<{ type: string; text: string }>; isError?: boolean };

/** `progressArrives` is false in JSON mode: a JSON response carries no notifications. */
async function exercise(client: Client, s: Started, progressArrives = true): Promise<void> {
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'echo'));
  assert.deepEqual(tools.tools.find((t) => t.name === 'echo')!.inputSchema.required, ['text']);

  const echo = (await client.callTool({ name: 'echo', arguments: { text: 'interop' } })) as Text;
  assert.deepEqual(echo.content, [{ type: 'text', text: 'interop' }]);

  const seen: Array<[number, number | undefined, string | undefined]> = [];
  const progress = (await client.callTool({ name: 'progress', arguments: { steps: 3, delayMs: 2 } }, undefined, {
    onprogress: (p) => seen.push([p.progress, p.total, p.message]),
  })) as Text;
  assert.equal(progress.content[0].text, 'did 3');
  assert.deepEqual(
    seen,
    progressArrives
      ? [
          [1, 3, 'step 1'],
          [2, 3, 'step 2'],
          [3, 3, 'step 3'],
        ]
      : [],
  );

  const failed = (await client.callTool({ name: 'fail', arguments: {} })) as Text;
  assert.equal(failed.isError, true);
  assert.equal(failed.content[0].text, 'boom');

  const invalid = (await client.callTool({ name: 'echo', arguments: { text: 42 } })) as Text;
  assert.equal(invalid.isError, true, 'bad arguments are a tool error');

  await assert.rejects(client.callTool({ name: 'no-such-tool', arguments: {} }), (e: unknown) => e instanceof McpError && e.code === -32602);

  const read = await client.readResource({ uri: 'mem://greeting' });
  assert.deepEqual(read.contents, [{ uri: 'mem://greeting', mimeType: 'text/plain', text: 'Hello, resource' }]);

  const prompt = await client.getPrompt({ name: 'hi', arguments: { who: 'the SDK' } });
  assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Say hi to the SDK' } }]);

  const before = s.counter.n;
  for (let i = 0; i < 3; i++) await client.callTool({ name: 'counter', arguments: {} });
  assert.equal(s.counter.n, before + 3);
}

for (const stateful of [true, false]) {
  for (const responseMode of ['auto', 'json', 'sse'] as const) {
    test(`official StreamableHTTPClientTransport: ${stateful ? 'stateful' : 'stateless'}, responseMode ${responseMode}`, async () => {
      const options: ServeOptions = { stateful, responseMode };
      const s = await start(options);
      const client = new Client({ name: 'official-client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(s.url));
      try {
        await client.connect(transport);
        assert.equal(client.getServerVersion()?.name, 'http-e2e');
        assert.equal(transport.protocolVersion, '2025-11-25');
        if (stateful) assert.match(transport.sessionId ?? '', /^[\x21-\x7e]+$/);
        else assert.equal(transport.sessionId, undefined);
        // Stateful JSON mode: progress does not take the SDK's GET stream either (it would arrive
        // after the result), though the stream is open.
        if (stateful && responseMode === 'json') await waitFor(() => getStreamOpen(s), 'the SDK GET stream');
        await exercise(client, s, responseMode !== 'json');
        if (stateful) {
          assert.equal(s.running.handler.streamable.sessionCount, 1);
          await transport.terminateSession();
          assert.equal(s.running.handler.streamable.sessionCount, 0);
        } else {
          await waitFor(() => s.mcp.server.sessions.size === 0, 'no transient session left');
        }
      } finally {
        await client.close();
        await s.running.close();
      }
    });
  }
}

test('official client: elicitation during a tool call, and list_changed on its GET stream', async () => {
  const s = await start();
  const client = new Client({ name: 'official-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (r) => {
    assert.equal(r.params.message, 'Your name?');
    return { action: 'accept', content: { name: 'Linus' } };
  });
  let changed = 0;
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tools/list_changed') changed++;
  };
  const transport = new StreamableHTTPClientTransport(new URL(s.url));
  try {
    await client.connect(transport);
    const r = (await client.callTool({ name: 'ask', arguments: {} })) as Text;
    assert.equal(r.content[0].text, 'hello Linus');
    // The SDK opens its GET stream after initialized; wait until it is attached.
    await waitFor(() => getStreamOpen(s), 'the SDK GET stream');
    s.mcp.tool('late', () => 'late');
    await waitFor(() => changed === 1, 'tools/list_changed');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'late'));
  } finally {
    await client.close();
    await s.running.close();
  }
});

test('official SSEClientTransport against our /sse endpoint', async () => {
  const s = await start();
  const client = new Client({ name: 'official-sse-client', version: '1.0.0' });
  try {
    await client.connect(new SSEClientTransport(new URL(`${s.base}/sse`)));
    assert.equal(client.getServerVersion()?.name, 'http-e2e');
    await exercise(client, s);
    assert.equal(s.running.handler.legacy!.connectionCount, 1);
    await client.close();
    await waitFor(() => s.running.handler.legacy!.connectionCount === 0 && s.mcp.sessions.size === 0, 'the SSE connection to be freed');
  } finally {
    await client.close();
    await s.running.close();
  }
});
