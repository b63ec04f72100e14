// DPoP end to end: the mcpkit client signs in at a mock authorization server that binds its
// tokens to the client's key (JWT access tokens with cnf.jkt, signed by the JWKS fixture), and
// serve() checks them with jwtAccessTokens() and a DPoP proof on every request: both eras, the
// server nonce handshake, DPoP required, the deprecated HTTP+SSE transport, and Bearer clients
// beside DPoP ones. The exact refusals, with raw requests, are in dpop-resource.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { connectHttp } from '../../../src/client/connect-http.js';
import { serve, type RunningServer } from '../../../src/serving/node.js';
import { jwtAccessTokens } from '../../../src/serving/http/jwt-access-token.js';
import type { OAuthResourceOptions } from '../../../src/serving/http/oauth-resource.js';
import type { AuthorizationRequest, OAuthOptions } from '../../../src/client/auth/options.js';
import type { AuthInfo } from '../../../src/engine/transport.js';
import { startMockAs, type MockAs } from '../../fixtures/oauth/authorization-server.js';
import { decodeProof } from '../../fixtures/oauth/dpop.js';
import { startIssuer, type TestIssuer } from '../../fixtures/oauth/jwt-issuer.js';

/** One MCP request as the client sent it and the server answered. */
interface Seen {
  method: string;
  path: string;
  scheme?: string;
  proof?: string;
  status: number;
  challenge: string | null;
  nonce: string | null;
}

interface Fixture {
  as: MockAs;
  keys: TestIssuer;
  running: RunningServer;
  /** ctx.authInfo of every tool call. */
  callers: AuthInfo[];
  /** Requests to the MCP server (not to the authorization server). */
  seen: Seen[];
  /** A fetch for the client that records into `seen`. */
  fetch: typeof fetch;
  close(): Promise<void>;
}

async function setup(dpop: OAuthResourceOptions['dpop'], legacySse = false): Promise<Fixture> {
  const keys = await startIssuer();
  // Tokens as a real authorization server issues them for DPoP: JWTs naming the key in cnf.jkt.
  const as: MockAs = await startMockAs({
    dpop: {},
    scopesSupported: ['mcp:read'],
    mintToken: (t) =>
      keys.token({
        iss: as.issuer,
        sub: t.clientId,
        client_id: t.clientId,
        aud: t.resource,
        scope: t.scope,
        exp: Math.floor(t.expiresAt / 1000),
        ...(t.jkt ? { cnf: { jkt: t.jkt } } : {}),
      }),
  });
  const callers: AuthInfo[] = [];
  const mcp = new McpServer({ name: 'dpop-e2e', version: '1.0.0' });
  mcp.tool('whoami', (_a, ctx) => {
    callers.push(ctx.authInfo!);
    return ctx.authInfo?.principal ?? 'nobody';
  });
  const running = await serve(mcp, {
    port: 0,
    legacySse,
    oauth: {
      authorizationServers: [as.issuer],
      verifyToken: jwtAccessTokens({ issuer: as.issuer, jwksUri: keys.jwksUri }),
      scopesSupported: ['mcp:read'],
      requiredScopes: ['mcp:read'],
      dpop,
    },
  });
  const seen: Seen[] = [];
  const origin = new URL(running.url).origin;
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === origin) {
      const h = new Headers(init?.headers);
      seen.push({
        method: init?.method ?? 'GET',
        path: url.pathname,
        scheme: h.get('authorization')?.split(' ')[0],
        proof: h.get('dpop') ?? undefined,
        status: res.status,
        challenge: res.headers.get('www-authenticate'),
        nonce: res.headers.get('dpop-nonce'),
      });
    }
    return res;
  }) as typeof fetch;
  return {
    as,
    keys,
    running,
    callers,
    seen,
    fetch: recording,
    async close() {
      await running.close();
      await as.close();
      await keys.close();
    },
  };
}

/** The user "signs in": the mock AS answers /authorize with a redirect carrying the code. */
async function authorize(request: AuthorizationRequest): Promise<string> {
  const r = await fetch(request.url, { redirect: 'manual' });
  assert.equal(r.status, 302, `the authorization server refused: ${await r.text()}`);
  return r.headers.get('location')!;
}

const auth = (more: Partial<OAuthOptions> = {}): OAuthOptions => ({ authorize, redirectUri: 'http://127.0.0.1:9/callback', ...more });

const textOf = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

for (const era of ['modern', 'handshake'] as const) {
  test(`${era} era: a DPoP-bound JWT, a proof on every request, the server nonce fetched once`, async () => {
    const fx = await setup({ nonce: true });
    const { client } = await connectHttp(fx.running.url, { era }, { auth: auth(), fetch: fx.fetch });
    try {
      assert.equal(textOf(await client.callTool('whoami', {})), 'client-1');
      assert.equal(textOf(await client.callTool('whoami', {})), 'client-1');
      // The token the handler saw is bound to the key the client proved at the token endpoint.
      const issued = [...fx.as.tokens.values()];
      assert.equal(issued.length, 1);
      assert.ok(issued[0]!.jkt);
      assert.deepEqual(
        fx.callers.map((c) => c.confirmation),
        [{ jkt: issued[0]!.jkt }, { jkt: issued[0]!.jkt }],
      );
      assert.equal(fx.callers[0]!.token, issued[0]!.token);
      // First the plain challenge (no token yet), then the nonce handshake, then only successes.
      const tokened = fx.seen.filter((s) => s.scheme !== undefined);
      assert.equal(fx.seen[0]!.status, 401);
      assert.match(fx.seen[0]!.challenge!, /^Bearer scope="mcp:read", resource_metadata="[^"]+", DPoP algs="ES256 ES384 RS256 PS256 EdDSA", scope=/);
      assert.equal(tokened[0]!.status, 401);
      assert.match(tokened[0]!.challenge!, /DPoP error="use_dpop_nonce"/);
      assert.ok(tokened[0]!.nonce);
      assert.ok(tokened.slice(1).length >= 3);
      for (const s of tokened.slice(1)) {
        assert.equal(s.status < 300, true, `${s.method} ${s.path}: ${s.status} ${s.challenge}`);
        assert.equal(s.scheme, 'DPoP');
        const { claims } = decodeProof(s.proof!);
        assert.equal(claims.nonce, tokened[0]!.nonce);
        assert.equal(claims.htm, s.method);
        assert.equal(claims.htu, fx.running.url);
      }
      // Every proof was a new one.
      const jtis = tokened.map((s) => decodeProof(s.proof!).claims.jti);
      assert.equal(new Set(jtis).size, jtis.length);
    } finally {
      await client.close();
      await fx.close();
    }
  });
}

test('DPoP required, over the deprecated HTTP+SSE transport: the stream and every /messages POST carry proofs', async () => {
  const fx = await setup({ required: true }, true);
  const sse = fx.running.url.replace(/\/mcp$/, '/sse');
  const prm = (await (await fetch(`${new URL(sse).origin}/.well-known/oauth-protected-resource/sse`)).json()) as Record<string, unknown>;
  assert.equal(prm.dpop_bound_access_tokens_required, true);
  const { client, transport } = await connectHttp(sse, { era: 'handshake' }, { auth: auth(), fetch: fx.fetch });
  try {
    assert.equal(transport, 'sse');
    assert.equal(textOf(await client.callTool('whoami', {})), 'client-1');
    assert.ok(fx.callers[0]!.confirmation?.jkt);
    const posts = fx.seen.filter((s) => s.path === '/messages');
    assert.ok(posts.length >= 2);
    for (const s of posts) {
      assert.equal(s.status, 202);
      // htu is the URL without its query (the session id).
      assert.equal(decodeProof(s.proof!).claims.htu, `${new URL(sse).origin}/messages`);
    }
    const stream = fx.seen.find((s) => s.path === '/sse' && s.status === 200)!;
    assert.equal(decodeProof(stream.proof!).claims.htm, 'GET');
    // Without a token only the DPoP challenge is offered: Bearer is not accepted here.
    assert.match(
      fx.seen[0]!.challenge!,
      /^DPoP algs="ES256 ES384 RS256 PS256 EdDSA", scope="mcp:read", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/sse"$/,
    );
  } finally {
    await client.close();
    await fx.close();
  }
});

test('Bearer and DPoP clients side by side; a Bearer-only client cannot get in where DPoP is required', async () => {
  const fx = await setup(undefined);
  try {
    const bearer = await connectHttp(fx.running.url, { era: 'handshake' }, { auth: auth({ dpop: false }), fetch: fx.fetch });
    const dpop = await connectHttp(fx.running.url, { era: 'handshake' }, { auth: auth(), fetch: fx.fetch });
    try {
      assert.equal(textOf(await bearer.client.callTool('whoami', {})), 'client-1');
      assert.equal(textOf(await dpop.client.callTool('whoami', {})), 'client-2');
      assert.equal(fx.callers[0]!.confirmation, undefined);
      assert.ok(fx.callers[1]!.confirmation?.jkt);
      assert.ok(fx.seen.some((s) => s.scheme === 'Bearer' && s.status === 200));
      assert.ok(fx.seen.some((s) => s.scheme === 'DPoP' && s.status === 200));
    } finally {
      await bearer.client.close();
      await dpop.client.close();
    }
  } finally {
    await fx.close();
  }
  const strict = await setup({ required: true });
  try {
    await assert.rejects(connectHttp(strict.running.url, { era: 'handshake' }, { auth: auth({ dpop: false, maxAuthorizations: 1 }), fetch: strict.fetch }));
    const last = strict.seen.at(-1)!;
    assert.equal(last.status, 401);
    assert.equal(last.scheme, 'Bearer');
    assert.match(last.challenge!, /^DPoP error="invalid_token", error_description="DPoP-bound access tokens only", algs=/);
    assert.equal(strict.callers.length, 0);
  } finally {
    await strict.close();
  }
});
