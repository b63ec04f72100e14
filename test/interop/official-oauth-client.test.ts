// Interop: the OFFICIAL MCP TypeScript SDK v1 client, with its own OAuth implementation
// (OAuthClientProvider, used as a black box from npm), signs in to OUR server's `oauth`
// resource server: it reads our 401 challenge and Protected Resource Metadata, registers with
// the test authorization server, runs the code flow with PKCE and the resource indicator, and
// then calls tools with the token our server checks; our 403 insufficient_scope makes it try to
// upscope with the scopes the challenge names.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { startMockAs, type MockAs } from '../fixtures/oauth/authorization-server.js';

let as: MockAs;
let running: RunningServer;
const principals: string[] = [];

before(async () => {
  as = await startMockAs({ scopesSupported: ['mcp:read', 'mcp:admin'] });
  const mcp = new McpServer({ name: 'oauth-interop', version: '1.0.0' });
  mcp.tool('whoami', (_a, ctx) => {
    principals.push(ctx.authInfo!.principal);
    return `you are ${ctx.authInfo?.principal}`;
  });
  mcp.tool('admin', () => 'admin done');
  running = await serve(mcp, {
    port: 0,
    oauth: {
      authorizationServers: [as.issuer],
      verifyToken: (token) => as.verifyToken(token),
      scopesSupported: ['mcp:read', 'mcp:admin'],
      requiredScopes: ['mcp:read'],
      scopesFor: (method, name) => (method === 'tools/call' && name === 'admin' ? ['mcp:read', 'mcp:admin'] : undefined),
    },
  });
});
after(async () => {
  await running?.close();
  await as?.close();
});

/** An OAuthClientProvider kept in memory; "the browser" follows the authorization redirect. */
class Provider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  /** The code the authorization server redirected back with, once the user "signed in". */
  code?: string;
  readonly redirectUrl = 'http://localhost:3000/callback';
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'official v1 client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    const res = await fetch(url, { redirect: 'manual' });
    this.code = new URL(res.headers.get('location')!).searchParams.get('code') ?? undefined;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Connects the way the official SDK's docs describe: a 401 → finishAuth(code) → connect again. */
async function connectOfficial(provider: Provider): Promise<Client> {
  const first = new Client({ name: 'official', version: '1.0.0' });
  try {
    await first.connect(new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider }));
    return first;
  } catch (err) {
    assert.ok(err instanceof UnauthorizedError, String(err));
  }
  assert.ok(provider.code, 'the official client was sent to the authorization endpoint');
  const transport = new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider });
  await transport.finishAuth(provider.code!);
  const client = new Client({ name: 'official', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

test('the official v1 client signs in from our challenge and metadata, and our server takes its token', async () => {
  const provider = new Provider();
  const client = await connectOfficial(provider);
  try {
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['admin', 'whoami']);
    const r = await client.callTool({ name: 'whoami', arguments: {} });
    assert.match((r.content as Array<{ text: string }>)[0]!.text, /^you are client-\d+$/);
    // What the official client asked the authorization server for, read from our metadata.
    const authorize = as.requests.filter((q) => q.path === '/authorize');
    assert.equal(authorize.length, 1);
    assert.equal(authorize[0]!.query.get('resource'), running.url);
    assert.equal(authorize[0]!.query.get('code_challenge_method'), 'S256');
    assert.match(authorize[0]!.query.get('scope') ?? '', /mcp:read/);
    assert.ok(as.requests.some((q) => q.path === '/.well-known/oauth-authorization-server'));
    assert.equal(principals.at(-1), provider.client && 'client_id' in provider.client ? provider.client.client_id : undefined);
  } finally {
    await client.close();
  }
});

test('without a token the official client gets our 401 and no tool runs', async () => {
  const before = principals.length;
  const client = new Client({ name: 'official', version: '1.0.0' });
  await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(running.url))), /401|Unauthorized/i);
  assert.equal(principals.length, before);
});

test('a scope step-up: the official client reads our 403 insufficient_scope and tries to upscope', async () => {
  const provider = new Provider();
  const client = await connectOfficial(provider);
  try {
    const tokensBefore = as.requests.filter((q) => q.path === '/token').length;
    // v1 answers the challenge with a refresh (no new sign-in, no scope parameter); a refreshed
    // token keeps its original scope, so the retry meets our 403 again and v1 gives up with its
    // own error. (mcpkit's client signs in again with the union of scopes instead.) Our side:
    // the challenge names every scope the call needs, and the tool does not run.
    await assert.rejects(client.callTool({ name: 'admin', arguments: {} }), (err: Error & { code?: number }) => {
      assert.equal(err.code, 403);
      assert.match(err.message, /upscoping/);
      return true;
    });
    const upscope = as.requests.filter((q) => q.path === '/token').slice(tokensBefore);
    assert.ok(upscope.length >= 1, 'the official client went back to the authorization server');
    assert.equal(upscope[0]!.form?.get('grant_type'), 'refresh_token');
    // The challenge it acted on, as any client sees it.
    const res = await fetch(running.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.saved!.access_token}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'admin', arguments: {} } }),
    });
    await res.text();
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope", scope="mcp:read mcp:admin", resource_metadata="[^"]+"/);
  } finally {
    await client.close();
  }
});
