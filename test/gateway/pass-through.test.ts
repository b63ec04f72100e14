// A tool result through the gateway, read on the wire in both eras. Between a 2026-07-28 caller
// and a 2026-07-28 backend the result goes on as the backend sent it (its own `_meta` keys, its
// resultType), with no strip in the gateway's client to restore at its front; the backend's name
// and version never reach the caller, in either era, whatever the backend puts in `_meta`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { connect } from '../../src/client/connect.js';
import { modernToolCallHeaders } from '../support/index.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

async function rig(t: import('node:test').TestContext) {
  const backend = new McpServer({ name: 'secret-backend', version: '9.9.9-internal' });
  backend.tool('traced', { description: 'A result with _meta of its own' }, () => ({
    content: [{ type: 'text', text: 'ok' }],
    structuredContent: { n: 1 },
    // A backend that also writes an identity key of its own into the result's _meta.
    _meta: { 'example.com/trace': 't-1', [SERVER_INFO]: { name: 'secret-backend', version: '9.9.9-internal' } },
  }));
  const b = await serve(backend, { port: 0 });
  const gateway = createGateway({ servers: { b: { url: b.url } }, name: 'front-gw', version: '1.2.3' });
  const running = await gateway.listen({ port: 0 });
  t.after(async () => {
    await gateway.close();
    await b.close();
  });
  await gateway.ready;
  return running.url;
}

test('2026-07-28 both sides: the backend result on the wire as it sent it, with the gateway named in place of the backend', async (t) => {
  const url = await rig(t);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };
  const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'b_traced', arguments: {}, _meta: meta } };
  const r = await fetch(url, { method: 'POST', headers: modernToolCallHeaders('b_traced'), body: JSON.stringify(body) });
  assert.equal(r.status, 200);
  const text = await r.text();
  const result = JSON.parse(text.startsWith('{') ? text : /data: (.*)/.exec(text)![1]).result;
  assert.equal(result.resultType, 'complete');
  assert.deepEqual(result.content, [{ type: 'text', text: 'ok' }]);
  assert.deepEqual(result.structuredContent, { n: 1 });
  assert.equal(result._meta['example.com/trace'], 't-1');
  assert.deepEqual(result._meta[SERVER_INFO], { name: 'front-gw', version: '1.2.3' });
  assert.doesNotMatch(text, /secret-backend|9\.9\.9-internal/);
});

test('a handshake-era caller of a 2026-07-28 backend: the result in the shape both eras share, no backend identity', async (t) => {
  const url = await rig(t);
  const client = await connect(url, { era: 'handshake' });
  t.after(() => client.close());
  // A handshake-era client hands results over as they came: this is the wire's result.
  const result = await client.callTool('b_traced', {});
  assert.equal(result.resultType, undefined);
  assert.equal((result._meta as Record<string, unknown>)['example.com/trace'], 't-1');
  assert.equal((result._meta as Record<string, unknown>)[SERVER_INFO], undefined);
  assert.doesNotMatch(JSON.stringify(result), /secret-backend|9\.9\.9-internal/);
});
