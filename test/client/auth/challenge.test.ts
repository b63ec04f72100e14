// WWW-Authenticate parsing and the small pure helpers of the OAuth client: scope sets, canonical
// resource URIs, well-known URL orders, PKCE and Basic credentials.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parseAuthChallenge, parseBearerChallenge } from '../../../src/client/auth/challenge.js';
import { basicCredentials, pkcePair } from '../../../src/client/auth/encoding.js';
import { coversScopes, unionScopes } from '../../../src/client/auth/flow.js';
import { asMetadataCandidates, canonicalResource, prmCandidates, resourceCovers } from '../../../src/client/auth/metadata.js';

test('parseBearerChallenge: a plain Bearer challenge with resource_metadata and scope', () => {
  const c = parseBearerChallenge('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write"');
  assert.deepEqual(c, {
    scheme: 'Bearer',
    resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    scope: 'files:read files:write',
    error: undefined,
    errorDescription: undefined,
  });
});

test('parseBearerChallenge: the Bearer challenge among other schemes, in any position', () => {
  const header = 'Basic realm="simple", Bearer realm="api", error="insufficient_scope", scope="a b", Negotiate';
  const c = parseBearerChallenge(header);
  assert.equal(c?.error, 'insufficient_scope');
  assert.equal(c?.scope, 'a b');
  // The parameters of the other challenges do not leak into the Bearer one.
  const d = parseBearerChallenge('Newauth realm="apps", type=1, title="Login to \\"apps\\"", scope="not-bearer", Bearer error=invalid_token');
  assert.equal(d?.error, 'invalid_token');
  assert.equal(d?.scope, undefined);
  const e = parseBearerChallenge('Bearer scope="mine", Basic realm="x", scope="theirs"');
  assert.equal(e?.scope, 'mine');
});

test('parseBearerChallenge: quoted strings with escapes, commas and equals signs inside', () => {
  const c = parseBearerChallenge('Bearer error_description="the \\"token\\" expired, a=b", scope="x", error="invalid_token"');
  assert.equal(c?.errorDescription, 'the "token" expired, a=b');
  assert.equal(c?.scope, 'x');
  assert.equal(c?.error, 'invalid_token');
  // A backslash escapes any character; an escaped backslash stays one.
  assert.equal(parseBearerChallenge('Bearer scope="a\\\\b\\c"')?.scope, 'a\\bc');
});

test('parseBearerChallenge: token values, spaces around "=", upper-case names, token68 schemes before it', () => {
  assert.equal(parseBearerChallenge('bearer ERROR = insufficient_scope ,SCOPE= "s1"')?.error, 'insufficient_scope');
  assert.equal(parseBearerChallenge('bearer ERROR = insufficient_scope ,SCOPE= "s1"')?.scope, 's1');
  const c = parseBearerChallenge('Negotiate YIIB3wYGKwYBBQUCoIIB0zCCAc+gMDAu==, Bearer resource_metadata="https://x.example/prm"');
  assert.equal(c?.resourceMetadata, 'https://x.example/prm');
  assert.deepEqual(parseBearerChallenge('Bearer'), {
    scheme: 'Bearer',
    resourceMetadata: undefined,
    scope: undefined,
    error: undefined,
    errorDescription: undefined,
  });
});

test('parseBearerChallenge: no Bearer challenge at all', () => {
  assert.equal(parseBearerChallenge(undefined), undefined);
  assert.equal(parseBearerChallenge(null), undefined);
  assert.equal(parseBearerChallenge(''), undefined);
  assert.equal(parseBearerChallenge('Basic realm="x"'), undefined);
  assert.equal(parseBearerChallenge('Basic realm="Bearer scope=x"'), undefined, 'a Bearer inside a quoted string is no challenge');
  assert.equal(parseBearerChallenge('BearerX scope="x"'), undefined);
  // An unterminated quoted string does not throw.
  assert.equal(parseBearerChallenge('Bearer scope="abc')?.scope, 'abc');
});

test('parseAuthChallenge: a DPoP challenge (RFC 9449 §7.1) is read like a Bearer one', () => {
  const header =
    'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", resource_metadata="https://x.example/prm", algs="ES256 PS256"';
  assert.deepEqual(parseAuthChallenge(header), {
    scheme: 'DPoP',
    resourceMetadata: 'https://x.example/prm',
    scope: undefined,
    error: 'use_dpop_nonce',
    errorDescription: 'Resource server requires nonce in DPoP proof',
  });
  assert.equal(parseBearerChallenge(header), undefined, 'parseBearerChallenge stays Bearer only');
  assert.equal(parseAuthChallenge('dpop scope="a b"')?.scope, 'a b');
  assert.equal(parseAuthChallenge('Basic realm="x"'), undefined);
});

test('parseAuthChallenge: with both schemes, the one the request used wins', () => {
  const both = 'Bearer scope="s", error="invalid_token", DPoP algs="ES256", error="use_dpop_nonce"';
  assert.equal(parseAuthChallenge(both)?.error, 'invalid_token');
  assert.equal(parseAuthChallenge(both, 'Bearer')?.scheme, 'Bearer');
  assert.equal(parseAuthChallenge(both, 'DPoP')?.error, 'use_dpop_nonce');
  assert.equal(parseAuthChallenge('Bearer scope="s"', 'DPoP')?.scope, 's', 'the other scheme when the preferred one is absent');
});

test('unionScopes and coversScopes', () => {
  assert.equal(unionScopes('a b', 'b c', undefined, ' c  d '), 'a b c d');
  assert.equal(unionScopes(undefined, ''), undefined);
  assert.ok(coversScopes('a b c', 'c a'));
  assert.ok(coversScopes(undefined, undefined));
  assert.ok(!coversScopes('a', 'a b'));
  assert.ok(!coversScopes(undefined, 'a'));
});

test('canonicalResource: lower-case scheme and host, no fragment, no insignificant trailing slash', () => {
  assert.equal(canonicalResource('HTTPS://MCP.Example.COM/mcp#frag'), 'https://mcp.example.com/mcp');
  assert.equal(canonicalResource('https://mcp.example.com/'), 'https://mcp.example.com');
  assert.equal(canonicalResource('https://mcp.example.com'), 'https://mcp.example.com');
  assert.equal(canonicalResource('https://mcp.example.com/mcp/'), 'https://mcp.example.com/mcp/', 'a trailing slash in a path may be significant');
  assert.equal(canonicalResource('https://mcp.example.com:443/Path'), 'https://mcp.example.com/Path', 'the path keeps its case; default port dropped');
});

test('resourceCovers: same origin, and the server path or a parent of it', () => {
  assert.ok(resourceCovers('https://h.example/mcp', 'https://h.example/mcp'));
  assert.ok(resourceCovers('https://h.example', 'https://h.example/mcp'), 'a root PRM naming the origin');
  assert.ok(resourceCovers('https://h.example/', 'https://h.example/mcp'));
  assert.ok(resourceCovers('https://h.example/api', 'https://h.example/api/mcp'));
  assert.ok(!resourceCovers('https://evil.example.com/mcp', 'https://h.example/mcp'));
  assert.ok(!resourceCovers('http://h.example/mcp', 'https://h.example/mcp'));
  assert.ok(!resourceCovers('https://h.example/mc', 'https://h.example/mcp'));
  assert.ok(!resourceCovers('https://h.example/other', 'https://h.example/mcp'));
  assert.ok(!resourceCovers('not a url', 'https://h.example/mcp'));
});

test('prmCandidates and asMetadataCandidates: the orders of the MCP spec', () => {
  assert.deepEqual(prmCandidates('https://h.example/public/mcp'), [
    'https://h.example/.well-known/oauth-protected-resource/public/mcp',
    'https://h.example/.well-known/oauth-protected-resource',
  ]);
  assert.deepEqual(prmCandidates('https://h.example/'), ['https://h.example/.well-known/oauth-protected-resource']);
  assert.deepEqual(asMetadataCandidates('https://as.example/tenant1'), [
    'https://as.example/.well-known/oauth-authorization-server/tenant1',
    'https://as.example/.well-known/openid-configuration/tenant1',
    'https://as.example/tenant1/.well-known/openid-configuration',
  ]);
  assert.deepEqual(asMetadataCandidates('https://as.example/'), [
    'https://as.example/.well-known/oauth-authorization-server',
    'https://as.example/.well-known/openid-configuration',
  ]);
});

test('pkcePair: a 43-character verifier whose SHA-256 is the S256 challenge', async () => {
  const a = await pkcePair();
  const b = await pkcePair();
  assert.equal(a.method, 'S256');
  assert.match(a.verifier, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a.verifier, b.verifier);
  assert.equal(a.challenge, createHash('sha256').update(a.verifier).digest('base64url'));
});

test('basicCredentials: id and secret form-url-encoded before base64 (RFC 6749 §2.3.1)', () => {
  const header = basicCredentials('my client', 'p@ss:w/rd');
  assert.ok(header.startsWith('Basic '));
  assert.equal(Buffer.from(header.slice(6), 'base64').toString(), 'my+client:p%40ss%3Aw%2Frd');
});
