// The built-in JWT access token verifier: tokens signed with node:crypto (not the Web Crypto
// code under test) by a stand-in authorization server that publishes its metadata and JWKS
// over node:http and counts fetches. Signatures and algorithms, the claim checks, the mapping
// to AuthInfo, discovery, key rotation without a refetch storm, outages, and serve() end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jwtAccessTokens, type JwtAccessTokenOptions } from '../../../src/serving/http/jwt-access-token.js';
import { hs256, makeKey, signJwt, startIssuer, unsigned, type TestIssuer } from '../../fixtures/oauth/jwt-issuer.js';
import { jsonError, open, post, req, start } from './helpers.js';
import { ManualClock } from '../../support/index.js';

const RESOURCE = 'http://mcp.example.test/mcp';
const now = () => Math.floor(Date.now() / 1000);

async function withIssuer(fn: (as: TestIssuer) => Promise<void>, options: Parameters<typeof startIssuer>[0] = {}): Promise<void> {
  const as = await startIssuer(options);
  try {
    await fn(as);
  } finally {
    await as.close();
  }
}

function verifier(as: TestIssuer, extra: Partial<JwtAccessTokenOptions> = {}) {
  const errors: Error[] = [];
  const verify = jwtAccessTokens({ issuer: as.issuer, onError: (e) => errors.push(e), ...extra });
  // An explicit undefined resource is kept: it is what standalone callers without one pass.
  return { errors, check: (token: string, ...resource: [string?]) => verify(token, undefined, resource.length ? resource[0] : RESOURCE) };
}

test('a valid RS256 token: discovered keys, and the claims mapped to AuthInfo', () =>
  withIssuer(async (as) => {
    const { check, errors } = verifier(as);
    const exp = now() + 300;
    const token = as.token({ exp, scope: 'mcp:read mcp:write', jti: 'j1' });
    const info = await check(token);
    assert.ok(info);
    assert.equal(info.principal, 'alice');
    assert.equal(info.clientId, 'client-1');
    assert.deepEqual(info.scopes, ['mcp:read', 'mcp:write']);
    assert.equal(info.expiresAt, exp);
    assert.equal(info.audience, RESOURCE);
    assert.equal(info.token, token);
    assert.equal((info.extra?.claims as { jti: string } | undefined)?.jti, 'j1');
    // jwks_uri came from the RFC 8414 metadata; both were fetched once and kept.
    assert.deepEqual(as.hits.paths, ['/.well-known/oauth-authorization-server', '/jwks']);
    for (let i = 0; i < 5; i++) assert.ok(await check(as.token()));
    assert.equal(as.hits.jwks, 1);
    assert.equal(as.hits.metadata, 1);
    assert.deepEqual(errors, []);
  }));

test('ES256, ES384, PS256 and EdDSA tokens verify; each only with its own algorithm allowed', () => {
  const keys = [makeKey('ES256', 'ec'), makeKey('ES384', 'ec384'), makeKey('PS256', 'ps'), makeKey('EdDSA', 'ed')];
  return withIssuer(
    async (as) => {
      const { check } = verifier(as);
      for (const key of keys) assert.equal((await check(as.token({}, key)))?.principal, 'alice', key.alg);
      const onlyRs = verifier(as, { algorithms: ['RS256'] });
      for (const key of keys) assert.equal(await onlyRs.check(as.token({}, key)), undefined, key.alg);
      // A key published for one algorithm does not verify another (PS256 key, RS256 header).
      const ps = keys[2]!;
      assert.equal(
        await verifier(as, { algorithms: ['RS256', 'PS256'] }).check(
          signJwt({ ...ps, alg: 'RS256' }, { iss: as.issuer, aud: RESOURCE, sub: 'x', exp: now() + 60 }),
        ),
        undefined,
      );
    },
    { keys },
  );
});

test('claims: issuer, audience, exp, nbf, iat, with the clock tolerance', () =>
  withIssuer(async (as) => {
    const { check } = verifier(as);
    const t = now();
    const refused: Record<string, Record<string, unknown>> = {
      'wrong issuer': { iss: 'https://evil.example.com' },
      'issuer with a trailing slash': { iss: `${as.issuer}/` },
      'wrong audience': { aud: 'http://other.example.test/mcp' },
      'audience list without us': { aud: ['http://a.example.test', 'http://b.example.test'] },
      'no audience': { aud: undefined },
      'no exp': { exp: undefined },
      'exp as a string': { exp: String(t + 300) },
      expired: { exp: t - 120 },
      'nbf in the future': { nbf: t + 120 },
      'iat in the future': { iat: t + 120 },
      'no sub nor client_id': { sub: undefined, client_id: undefined },
    };
    for (const [why, claims] of Object.entries(refused)) assert.equal(await check(as.token(claims)), undefined, why);
    const accepted: Record<string, Record<string, unknown>> = {
      'expired within the tolerance': { exp: t - 10 },
      'nbf within the tolerance': { nbf: t + 10 },
      'audience among several': { aud: ['http://other.example.test', RESOURCE] },
      'audience with a trailing slash': { aud: `${RESOURCE}/` },
      'audience in another case': { aud: 'HTTP://MCP.Example.Test/mcp' },
      'client only (client credentials)': { sub: undefined },
    };
    for (const [why, claims] of Object.entries(accepted)) assert.ok(await check(as.token(claims)), why);
    assert.equal((await check(as.token({ sub: undefined })))?.principal, 'client-1');
    assert.equal((await check(as.token({ client_id: undefined, azp: 'web-app' })))?.clientId, 'web-app');
    const tight = verifier(as, { clockToleranceSec: 0 });
    assert.equal(await tight.check(as.token({ exp: t - 10 })), undefined);
    assert.equal(await tight.check(as.token({ nbf: t + 10 })), undefined);
  }));

test('forged tokens: alg none, HS256 (also keyed with the public key), tampering, foreign typ, crit, garbage', () =>
  withIssuer(async (as) => {
    const { check } = verifier(as);
    const claims = { iss: as.issuer, sub: 'mallory', aud: RESOURCE, exp: now() + 300 };
    const good = as.token();
    assert.ok(await check(good));
    const rsaPem = as.keys[0]!.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const [h, p, s] = good.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: 'admin' })).toString('base64url');
    const flipped = s.slice(0, 10) + (s[10] === 'A' ? 'B' : 'A') + s.slice(11);
    const bad: Record<string, string> = {
      'alg none': unsigned(claims),
      'alg none with a kid': unsigned(claims, { kid: 'rsa-1' }),
      'alg NONE': unsigned(claims, { alg: 'NONE' }),
      HS256: hs256('secret', claims),
      'HS256 keyed with the RSA public JWK n': hs256(String(as.keys[0]!.jwk.n), claims, { kid: 'rsa-1' }),
      'HS256 keyed with a PEM': hs256(rsaPem, claims, { kid: 'rsa-1' }),
      'payload swapped': `${h}.${forged}.${s}`,
      'signature flipped': `${h}.${p}.${flipped}`,
      'signature cut': `${h}.${p}.${s.slice(0, -4)}`,
      'no signature': `${h}.${p}.`,
      'ES256 signed, RS256 claimed': signJwt({ ...as.keys[1]!, alg: 'RS256', kid: 'ec-1' }, claims),
      'typ id_token+jwt': as.token({}, undefined, { typ: 'id_token+jwt' }),
      'typ dpop+jwt': as.token({}, undefined, { typ: 'dpop+jwt' }),
      'crit header': as.token({}, undefined, { crit: ['exp'] }),
      'bound to an mTLS certificate (cnf x5t#S256)': as.token({ cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } }),
      'bound to a DPoP key and a certificate': as.token({
        cnf: { jkt: 'x4x0TGnZ6xu2ejAr9z2v3-GzqjB5DPAGnV4kRgMaB0A', 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' },
      }),
      'cnf.jkt not a thumbprint': as.token({ cnf: { jkt: 'short' } }),
      'cnf.jkt not a string': as.token({ cnf: { jkt: 7 } }),
      'cnf not an object': as.token({ cnf: 'x4x0TGnZ6xu2ejAr9z2v3-GzqjB5DPAGnV4kRgMaB0A' }),
      'kid not a string': as.token({}, undefined, { kid: 7 }),
      'two parts': `${h}.${p}`,
      'five parts (JWE)': `${h}.${p}.${s}.${s}.${s}`,
      'not base64url': `${h}.${p}!.${s}`,
      'payload not an object': `${h}.${Buffer.from('[1]').toString('base64url')}.${s}`,
      'payload not JSON': `${h}.${Buffer.from('{').toString('base64url')}.${s}`,
      empty: '',
    };
    for (const [why, token] of Object.entries(bad)) assert.equal(await check(token), undefined, why);
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT', 'JWT', undefined]) assert.ok(await check(as.token({}, undefined, { typ })), String(typ));
  }));

test('strict (RFC 9068): typ at+jwt and the profile claims required; requiredClaims', () =>
  withIssuer(async (as) => {
    const { check } = verifier(as, { strict: true });
    const full = { jti: 'id-1' };
    assert.ok(await check(as.token(full)));
    assert.ok(await check(as.token(full, undefined, { typ: 'application/at+jwt' })));
    assert.equal(await check(as.token(full, undefined, { typ: 'JWT' })), undefined);
    assert.equal(await check(as.token(full, undefined, { typ: undefined })), undefined);
    for (const missing of ['jti', 'client_id', 'sub', 'iat']) assert.equal(await check(as.token({ ...full, [missing]: undefined })), undefined, missing);
    const tenant = verifier(as, { requiredClaims: ['tid'] });
    assert.equal(await tenant.check(as.token()), undefined);
    assert.equal(await tenant.check(as.token({ tid: null })), undefined);
    assert.ok(await tenant.check(as.token({ tid: 't1' })));
  }));

test("scopes from scope (space-separated) or scp (array, or Entra ID's string); scope wins", () =>
  withIssuer(async (as) => {
    const { check } = verifier(as);
    const scopes = async (claims: Record<string, unknown>) => (await check(as.token(claims)))?.scopes;
    assert.deepEqual(await scopes({ scope: 'a  b c' }), ['a', 'b', 'c']);
    assert.deepEqual(await scopes({ scp: ['a', 'b', 7] }), ['a', 'b']);
    assert.deepEqual(await scopes({ scp: 'x y' }), ['x', 'y']);
    assert.deepEqual(await scopes({ scope: 'a', scp: ['b'] }), ['a']);
    assert.deepEqual(await scopes({}), []);
  }));

test('audience option, the missing resource, and toAuthInfo', () =>
  withIssuer(async (as) => {
    const api = verifier(as, { audience: ['api://mcp', 'https://mcp.example.com'] });
    const info = await api.check(as.token({ aud: 'api://mcp' }), 'http://elsewhere.test/mcp');
    assert.ok(info);
    // The audience was checked here: none is handed to the guard to compare with the resource again.
    assert.equal(info.audience, undefined);
    assert.deepEqual((info.extra?.claims as { aud: string } | undefined)?.aud, 'api://mcp');
    assert.ok(await api.check(as.token({ aud: 'https://mcp.example.com/' }), undefined));
    assert.equal(await api.check(as.token({ aud: RESOURCE }), RESOURCE), undefined);
    const { check } = verifier(as);
    await assert.rejects(check(as.token(), undefined), /no audience to check/);
    const custom = verifier(as, {
      toAuthInfo: (claims, mapped) => (claims.tid === 'blocked' ? undefined : mapped && { ...mapped, principal: `${String(claims.tid)}/${mapped.principal}` }),
    });
    assert.equal((await custom.check(as.token({ tid: 't1' })))?.principal, 't1/alice');
    assert.equal(await custom.check(as.token({ tid: 'blocked' })), undefined);
  }));

test('keys without kid: the only suitable key is used, an ambiguous choice refused; small RSA keys refused', async () => {
  const rsa = makeKey('RS256');
  const ec = makeKey('ES256');
  await withIssuer(
    async (as) => {
      const { check } = verifier(as);
      assert.ok(await check(as.token({}, rsa)));
      assert.ok(await check(as.token({}, ec)));
    },
    { keys: [rsa, ec] },
  );
  await withIssuer(async (as) => assert.equal(await verifier(as).check(as.token({}, rsa)), undefined), { keys: [rsa, makeKey('RS256')] });
  await withIssuer(async (as) => assert.equal(await verifier(as).check(as.token()), undefined), { keys: [makeKey('RS256', 'small', 1024)] });
});

test('key rotation: an unknown kid refetches the JWKS once, never more often than the cooldown', () =>
  withIssuer(async (as) => {
    const clock = new ManualClock();
    const { check, errors } = verifier(as, { jwksCooldownSec: 0.3, clock });
    const a = as.keys[0]!;
    const b = makeKey('RS256', 'rsa-2');
    assert.ok(await check(as.token({}, a)));
    assert.equal(as.hits.jwks, 1);
    as.keys = [b]; // the AS rotates
    clock.advance(300);
    assert.ok(await check(as.token({}, b)), 'the new key is fetched');
    assert.equal(as.hits.jwks, 2);
    assert.ok(await check(as.token({}, b)));
    // The old key is gone, and within the cooldown its tokens cost no fetch.
    assert.equal(await check(as.token({}, a)), undefined);
    assert.equal(as.hits.jwks, 2);
    // A storm of made-up kids: within the cooldown nothing, after it one coalesced fetch.
    const forged = (i: number) => as.token({}, { ...b, kid: `made-up-${i}` });
    for (let i = 0; i < 20; i++) assert.equal(await check(forged(i)), undefined);
    clock.advance(299);
    for (let i = 0; i < 20; i++) assert.equal(await check(forged(i)), undefined);
    assert.equal(as.hits.jwks, 2, 'still within the cooldown at 299 ms');
    clock.advance(1);
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => check(forged(i))));
    assert.ok(all.every((r) => r === undefined));
    assert.equal(as.hits.jwks, 3);
    assert.equal(as.hits.metadata, 1);
    assert.deepEqual(errors, []);
  }));

test('defaults: concurrent first requests share one fetch; unknown kids right after it fetch nothing', () =>
  withIssuer(async (as) => {
    const { check } = verifier(as);
    const results = await Promise.all(Array.from({ length: 20 }, () => check(as.token())));
    assert.ok(results.every((r) => r?.principal === 'alice'));
    assert.equal(as.hits.metadata, 1);
    assert.equal(as.hits.jwks, 1);
    for (let i = 0; i < 100; i++) await check(as.token({}, { ...as.keys[0]!, kid: `k${i}` }));
    assert.equal(as.hits.jwks, 1);
  }));

test('keys older than jwksMaxAgeSec are fetched again', () =>
  withIssuer(async (as) => {
    const clock = new ManualClock();
    const { check } = verifier(as, { jwksMaxAgeSec: 0.2, jwksCooldownSec: 0, clock });
    assert.ok(await check(as.token()));
    clock.advance(199);
    assert.ok(await check(as.token()));
    assert.equal(as.hits.jwks, 1);
    clock.advance(1);
    assert.ok(await check(as.token()));
    assert.equal(as.hits.jwks, 2);
  }));

test('discovery: OIDC fallback, issuers with a path, jwksUri given, metadata for another issuer', async () => {
  await withIssuer(
    async (as) => {
      assert.ok(await verifier(as).check(as.token()));
      assert.deepEqual(as.hits.paths, ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/jwks']);
    },
    { metadata: 'oidc' },
  );
  await withIssuer(
    async (as) => {
      assert.ok(await verifier(as).check(as.token()));
      assert.deepEqual(as.hits.paths, ['/.well-known/oauth-authorization-server/tenant-1', '/jwks']);
    },
    { path: '/tenant-1' },
  );
  await withIssuer(
    async (as) => {
      assert.ok(await verifier(as).check(as.token()));
      assert.deepEqual(as.hits.paths, [
        '/.well-known/oauth-authorization-server/t2',
        '/.well-known/openid-configuration/t2',
        '/t2/.well-known/openid-configuration',
        '/jwks',
      ]);
    },
    { path: '/t2', metadata: 'oidc' },
  );
  await withIssuer(
    async (as) => {
      const seen: string[] = [];
      const { check, errors } = verifier(as, { jwksUri: as.jwksUri, fetch: (url, init) => (seen.push(String(url)), fetch(url, init)) });
      assert.ok(await check(as.token()));
      assert.deepEqual(as.hits.paths, ['/jwks']);
      assert.deepEqual(seen, [as.jwksUri]);
      assert.deepEqual(errors, []);
    },
    { metadata: 'none' },
  );
  await withIssuer(
    async (as) => {
      const { check, errors } = verifier(as);
      assert.equal(await check(as.token()), undefined);
      assert.equal(errors.length, 1);
      assert.match(errors[0]!.message, /names issuer "https:\/\/evil\.example\.com"/);
      assert.equal(as.hits.jwks, 0);
    },
    { metadataIssuer: 'https://evil.example.com' },
  );
  await withIssuer(
    async (as) => {
      const { check, errors } = verifier(as);
      assert.equal(await check(as.token()), undefined);
      assert.match(errors[0]!.message, /no authorization server metadata at .*\(404\).*set jwksUri/);
    },
    { metadata: 'none' },
  );
});

test('an unreachable JWKS is reported once per outage; known keys outlive a failed refresh', async () => {
  await withIssuer(async (as) => {
    const { check, errors } = verifier(as, { jwksCooldownSec: 0 });
    as.jwksStatus = 503;
    for (let i = 0; i < 5; i++) assert.equal(await check(as.token()), undefined);
    assert.equal(as.hits.jwks, 5);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!.message, /cannot load the signing keys of http:\/\/127\.0\.0\.1:\d+: GET http:\/\/127\.0\.0\.1:\d+\/jwks answered 503/);
    as.jwksStatus = undefined;
    assert.ok(await check(as.token()));
    as.jwksStatus = 500;
    await check(as.token({}, { ...as.keys[0]!, kid: 'unknown' }));
    assert.equal(errors.length, 2, 'a new outage is a new report');
  });
  await withIssuer(async (as) => {
    const { check, errors } = verifier(as, { jwksMaxAgeSec: 0, jwksCooldownSec: 0 });
    assert.ok(await check(as.token()));
    as.jwksStatus = 503;
    assert.ok(await check(as.token()), 'the keys already fetched still verify');
    assert.equal(as.hits.jwks, 2);
    assert.equal(errors.length, 1);
  });
  // Nothing listening at all; and the cooldown spares the dead host a fetch per request.
  const dead = await startIssuer();
  const issuer = dead.issuer;
  const token = dead.token();
  await dead.close();
  const errors: Error[] = [];
  const check = jwtAccessTokens({ issuer, onError: (e) => errors.push(e) });
  for (let i = 0; i < 3; i++) assert.equal(await check(token, undefined, RESOURCE), undefined);
  assert.equal(errors.length, 1);
  assert.match(
    errors[0]!.message,
    /cannot load the signing keys of .*: GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server failed: ECONNREFUSED/,
  );
  // A reporter that throws changes nothing for the request.
  const throwing = jwtAccessTokens({
    issuer,
    onError: () => {
      throw new Error('reporter broke');
    },
  });
  assert.equal(await throwing(token, undefined, RESOURCE), undefined);
});

test('a DPoP-bound token (cnf.jkt) comes out with its confirmation, which toAuthInfo cannot drop', () =>
  withIssuer(async (as) => {
    const jkt = 'x4x0TGnZ6xu2ejAr9z2v3-GzqjB5DPAGnV4kRgMaB0A';
    const info = await verifier(as).check(as.token({ cnf: { jkt } }));
    assert.deepEqual(info?.confirmation, { jkt });
    assert.equal((await verifier(as).check(as.token()))?.confirmation, undefined);
    // A mapping of its own that forgets (or rewrites) the binding would make a bearer token of it.
    const mapped = verifier(as, { toAuthInfo: (claims) => ({ principal: String(claims.sub), confirmation: { jkt: 'other' } }) });
    assert.deepEqual((await mapped.check(as.token({ cnf: { jkt } })))?.confirmation, { jkt });
    const forgetful = verifier(as, { toAuthInfo: (claims) => ({ principal: String(claims.sub) }) });
    assert.deepEqual((await forgetful.check(as.token({ cnf: { jkt } })))?.confirmation, { jkt });
  }));

test('options are checked when the verifier is built', () => {
  const build = (o: unknown) => () => jwtAccessTokens(o as JwtAccessTokenOptions);
  assert.throws(build(undefined), /options must be an object/);
  assert.throws(build({}), /issuer must be an absolute https \(or http\) URL/);
  assert.throws(build({ issuer: 'auth.example.com' }), /issuer must be/);
  assert.throws(build({ issuer: 'https://as.example.com', jwksUri: 'ftp://x' }), /jwksUri must be/);
  assert.throws(build({ issuer: 'https://as.example.com', algorithms: [] }), /at least one algorithm/);
  assert.throws(build({ issuer: 'https://as.example.com', algorithms: ['HS256'] }), /"HS256" is never accepted/);
  assert.throws(build({ issuer: 'https://as.example.com', algorithms: ['none'] }), /"none" is never accepted/);
  assert.throws(build({ issuer: 'https://as.example.com', algorithms: ['RS1'] }), /unsupported algorithm "RS1"/);
  assert.throws(build({ issuer: 'https://as.example.com', audience: [] }), /audience must be/);
  assert.throws(build({ issuer: 'https://as.example.com', clockToleranceSec: -1 }), /clockToleranceSec/);
  assert.throws(build({ issuer: 'https://as.example.com', requiredClaims: 'jti' }), /requiredClaims must be an array/);
});

test('end to end through serve(): 200 for a good token, 401 invalid_token for a bad one, scopes enforced', () =>
  withIssuer(async (as) => {
    const s = await start({
      oauth: {
        authorizationServers: [as.issuer],
        verifyToken: jwtAccessTokens({ issuer: as.issuer }),
        scopesFor: (method, name) => (method === 'tools/call' && name === 'counter' ? ['mcp:write'] : undefined),
      },
    });
    const challenge = `resource_metadata="${s.base}/.well-known/oauth-protected-resource/mcp"`;
    const dpop = `DPoP algs="ES256 ES384 RS256 PS256 EdDSA", ${challenge}`;
    try {
      const token = as.token({ aud: s.url, scope: 'mcp:read' });
      const { headers } = await open(s.url, undefined, { authorization: `Bearer ${token}` });
      const list = await post(s.url, req('tools/list'), headers);
      assert.equal(list.status, 200);
      const names = ((await list.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
      assert.ok(names.includes('echo'));
      const noScope = await post(s.url, req('tools/call', { name: 'counter', arguments: {} }), headers);
      await jsonError(noScope, 403);
      assert.match(noScope.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope", scope="mcp:write"/);
      const bads = {
        tampered: token.slice(0, -3) + (token.endsWith('AAA') ? 'BBB' : 'AAA'),
        'other audience': as.token({ aud: 'http://other.example.test/mcp' }),
        'other issuer key': signJwt(makeKey('RS256', 'rsa-1'), { iss: as.issuer, sub: 'x', aud: s.url, exp: now() + 60 }),
        expired: as.token({ aud: s.url, exp: now() - 3600 }),
      };
      for (const [why, bad] of Object.entries(bads)) {
        const r = await post(s.url, req('tools/list'), { ...headers, authorization: `Bearer ${bad}` });
        await jsonError(r, 401);
        assert.equal(
          r.headers.get('www-authenticate'),
          `Bearer error="invalid_token", error_description="the access token is invalid", ${challenge}, ${dpop}`,
          why,
        );
      }
      const none = await post(s.url, req('tools/list'), {
        'mcp-session-id': headers['mcp-session-id']!,
        'mcp-protocol-version': headers['mcp-protocol-version']!,
      });
      await jsonError(none, 401);
      assert.equal(none.headers.get('www-authenticate'), `Bearer ${challenge}, ${dpop}`);
      // The writer steps up and calls the tool; the handler sees who called.
      const writer = as.token({ aud: s.url, scope: 'mcp:read mcp:write' });
      const ok = await post(s.url, req('tools/call', { name: 'counter', arguments: {} }), { ...headers, authorization: `Bearer ${writer}` });
      assert.equal(ok.status, 200);
      await ok.text();
      assert.equal(s.counter.n, 1);
    } finally {
      await s.running.close();
    }
  }));
