// OAuth end to end: a mock authorization server issues real tokens through the mcpkit client's
// OAuth (discovery from our 401 challenge and Protected Resource Metadata, registration, PKCE,
// resource indicator), and serve() checks them: listing tools, a tool whose scope needs a
// step-up (403 insufficient_scope → the client authorizes again with the union of scopes), an
// expired token (401 → refresh), in both eras and over the deprecated HTTP+SSE transport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { connectHttp } from '../../../src/client/connect-http.js';
import { serve, type RunningServer } from '../../../src/serving/node.js';
import type { AuthorizationRequest } from '../../../src/client/auth/options.js';
import type { AuthInfo } from '../../../src/engine/transport.js';
import { startMockAs, type MockAs } from '../../fixtures/oauth/authorization-server.js';

interface Fixture {
  as: MockAs;
  running: RunningServer;
  seen: AuthInfo[];
  close(): Promise<void>;
}

async function setup(): Promise<Fixture> {
  const as = await startMockAs({ scopesSupported: ['mcp:read', 'mcp:admin', 'offline_access'] });
  const seen: AuthInfo[] = [];
  const mcp = new McpServer({ name: 'oauth-e2e', version: '1.0.0' });
  mcp.tool('hello', (_a, ctx) => {
    seen.push(ctx.authInfo!);
    return `hello ${ctx.authInfo?.principal}`;
  });
  mcp.tool('admin', (_a, ctx) => {
    seen.push(ctx.authInfo!);
    return `admin for ${ctx.authInfo?.principal}`;
  });
  const running = await serve(mcp, {
    port: 0,
    oauth: {
      authorizationServers: [as.issuer],
      verifyToken: (token) => as.verifyToken(token),
      scopesSupported: ['mcp:read', 'mcp:admin'],
      requiredScopes: ['mcp:read'],
      scopesFor: (method, name) => (method === 'tools/call' && name === 'admin' ? ['mcp:admin'] : undefined),
    },
  });
  return {
    as,
    running,
    seen,
    async close() {
      await running.close();
      await as.close();
    },
  };
}

/** The user "signs in": the mock AS answers /authorize with a redirect carrying the code. */
const authorizations: AuthorizationRequest[] = [];
async function authorize(request: AuthorizationRequest): Promise<string> {
  authorizations.push(request);
  const r = await fetch(request.url, { redirect: 'manual' });
  assert.equal(r.status, 302, `the authorization server refused: ${await r.text()}`);
  return r.headers.get('location')!;
}

const auth = { authorize, redirectUri: 'http://127.0.0.1:9/callback' };

for (const era of ['modern', 'handshake'] as const) {
  test(`${era} era: sign in from the challenge, step up for a scoped tool, refresh after expiry`, async () => {
    const fx = await setup();
    authorizations.length = 0;
    const { client } = await connectHttp(fx.running.url, { era }, { auth });
    try {
      assert.equal(client.era, era);
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['admin', 'hello']);
      // The first authorization asked for what the 401 challenge named, for this resource.
      assert.equal(authorizations.length, 1);
      // (offline_access too: the authorization server offers it, and a user is signing in.)
      assert.deepEqual(authorizations[0]!.url.searchParams.get('scope')!.split(' ').sort(), ['mcp:read', 'offline_access']);
      assert.equal(authorizations[0]!.url.searchParams.get('resource'), fx.running.url);
      const hello = await client.callTool('hello', {});
      assert.match((hello.content[0] as { text: string }).text, /^hello client-/);

      const admin = await client.callTool('admin', {});
      assert.equal(admin.isError, undefined);
      assert.match((admin.content[0] as { text: string }).text, /^admin for client-/);
      assert.equal(authorizations.length, 2, 'one step-up authorization');
      assert.deepEqual(authorizations[1]!.url.searchParams.get('scope')!.split(' ').sort(), ['mcp:admin', 'mcp:read', 'offline_access']);
      const last = fx.seen[fx.seen.length - 1]!;
      assert.ok(last.scopes!.includes('mcp:admin'));
      assert.equal(last.audience, fx.running.url);

      // Every token expires: the next request is 401 invalid_token, and the refresh token renews it.
      fx.as.expireAll();
      const again = await client.callTool('admin', {});
      assert.match((again.content[0] as { text: string }).text, /^admin for/);
      assert.equal(authorizations.length, 2, 'renewed without the user');
      assert.ok(fx.as.requests.some((r) => r.form?.get('grant_type') === 'refresh_token'));
    } finally {
      await client.close();
      await fx.close();
    }
  });
}

test('the HTTP+SSE transport: its own resource identifier, tokens on the stream and on every POST', async () => {
  const fx = await setup();
  authorizations.length = 0;
  const { client, transport } = await connectHttp(`${fx.running.url.replace(/\/mcp$/, '/sse')}`, { era: 'handshake' }, { auth });
  try {
    assert.equal(transport, 'sse');
    assert.equal(authorizations[0]!.url.searchParams.get('resource'), fx.running.url.replace(/\/mcp$/, '/sse'));
    const admin = await client.callTool('admin', {});
    assert.match((admin.content[0] as { text: string }).text, /^admin for client-/);
    assert.equal(authorizations.length, 2);
  } finally {
    await client.close();
    await fx.close();
  }
});
