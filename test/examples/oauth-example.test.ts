// examples/oauth-server.ts as a child process, against a stand-in authorization server that
// publishes metadata and a JWKS: raw requests (no client OAuth involved) show the challenge,
// a token accepted, a scope step-up demanded and a forged token refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeKey, signJwt, startIssuer } from '../fixtures/oauth/jwt-issuer.js';
import { runExample } from './run-example.js';

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

test('examples/oauth-server.ts accepts tokens from its issuer, challenges everything else', async () => {
  const as = await startIssuer();
  const example = await runExample('examples/oauth-server.ts', [], { ...process.env, MCP_ISSUER: as.issuer, PORT: '0', MCP_RESOURCE: '' });
  try {
    const url = example.url;
    const origin = new URL(url).origin;
    let id = 1;
    const rpc = (method: string, params: Record<string, unknown>, headers: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }) });
    const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } };

    const missing = await rpc('initialize', init, {});
    assert.equal(missing.status, 401);
    await missing.text();
    const common = `scope="notes:read", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
    assert.equal(missing.headers.get('www-authenticate'), `Bearer ${common}, DPoP algs="ES256 ES384 RS256 PS256 EdDSA", ${common}`);
    const prm = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    assert.deepEqual(prm.authorization_servers, [as.issuer]);

    const reader = { authorization: `Bearer ${as.token({ aud: url, sub: 'ada', scope: 'notes:read' })}` };
    const opened = await rpc('initialize', init, reader);
    assert.equal(opened.status, 200);
    await opened.text();
    const session = { ...reader, 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const listed = await rpc('tools/call', { name: 'list_notes', arguments: {} }, session);
    assert.equal(listed.status, 200);
    assert.match(await listed.text(), /no notes yet/);

    const add = { name: 'add_note', arguments: { text: 'hello' } };
    const refused = await rpc('tools/call', add, session);
    assert.equal(refused.status, 403);
    await refused.text();
    assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope", scope="notes:read notes:write"/);
    const writer = { ...session, authorization: `Bearer ${as.token({ aud: url, sub: 'ada', scope: 'notes:read notes:write' })}` };
    const added = await rpc('tools/call', add, writer);
    assert.match(await added.text(), /noted for ada/);

    const now = Math.floor(Date.now() / 1000);
    const forged = signJwt(makeKey('RS256', 'rsa-1'), { iss: as.issuer, sub: 'ada', aud: url, scope: 'notes:read', exp: now + 60 });
    const bad = await rpc('tools/call', { name: 'list_notes', arguments: {} }, { ...session, authorization: `Bearer ${forged}` });
    assert.equal(bad.status, 401);
    await bad.text();
    assert.match(bad.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
    assert.equal(as.hits.jwks, 1);
  } finally {
    await example.stop();
    await as.close();
  }
});
