// The documented 30 s clock tolerance on `exp`, end to end: the authorization server issues a JWT
// access token, an MCP server verifies it with jwtAccessTokens behind its OAuth guard, all on one
// ManualClock. 29 s past `exp` the call goes through, 31 s past it is 401; with
// clockToleranceSec 0 (on the verifier and the guard) a second past `exp` is already too late.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jwtAccessTokens } from '../../../src/serving/http/jwt-access-token.js';
import { serve } from '../../../src/serving/node.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { ManualClock } from '../../support/index.js';
import { code, payload, pkce, REDIRECT, startAs, token } from './helpers.js';

const PUBLIC = { client_id: 'app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' as const };

async function protectedServer(issuer: string, clock: ManualClock, toleranceSec: number | undefined) {
  const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
  mcp.tool('whoami', (_args, ctx) => `you are ${ctx.authInfo?.principal}`);
  const tolerance = toleranceSec === undefined ? {} : { clockToleranceSec: toleranceSec };
  return serve(mcp, {
    port: 0,
    clock,
    oauth: { authorizationServers: [issuer], verifyToken: jwtAccessTokens({ issuer, clock, onError: (e) => assert.fail(e), ...tolerance }), ...tolerance },
  });
}

/** An initialize request with the token: the HTTP status (200 admitted, 401 refused). */
async function call(url: string, accessToken: string): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'leeway', version: '0' } },
    }),
  });
  await r.text();
  return r.status;
}

test('the AS’s JWT on an MCP server: 29 s past exp accepted, 31 s past refused; tolerance 0 refuses 1 s past', async () => {
  // An hour behind the real time: every check must read this clock, none the system's.
  const clock = new ManualClock(Date.now() - 3_600_000);
  const as = await startAs({ clients: [PUBLIC], clock, accessTokenTtlSec: 60 });
  const lenient = await protectedServer(as.issuer, clock, undefined);
  const strict = await protectedServer(as.issuer, clock, 0);
  try {
    const p = pkce();
    const c = await code(as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256', resource: [lenient.url, strict.url] });
    const t = await token(as.issuer, { grant_type: 'authorization_code', code: c, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: 'app' });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    const at = t.body.access_token!;
    const exp = payload(at).exp as number;
    assert.equal(await call(lenient.url, at), 200);
    assert.equal(await call(strict.url, at), 200);

    clock.set(exp * 1000 - 1000);
    assert.equal(await call(strict.url, at), 200, 'a second before exp');
    clock.set(exp * 1000 + 1000);
    assert.equal(await call(strict.url, at), 401, 'no tolerance: a second past exp is expired');
    assert.equal(await call(lenient.url, at), 200, 'within the default 30 s');
    clock.set(exp * 1000 + 29_000);
    assert.equal(await call(lenient.url, at), 200, '29 s past exp');
    clock.set(exp * 1000 + 31_000);
    assert.equal(await call(lenient.url, at), 401, '31 s past exp');
  } finally {
    await lenient.close();
    await strict.close();
    await as.close();
  }
});
