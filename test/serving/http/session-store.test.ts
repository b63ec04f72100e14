import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { InMemorySessionStore } from '../../../src/state/session-store.js';
import { serve } from '../../../src/serving/node.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function rpc(url: string, body: object, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });
}

test('a shared SessionStore lets another instance serve a session; DELETE ends it everywhere', async () => {
  const server = new McpServer({ name: 'shared', version: '1.0.0' });
  server.tool('whoami', {}, (_args, ctx) => `${ctx.protocolVersion} ${ctx.clientInfo?.name}`);
  const store = new InMemorySessionStore();
  const a = await serve(server, { port: 0, sessionStore: store });
  const b = await serve(server, { port: 0, sessionStore: store });
  const c = await serve(server, { port: 0, sessionStore: store });
  try {
    const init = await rpc(a.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lb-client', version: '1' } },
    });
    assert.equal(init.status, 200);
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    assert.equal((await rpc(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status, 202);
    assert.equal(store.size, 1);

    // Instance B never saw the handshake, yet serves the session under what it negotiated.
    const call = await rpc(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } }, headers);
    assert.equal(call.status, 200);
    const body = (await call.json()) as { result: { content: Array<{ text: string }> } };
    assert.equal(body.result.content[0].text, '2025-06-18 lb-client');

    // An unknown id is still 404 everywhere.
    const unknown = await rpc(b.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...headers, 'mcp-session-id': 'nope' });
    assert.equal(unknown.status, 404);

    // DELETE on B forgets it in the store: instance C, which never held it, now says 404.
    const del = await fetch(b.url, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    assert.equal(store.size, 0);
    const after = await rpc(c.url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, headers);
    assert.equal(after.status, 404);
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
});

test('a session from the store keeps its owner: another principal gets 404', async () => {
  const server = new McpServer({ name: 'shared', version: '1.0.0' });
  server.tool('ping_me', {}, () => 'pong');
  const store = new InMemorySessionStore();
  const keyOf = (req: { header(n: string): string | undefined }) => {
    const k = req.header('x-api-key');
    return k ? { principal: k } : undefined;
  };
  const a = await serve(server, { port: 0, sessionStore: store, authenticate: keyOf });
  const b = await serve(server, { port: 0, sessionStore: store, authenticate: keyOf });
  try {
    const init = await rpc(
      a.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
      { 'x-api-key': 'alice' },
    );
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const asBob = await rpc(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sid, 'x-api-key': 'bob' });
    assert.equal(asBob.status, 404);
    const asAlice = await rpc(b.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sid, 'x-api-key': 'alice' });
    assert.equal(asAlice.status, 200);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
