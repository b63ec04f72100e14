// toNodeHandler inside an application's own node:http server: custom endpoint, other routes,
// and a body a framework's parser already consumed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '../../../../src/transports/http/node.js';
import { call, initReq, jsonError, LATEST, makeServer, post } from './helpers.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeAll(server: Server, close: () => Promise<void>): Promise<void> {
  await close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

test('toNodeHandler: custom endpoint path in an app server, other paths are the app’s', async () => {
  const { mcp } = makeServer();
  const mcpHandler = toNodeHandler(mcp, { endpoint: '/api/mcp', legacySse: false });
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) return mcpHandler(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('app');
  });
  const base = await listen(server);
  try {
    const r = await post(`${base}/api/mcp`, initReq());
    assert.equal(r.status, 200);
    const sid = r.headers.get('mcp-session-id')!;
    await r.text();
    const c = await post(`${base}/api/mcp`, call('echo', { text: 'mounted' }), { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST });
    assert.equal(((await c.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'mounted');
    assert.equal(await (await fetch(`${base}/health`)).text(), 'app');
    await jsonError(await post(`${base}/api/other`, initReq()), 404);
  } finally {
    await closeAll(server, mcpHandler.close);
  }
});

test('toNodeHandler: a body already parsed by a framework (req.body) is used, not awaited', async () => {
  const { mcp } = makeServer();
  const mcpHandler = toNodeHandler(mcp, { stateful: false });
  // What express.json() does: read the stream, leave the parsed value on req.body.
  const server = createServer(async (req: IncomingMessage & { body?: unknown }, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    req.body = req.headers['x-as'] === 'string' ? text : JSON.parse(text);
    mcpHandler(req, res);
  });
  const base = await listen(server);
  try {
    for (const as of ['object', 'string']) {
      const r = await post(`${base}/mcp`, call('echo', { text: as }), { 'x-as': as }, AbortSignal.timeout(2000));
      assert.equal(r.status, 200);
      assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, as);
    }
  } finally {
    await closeAll(server, mcpHandler.close);
  }
});
