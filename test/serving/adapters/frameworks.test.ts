// mcpkit/express, mcpkit/hono and mcpkit/fastify over real HTTP: both eras with our client, the
// official v1 SDK client, the API-key guard and OAuth resource metadata through the adapter, and a
// bearer token checked by the framework's own middleware reaching tools as ctx.authInfo. Each app
// parses or reads the body before MCP does, and keeps a route of its own beside it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from '../../../src/client/connect.js';
import type { McpHttpHandler } from '../../../src/serving/http/router.js';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import { BOTH, initReq, makeServer, type Fixture } from '../http/helpers.js';
import { waitFor } from '../../support/index.js';
import { FRAMEWORKS, host } from './hosts.js';

function fixture(): Fixture {
  const f = makeServer();
  f.mcp.tool('whoami', (_args, ctx) => `${ctx.authInfo?.principal ?? 'anonymous'} via ${ctx.authInfo?.clientId ?? 'none'}`);
  return f;
}

/** Whether some session has its standalone GET stream connected (peeks inside, as helpers.ts does). */
function getStreamOpen(handler: McpHttpHandler): boolean {
  const inner = handler.streamable as unknown as { sessions: Map<string, { transport: { standalone?: { connected: boolean } } }> };
  return [...inner.sessions.values()].some((l) => l.transport.standalone?.connected === true);
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

for (const framework of FRAMEWORKS) {
  describe(`mcpkit/${framework}`, () => {
    test('2026-07-28: our client, stateless POSTs, a call with progress; the app keeps its own route', async () => {
      const { mcp } = fixture();
      const h = await host(framework, mcp);
      try {
        const client = await connect(h.url, { name: 'ours', version: '1' });
        try {
          assert.equal(client.era, 'modern');
          assert.ok((await client.listTools()).tools.some((t) => t.name === 'echo'));
          assert.equal(text(await client.callTool('echo', { text: `via ${framework}` })), `via ${framework}`);
          const seen: number[] = [];
          const r = await client.callTool('progress', { steps: 3, delayMs: 1 }, { onprogress: (p) => seen.push(p.progress) });
          assert.equal(text(r), 'did 3');
          assert.deepEqual(seen, [1, 2, 3]);
          assert.equal(h.handler.streamable.sessionCount, 0, 'no session in this era');
        } finally {
          await client.close();
        }
        const health = await fetch(`${h.base}/health`);
        assert.equal(await health.text(), `${framework} ok`);
        // A malformed body is the MCP core's JSON-RPC parse error, not the framework's page...
        // except Express's json() parser, which answers it before MCP sees it.
        const bad = await fetch(h.url, { method: 'POST', headers: BOTH, body: '{"jsonrpc":' });
        assert.equal(bad.status, 400);
        if (framework !== 'express') assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700);
      } finally {
        await h.close();
      }
    });

    test('handshake era: our client gets a session, its GET stream, and DELETE on close', async () => {
      const { mcp } = fixture();
      const h = await host(framework, mcp);
      try {
        const client = await connect(h.url, { name: 'ours', version: '1', era: 'handshake' });
        try {
          assert.equal(client.era, 'handshake');
          assert.equal(h.handler.streamable.sessionCount, 1);
          const seen: number[] = [];
          const r = await client.callTool('progress', { steps: 2, delayMs: 1 }, { onprogress: (p) => seen.push(p.progress) });
          assert.equal(text(r), 'did 2');
          assert.deepEqual(seen, [1, 2]);
          // A log from outside any request travels on the session's GET stream.
          const logs: string[] = [];
          client.on('notifications/message', (p) => logs.push(String(p?.data)));
          await waitFor(() => getStreamOpen(h.handler));
          mcp.log('info', 'on the GET stream');
          await waitFor(() => logs.includes('on the GET stream'));
        } finally {
          await client.close();
        }
        await waitFor(() => h.handler.streamable.sessionCount === 0);
      } finally {
        await h.close();
      }
    });

    test('the official v1 SDK client (StreamableHTTPClientTransport): session, call, DELETE', async () => {
      const { mcp } = fixture();
      const h = await host(framework, mcp);
      const transport = new StreamableHTTPClientTransport(new URL(h.url));
      const client = new Client({ name: 'sdk-v1', version: '1' });
      try {
        await client.connect(transport);
        assert.ok(transport.sessionId, 'a session id');
        const tools = await client.listTools();
        assert.ok(tools.tools.some((t) => t.name === 'progress'));
        const progress: number[] = [];
        const r = await client.callTool({ name: 'progress', arguments: { steps: 2, delayMs: 1 } }, undefined, {
          onprogress: (p) => progress.push(p.progress),
        });
        assert.equal(text(r as { content: unknown[] }), 'did 2');
        assert.deepEqual(progress, [1, 2]);
        assert.equal(h.handler.streamable.sessionCount, 1);
        await transport.terminateSession();
        assert.equal(h.handler.streamable.sessionCount, 0);
      } finally {
        await client.close();
        await h.close();
      }
    });

    test('the API-key guard (the authenticate option) refuses without a key and names the caller with one', async () => {
      const { mcp } = fixture();
      const h = await host(framework, mcp, { authenticate: apiKeyGuard({ keys: ['k-123'] }) });
      try {
        const refused = await fetch(h.url, { method: 'POST', headers: BOTH, body: JSON.stringify(initReq()) });
        assert.equal(refused.status, 401);
        assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
        for (const era of ['modern', 'handshake'] as const) {
          const client = await connect({ url: h.url, headers: { 'x-api-key': 'k-123' } }, { name: 'keyed', version: '1', era });
          try {
            assert.equal(text(await client.callTool('whoami', {})), 'api-key-0 via none');
          } finally {
            await client.close();
          }
        }
      } finally {
        await h.close();
      }
    });

    test("a bearer token checked by the framework's own middleware reaches tools as ctx.authInfo", async () => {
      const { mcp } = fixture();
      const h = await host(framework, mcp, {}, { bearer: 'tok-alice' });
      try {
        const refused = await fetch(h.url, { method: 'POST', headers: BOTH, body: JSON.stringify(initReq()) });
        assert.equal(refused.status, 401);
        assert.equal(((await refused.json()) as { by: string }).by, 'framework middleware');
        const headers = { authorization: 'Bearer tok-alice' };
        for (const era of ['modern', 'handshake'] as const) {
          const client = await connect({ url: h.url, headers }, { name: 'bearer', version: '1', era });
          try {
            assert.equal(text(await client.callTool('whoami', {})), 'alice via framework-middleware');
          } finally {
            await client.close();
          }
        }
        const transport = new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers } });
        const sdk = new Client({ name: 'sdk-v1', version: '1' });
        try {
          await sdk.connect(transport);
          const r = await sdk.callTool({ name: 'whoami', arguments: {} });
          assert.equal(text(r as { content: unknown[] }), 'alice via framework-middleware');
          await transport.terminateSession();
          assert.equal(h.handler.streamable.sessionCount, 0);
        } finally {
          await sdk.close();
        }
      } finally {
        await h.close();
      }
    });

    test('oauth: the metadata document and the challenge are served through the adapter, a good token admitted', async () => {
      const { mcp } = fixture();
      const h = await host(framework, mcp, {
        oauth: {
          authorizationServers: ['https://as.example'],
          verifyToken: async (token) => (token === 'good' ? { principal: 'oauth-user', token, scopes: [], clientId: 'app' } : undefined),
        },
      });
      try {
        const meta = await fetch(`${h.base}/.well-known/oauth-protected-resource/mcp`);
        assert.equal(meta.status, 200);
        const doc = (await meta.json()) as { resource: string; authorization_servers: string[] };
        assert.equal(doc.resource, h.url);
        assert.deepEqual(doc.authorization_servers, ['https://as.example']);
        const refused = await fetch(h.url, { method: 'POST', headers: BOTH, body: JSON.stringify(initReq()) });
        assert.equal(refused.status, 401);
        assert.match(refused.headers.get('www-authenticate') ?? '', /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
        const client = await connect({ url: h.url, headers: { authorization: 'Bearer good' } }, { name: 'oauth', version: '1' });
        try {
          assert.equal(text(await client.callTool('whoami', {})), 'oauth-user via app');
        } finally {
          await client.close();
        }
      } finally {
        await h.close();
      }
    });
  });
}
