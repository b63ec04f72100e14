// End to end: mcpkit's own OAuth client signs in against mcpkit's authorization server (the
// browser step done programmatically) and calls a tool on an mcpkit server whose resource guard
// verifies the server's JWTs with jwtAccessTokens: with dynamic registration in both eras, and
// with a client ID metadata document. Then the official v1 SDK's client does the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectHttp } from '../../../src/client/connect-http.js';
import type { AuthorizationRequest } from '../../../src/client/auth/options.js';
import { jwtAccessTokens } from '../../../src/hosting/http/jwt-access-token.js';
import { serve, type RunningServer } from '../../../src/hosting/node.js';
import type { RunningAuthorizationServer } from '../../../src/hosting/oauth-server/node.js';
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
  const docUrl = 'https://client.example.test/mcp-client.json';
  let fetches = 0;
  const docServer: Server = createServer((_req, res) => {
    fetches++;
    const body = JSON.stringify({ client_id: docUrl, client_name: 'CIMD client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(body);
  });
  await new Promise<void>((r) => docServer.listen(0, '127.0.0.1', r));
  const docPort = (docServer.address() as AddressInfo).port;
  // The document is "on the internet": the AS's fetch reaches it over real HTTP on loopback.
  const fetchVia: typeof fetch = (input, init) => {
    const u = new URL(String(input instanceof Request ? input.url : input));
    if (u.hostname === 'client.example.test') return fetch(`http://127.0.0.1:${docPort}${u.pathname}`, init);
    return fetch(input, init);
  };
  const s = await setup({ fetch: fetchVia, dynamicRegistration: false });
  try {
    const b = browser();
    const { client } = await connectHttp(
      s.mcp.url,
      { era: 'handshake' },
      { auth: { authorize: b.authorize, redirectUri: REDIRECT, clientMetadataUrl: docUrl } },
    );
    assert.deepEqual((await client.callTool('whoami', {})).content, [{ type: 'text', text: 'you are alice' }]);
    await client.close();
    assert.equal(b.calls[0]!.url.searchParams.get('client_id'), docUrl);
    assert.equal(s.seen[0]!.clientId, docUrl);
    assert.equal(fetches, 1, 'fetched once: /authorize and /token share the cached document');
  } finally {
    await s.close();
    docServer.closeAllConnections();
    await new Promise<void>((r) => docServer.close(() => r()));
  }
});

test('client ID metadata documents: a document naming another client, too large, private hosts or redirects are refused', async () => {
  let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' };
  const docServer: Server = createServer((_req, res) => {
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  });
  await new Promise<void>((r) => docServer.listen(0, '127.0.0.1', r));
  const port = (docServer.address() as AddressInfo).port;
  const fetchVia: typeof fetch = (input, init) => fetch(String(input).replace('https://client.example.test', `http://127.0.0.1:${port}`), init);
  const s = await setup({ fetch: fetchVia });
  const attempt = async (clientId: string) => {
    const u = new URL(`${s.as.issuer}/authorize`);
    u.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const r = await fetch(u, { redirect: 'manual' });
    return { status: r.status, body: await r.text() };
  };
  try {
    const id = 'https://client.example.test/c.json';
    answer = { status: 200, body: JSON.stringify({ client_id: 'https://other.example/c.json', redirect_uris: [REDIRECT] }) };
    assert.match((await attempt(id)).body, /names client_id/);
    answer = { status: 200, body: JSON.stringify({ client_id: id, redirect_uris: [REDIRECT], pad: 'x'.repeat(6000) }) };
    assert.match((await attempt(id)).body, /larger than 5120 bytes/);
    answer = { status: 302, body: '', headers: { location: 'http://169.254.169.254/' } };
    assert.match((await attempt(id)).body, /redirects are not followed/);
    answer = { status: 200, body: JSON.stringify({ client_id: id, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }) };
    assert.match((await attempt(id)).body, /only public clients/);
    const local = await attempt('https://127.0.0.1/c.json');
    assert.equal(local.status, 400);
    assert.match(local.body, /private address/);
    assert.match((await attempt('http://client.example.test/c.json')).body, /must be an https URL/);
  } finally {
    await s.close();
    docServer.closeAllConnections();
    await new Promise<void>((r) => docServer.close(() => r()));
  }
});
