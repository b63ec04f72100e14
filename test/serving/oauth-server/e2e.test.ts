// End to end: mcpkit's own OAuth client signs in against mcpkit's authorization server (the
// browser step done programmatically) and calls a tool on an mcpkit server whose resource guard
// verifies the server's JWTs with jwtAccessTokens: with dynamic registration in both eras, and
// with a client ID metadata document (its SSRF guard is cimd.test.ts's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectHttp } from '../../../src/client/connect-http.js';
import type { AuthorizationRequest } from '../../../src/client/auth/options.js';
import { jwtAccessTokens } from '../../../src/serving/http/jwt-access-token.js';
import { serve, type RunningServer } from '../../../src/serving/node.js';
import type { RunningAuthorizationServer } from '../../../src/serving/oauth-server/node.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import type { AuthInfo } from '../../../src/engine/transport.js';
import { startAs } from './helpers.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';

interface Setup {
  as: RunningAuthorizationServer;
  mcp: RunningServer;
  seen: AuthInfo[];
  close(): Promise<void>;
}

async function setup(asOptions: Parameters<typeof startAs>[0] = {}): Promise<Setup> {
  const as = await startAs({ scopesSupported: ['mcp:tools', 'offline_access'], ...asOptions });
  const seen: AuthInfo[] = [];
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.tool('whoami', (_args, ctx) => {
    seen.push(ctx.authInfo!);
    return `you are ${ctx.authInfo?.principal}`;
  });
  const mcp = await serve(server, {
    port: 0,
    oauth: {
      authorizationServers: [as.issuer],
      verifyToken: jwtAccessTokens({ issuer: as.issuer, onError: (e) => assert.fail(e) }),
      scopesSupported: ['mcp:tools'],
      requiredScopes: ['mcp:tools'],
    },
  });
  return {
    as,
    mcp,
    seen,
    async close() {
      await mcp.close();
      await as.close();
    },
  };
}

/** The user's browser: follows the authorization server's redirect back to the client, by hand. */
function browser() {
  const calls: AuthorizationRequest[] = [];
  return {
    calls,
    async authorize(request: AuthorizationRequest): Promise<string> {
      calls.push(request);
      const r = await fetch(request.url, { redirect: 'manual' });
      assert.equal(r.status, 302, await r.text());
      const location = r.headers.get('location')!;
      assert.ok(location.startsWith(`${REDIRECT}?`), location);
      return location;
    },
  };
}

for (const era of ['handshake', 'modern'] as const) {
  test(`${era} era: mcpkit's client registers, signs in and calls a tool the guard admits with the AS's JWT`, async () => {
    const s = await setup();
    try {
      const b = browser();
      const { client } = await connectHttp(s.mcp.url, { era }, { auth: { authorize: b.authorize, redirectUri: REDIRECT } });
      const result = await client.callTool('whoami', {});
      assert.deepEqual(result.content, [{ type: 'text', text: 'you are alice' }]);
      await client.close();
      assert.equal(b.calls.length, 1);
      const q = b.calls[0]!.url.searchParams;
      assert.equal(q.get('resource'), s.mcp.url);
      assert.deepEqual(q.get('scope')!.split(' ').sort(), ['mcp:tools', 'offline_access']);
      const info = s.seen[0]!;
      assert.equal(info.principal, 'alice');
      assert.ok(info.clientId, 'the dynamically registered client id');
      assert.deepEqual(info.scopes!.sort(), ['mcp:tools', 'offline_access']);
      assert.equal((info.extra!.claims as { aud: string }).aud, s.mcp.url);
    } finally {
      await s.close();
    }
  });
}

test('a client ID metadata document: the AS fetches it (bounded, cached) instead of a registration', async () => {
  const hosts: (string | undefined)[] = [];
  const docServer: Server = createServer((req, res) => {
    hosts.push(req.headers.host);
    const body = JSON.stringify({ client_id: docUrl, client_name: 'CIMD client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(body);
  });
  await new Promise<void>((r) => docServer.listen(0, '127.0.0.1', r));
  const docPort = (docServer.address() as AddressInfo).port;
  // The document is "on the internet": its name resolves (through the injected resolver, as DNS
  // would) to the loopback server; http and loopback are allowed for the test only.
  const docUrl = `http://client.example.test:${docPort}/mcp-client.json`;
  const lookup = async (host: string) => (host === 'client.example.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const s = await setup({ clientIdMetadata: { allowInsecure: true, lookup }, dynamicRegistration: false });
  try {
    const b = browser();
    // The client names its document URL as its client id (mcpkit's client takes only https for
    // `clientMetadataUrl`, so the http one of this test is given as `clientId`).
    const { client } = await connectHttp(
      s.mcp.url,
      { era: 'handshake' },
      { auth: { authorize: b.authorize, redirectUri: REDIRECT, clientId: docUrl, tokenEndpointAuthMethod: 'none' } },
    );
    assert.deepEqual((await client.callTool('whoami', {})).content, [{ type: 'text', text: 'you are alice' }]);
    await client.close();
    assert.equal(b.calls[0]!.url.searchParams.get('client_id'), docUrl);
    assert.equal(s.seen[0]!.clientId, docUrl);
    assert.deepEqual(hosts, [`client.example.test:${docPort}`], 'fetched once (/authorize and /token share the cached document), by its name');
  } finally {
    await s.close();
    docServer.closeAllConnections();
    await new Promise<void>((r) => docServer.close(() => r()));
  }
});
