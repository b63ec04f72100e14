// Interop: the OFFICIAL MCP TypeScript SDK v1 client (its OAuthClientProvider flow, used as a
// black box from npm) signs in against mcpkit's authorization server (discovery from our MCP
// server's 401, dynamic registration, PKCE, resource indicator), calls a tool on an mcpkit
// server that verifies the JWT with jwtAccessTokens, and refreshes with our rotated tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { refreshAuthorization, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { jwtAccessTokens } from '../../../src/serving/http/jwt-access-token.js';
import { serve } from '../../../src/serving/node.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { payload, startAs } from './helpers.js';

/** An OAuthClientProvider kept in memory; "the browser" follows the authorization redirect. */
class Provider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  code?: string;
  authorizationUrl?: URL;
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
    this.authorizationUrl = url;
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 302, await res.text());
    this.code = new URL(res.headers.get('location')!).searchParams.get('code') ?? undefined;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

test('the official v1 client registers, signs in, calls a tool with our JWT, and refreshes with rotation', async () => {
  const as = await startAs({ scopesSupported: ['mcp:tools'] });
  const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
  mcp.tool('whoami', (_a, ctx) => `you are ${ctx.authInfo?.principal} via ${ctx.authInfo?.clientId}`);
  const running = await serve(mcp, {
    port: 0,
    oauth: {
      authorizationServers: [as.issuer],
      verifyToken: jwtAccessTokens({ issuer: as.issuer }),
      scopesSupported: ['mcp:tools'],
      requiredScopes: ['mcp:tools'],
    },
  });
  const provider = new Provider();
  try {
    const first = new Client({ name: 'official', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider })), UnauthorizedError);
    assert.ok(provider.code, 'the official client was sent to our authorization endpoint and came back with a code');
    assert.equal(provider.authorizationUrl!.searchParams.get('resource'), running.url);
    const transport = new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider });
    await transport.finishAuth(provider.code!);
    const client = new Client({ name: 'official', version: '1.0.0' });
    await client.connect(transport);
    const clientId = provider.client!.client_id;
    const r = await client.callTool({ name: 'whoami', arguments: {} });
    assert.deepEqual(r.content, [{ type: 'text', text: `you are alice via ${clientId}` }]);
    await client.close();
    assert.equal(payload(provider.saved!.access_token).aud, running.url);

    // The SDK's own refresh against our token endpoint: a new refresh token each time.
    const metadata = await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json();
    const old = provider.saved!.refresh_token!;
    const refreshed = await refreshAuthorization(as.issuer, {
      metadata,
      clientInformation: provider.client!,
      refreshToken: old,
      resource: new URL(running.url),
    });
    assert.ok(refreshed.access_token);
    assert.notEqual(refreshed.refresh_token, old);
    await assert.rejects(
      refreshAuthorization(as.issuer, { metadata, clientInformation: provider.client!, refreshToken: old, resource: new URL(running.url) }),
      /already used/,
    );
  } finally {
    await running.close();
    await as.close();
  }
});
