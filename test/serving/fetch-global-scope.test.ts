// Cloudflare Workers refuse random values (and timers) at a module's top level, which is where a
// Worker usually builds its server and handler: `export default { fetch: toFetchHandler(server) }`.
// So building an McpServer and a stateless fetch handler draws nothing random; the MRTR key and
// the stream tag are drawn at first use. (npm run test:runtimes runs it in workerd itself.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { toFetchHandler } from '../../src/serving/fetch.js';
import { ManualClock, modernToolCallHeaders } from '../support/index.js';

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

/** A tools/call of `ask` (the only request the test sends). */
function post(handler: (r: Request) => Promise<Response>, body: unknown): Promise<Response> {
  return handler(
    new Request('http://worker.example/mcp', {
      method: 'POST',
      headers: modernToolCallHeaders('ask'),
      body: JSON.stringify(body),
    }),
  );
}

test('an McpServer and a stateless fetch handler are built without drawing random values', async (t) => {
  const refuse = () => {
    throw new Error('Disallowed operation called within global scope');
  };
  const random = t.mock.method(globalThis.crypto, 'getRandomValues', refuse);
  const uuid = t.mock.method(globalThis.crypto, 'randomUUID', refuse);
  const server = new McpServer({ name: 'top-level', version: '1.0.0' });
  server.tool('ask', async (_args, ctx) => {
    const r = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${(r.content as { name: string }).name}`;
  });
  const handler = toFetchHandler(server, { stateful: false });
  assert.equal(random.mock.callCount() + uuid.mock.callCount(), 0);
  random.mock.restore();
  uuid.mock.restore();
  try {
    // Inside a request the key is drawn, and an input round seals and opens with it.
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {}, _meta: META } };
    const first = (await (await post(handler, call)).json()) as {
      result: { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    };
    assert.equal(first.result.resultType, 'input_required');
    const [key] = Object.keys(first.result.inputRequests);
    const retry = {
      ...call,
      id: 2,
      params: { ...call.params, inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } }, requestState: first.result.requestState },
    };
    const second = (await (await post(handler, retry)).json()) as { result: { content: Array<{ text: string }> } };
    assert.equal(second.result.content[0].text, 'hello Ada');
  } finally {
    await handler.close();
  }
});

test('a stateful fetch handler arms its session sweep at the first request, not when built', async (t) => {
  const refuse = () => {
    throw new Error('Disallowed operation called within global scope');
  };
  const random = t.mock.method(globalThis.crypto, 'getRandomValues', refuse);
  const uuid = t.mock.method(globalThis.crypto, 'randomUUID', refuse);
  const clock = new ManualClock();
  const server = new McpServer({ name: 'top-level-stateful', version: '1.0.0' });
  const handler = toFetchHandler(server, { clock, sessionIdleMs: 1000 });
  assert.equal(clock.pending, 0, 'no timer while the module loads');
  assert.equal(random.mock.callCount() + uuid.mock.callCount(), 0);
  random.mock.restore();
  uuid.mock.restore();
  try {
    const init = await handler(
      new Request('http://worker.example/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      }),
    );
    assert.equal(init.status, 200);
    assert.equal(clock.pending, 1, 'the sweep, armed by the first request');
    assert.equal(handler.handler.streamable.sessionCount, 1);
    // The sweep does its work: an idle session is closed.
    clock.advance(2000);
    assert.equal(handler.handler.streamable.sessionCount, 0);
  } finally {
    await handler.close();
  }
  assert.equal(clock.pending, 0, 'close() stops it');
});
