// `Mcp-Param-*` headers (2026-07-28 HTTP) mirror tool arguments marked `x-mcp-header`, for
// proxies that route on them. The gateway lists such tools; a request whose header says one
// thing while its body says another must be refused at the gateway, as McpServer refuses it
// (-32020), not forwarded. Over real HTTP, for a shared backend and for a caller's own one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import type { McpError } from '../../src/jsonrpc/errors.js';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway } from '../../src/gateway/gateway.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

test('a mismatched Mcp-Param-* header is refused by the gateway with -32020; a matching one passes', async (t) => {
  const backend = new McpServer({ name: 'geo', version: '1.0.0' });
  const seen: string[] = [];
  backend.tool('route', { input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] } }, (args) => {
    const region = (args as { region: string }).region;
    seen.push(region);
    return `routed to ${region}`;
  });
  const upstream = await serve(backend, { port: 0 });
  const gateway = createGateway({ servers: { geo: { url: upstream.url, era: 'modern' }, mine: { url: upstream.url, era: 'modern', session: 'per-client' } } });
  const running = await gateway.listen({ port: 0, authenticate: (req) => ({ principal: req.header('x-user') ?? '' }) });
  t.after(async () => {
    await gateway.close();
    await upstream.close();
  });
  await gateway.ready;

  // The client mirrors the argument faithfully; `forge` rewrites (or drops) the header on the way.
  let forge: ((headers: Headers) => void) | undefined;
  const forging: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (forge && headers.has('mcp-param-region')) forge(headers);
    return fetch(input, { ...init, headers });
  };
  const client = await connect({ url: running.url, fetch: forging, headers: { 'x-user': 'ada' } }, { era: 'modern' });
  t.after(() => client.close());
  const tools = (await client.listTools()).tools;
  const listed = tools.find((x) => x.name === 'geo_route');
  assert.ok(listed, JSON.stringify(tools));
  assert.deepEqual((listed.inputSchema.properties as Record<string, unknown>).region, { type: 'string', 'x-mcp-header': 'Region' });

  for (const name of ['geo_route', 'mine_route']) {
    forge = undefined;
    assert.equal(text(await client.callTool(name, { region: 'eu' })), 'routed to eu', name);

    forge = (h) => h.set('mcp-param-region', 'us');
    await assert.rejects(client.callTool(name, { region: 'eu' }), (e: McpError) => {
      assert.equal(e.code, ErrorCode.HeaderMismatch, `${name}: ${e.message}`);
      assert.match(e.message, /Mcp-Param-Region does not match argument "region"/);
      return true;
    });
    forge = (h) => h.delete('mcp-param-region');
    await assert.rejects(
      client.callTool(name, { region: 'eu' }),
      (e: McpError) => e.code === ErrorCode.HeaderMismatch && /needs the Mcp-Param-Region header/.test(e.message),
    );
  }
  // A caller whose own backend connection does not exist yet is checked against it all the same:
  // its first call comes before any list, and its header is dropped on the way.
  forge = (h) => h.delete('mcp-param-region');
  const bob = await connect({ url: running.url, fetch: forging, headers: { 'x-user': 'bob' } }, { era: 'modern' });
  t.after(() => bob.close());
  await assert.rejects(bob.callTool('mine_route', { region: 'eu' }), (e: McpError) => e.code === ErrorCode.HeaderMismatch);
  // Only the honest calls reached the backend.
  assert.deepEqual(seen, ['eu', 'eu']);
});
