// The resource server's DPoP side over real sockets, with raw requests and proofs made with
// node:crypto: what is accepted, and every refusal with its exact WWW-Authenticate; the
// metadata; nonces (also on success, through both adapters); the URL a proof must name behind a
// Host header or a configured resource; DPoP required, and DPoP turned off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { toFetchHandler } from '../../../src/serving/fetch.js';
import { jwtAccessTokens } from '../../../src/serving/http/jwt-access-token.js';
import type { OAuthResourceOptions } from '../../../src/serving/http/oauth-resource.js';
import type { AuthInfo } from '../../../src/engine/transport.js';
import { makeProofKey, signProof } from '../../fixtures/oauth/dpop.js';
import { startIssuer, type TestIssuer } from '../../fixtures/oauth/jwt-issuer.js';
import { BOTH, initReq, jsonError, LATEST, makeServer, post, raw, start, type Started } from './helpers.js';

const ALGS = 'algs="ES256 ES384 RS256 PS256 EdDSA"';
const key = makeProofKey('ES256');
const thief = makeProofKey('ES256');

/** The challenges a refusal may carry, for a server whose metadata is at `prm`. */
function challenges(prm: string, scope = 'mcp:read') {
  const common = `scope="${scope}", resource_metadata="${prm}"`;
  return {
    plain: `Bearer ${common}, DPoP ${ALGS}, ${common}`,
    /** The error on the Bearer challenge (the request used Bearer). */
    bearer: (error: string, description: string) => `Bearer error="${error}", error_description="${description}", ${common}, DPoP ${ALGS}, ${common}`,
    /** The error on the DPoP challenge (the request used DPoP). */
    dpop: (error: string, description: string) => `Bearer ${common}, DPoP error="${error}", error_description="${description}", ${ALGS}, ${common}`,
  };
}

async function withServer(
  oauth: Partial<OAuthResourceOptions>,
  fn: (s: Started, as: TestIssuer, c: ReturnType<typeof challenges>) => Promise<void>,
): Promise<void> {
  const as = await startIssuer();
  const s = await start({
    oauth: { authorizationServers: [as.issuer], verifyToken: jwtAccessTokens({ issuer: as.issuer }), requiredScopes: ['mcp:read'], ...oauth },
  });
  try {
    await fn(s, as, challenges(`${s.base}/.well-known/oauth-protected-resource/mcp`));
  } finally {
    await s.running.close();
    await as.close();
  }
}

const dpopHeaders = (token: string, proof?: string): Record<string, string> => ({ authorization: `DPoP ${token}`, ...(proof ? { dpop: proof } : {}) });

async function refusedWith(r: Response, status: number, challenge: string, why?: string): Promise<void> {
  await jsonError(r, status);
  assert.equal(r.headers.get('www-authenticate'), challenge, why);
}

test('a DPoP-bound token with a proof of its key is accepted; the handler sees the binding', () =>
  withServer({}, async (s, as) => {
    const seen: AuthInfo[] = [];
    s.mcp.tool('who', (_a, ctx) => (seen.push(ctx.authInfo!), 'ok'));
    const token = as.token({ aud: s.url, scope: 'mcp:read', cnf: { jkt: key.jkt } });
    const r = await post(s.url, initReq(), dpopHeaders(token, signProof(key, 'POST', s.url, token)));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('dpop-nonce'), null, 'no nonces unless asked for');
    const sid = r.headers.get('mcp-session-id')!;
    await r.text();
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST };
    const note = await post(
      s.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { ...headers, ...dpopHeaders(token, signProof(key, 'POST', s.url, token)) },
    );
    assert.equal(note.status, 202);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'who', arguments: {} } };
    // The proof may name the URL with a query, in another case, with the default port: it is the same URL.
    const htu = s.url.replace('http://127.0.0.1', 'HTTP://127.0.0.1') + '?x=1';
    const called = await post(s.url, call, { ...headers, ...dpopHeaders(token, signProof(key, 'POST', htu, token)) });
    assert.equal(called.status, 200);
    await called.text();
    assert.deepEqual(seen[0]!.confirmation, { jkt: key.jkt });
    // The metadata says which proofs are taken, and that Bearer is still fine.
    const prm = (await (await fetch(`${s.base}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    assert.deepEqual(prm.dpop_signing_alg_values_supported, ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA']);
    assert.equal(prm.dpop_bound_access_tokens_required, undefined);
  }));

test('each refusal, with its exact challenge', () =>
  withServer({}, async (s, as, c) => {
    const bound = as.token({ aud: s.url, scope: 'mcp:read', cnf: { jkt: key.jkt } });
    const unbound = as.token({ aud: s.url, scope: 'mcp:read' });
    const proof = (token = bound, k = key, claims: Record<string, unknown> = {}) => signProof(k, 'POST', s.url, token, claims);
    const send = (headers: Record<string, string>) => post(s.url, initReq(), headers);

    await refusedWith(await send({}), 401, c.plain, 'no token');
    await refusedWith(await send({ authorization: 'Basic YTpi' }), 401, c.plain, 'another scheme');
    // RFC 9449 §7.2: a bound token is no bearer token, with or without a proof beside it.
    const asBearer = c.bearer('invalid_token', 'the access token is DPoP-bound: present it with the DPoP scheme and a proof');
    await refusedWith(await send({ authorization: `Bearer ${bound}` }), 401, asBearer, 'bound token as Bearer');
    await refusedWith(await send({ authorization: `Bearer ${bound}`, dpop: proof() }), 401, asBearer, 'bound token as Bearer, with a proof');
    // The DPoP scheme is for bound tokens only.
    await refusedWith(
      await send(dpopHeaders(unbound, proof(unbound))),
      401,
      c.dpop('invalid_token', 'the access token is not DPoP-bound'),
      'unbound token as DPoP',
    );
    await refusedWith(await send(dpopHeaders(bound)), 401, c.dpop('invalid_dpop_proof', 'a DPoP proof is required with a DPoP-bound token'), 'no proof');
    // A good proof, by a key other than the token's.
    await refusedWith(
      await send(dpopHeaders(bound, proof(bound, thief))),
      401,
      c.dpop('invalid_token', 'the DPoP proof is not signed with the key the access token is bound to'),
      'stolen token',
    );
    const badProofs: Array<[string, string, string]> = [
      ['for another URL', signProof(key, 'POST', `${s.base}/other`, bound), 'the DPoP proof htu does not match the request URL'],
      ['for another method', signProof(key, 'GET', s.url, bound), 'the DPoP proof htm does not match the request method'],
      ['for another token', proof(unbound), 'the DPoP proof ath does not match the access token'],
      ['stale', proof(bound, key, { iat: Math.floor(Date.now() / 1000) - 600 }), 'the DPoP proof iat is outside the accepted window'],
      ['unsigned', proof(bound, key).replace(/\.[^.]+$/, '.'), 'the DPoP proof is not a compact JWS'],
      ['typ JWT', signProof(key, 'POST', s.url, bound, {}, { typ: 'JWT' }), 'the DPoP proof typ is not dpop+jwt'],
      ['two headers', `${proof()}, ${proof()}`, 'exactly one DPoP header is allowed'],
    ];
    for (const [why, p, description] of badProofs) await refusedWith(await send(dpopHeaders(bound, p)), 401, c.dpop('invalid_dpop_proof', description), why);
    // A proof is good once.
    const once = proof();
    const first = await send(dpopHeaders(bound, once));
    assert.equal(first.status, 200);
    await first.text();
    await refusedWith(await send(dpopHeaders(bound, once)), 401, c.dpop('invalid_dpop_proof', 'the DPoP proof was used before'), 'replayed');
    // The token itself is still checked, and nothing says which check failed.
    const invalid = c.dpop('invalid_token', 'the access token is invalid');
    const forged = bound.slice(0, -4) + (bound.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const elsewhere = as.token({ aud: 'http://other.example.test/mcp', scope: 'mcp:read', cnf: { jkt: key.jkt } });
    for (const [why, t] of [
      ['forged', forged],
      ['another audience', elsewhere],
    ])
      await refusedWith(await send(dpopHeaders(t!, proof(t))), 401, invalid, why);
    // Scopes as ever, the error on the DPoP challenge.
    const noScope = as.token({ aud: s.url, scope: 'other', cnf: { jkt: key.jkt } });
    await refusedWith(
      await send(dpopHeaders(noScope, proof(noScope))),
      403,
      `Bearer scope="mcp:read", resource_metadata="${s.base}/.well-known/oauth-protected-resource/mcp", DPoP error="insufficient_scope", ${ALGS}, scope="mcp:read", resource_metadata="${s.base}/.well-known/oauth-protected-resource/mcp"`,
      'scope',
    );
    const malformed = await send({ authorization: 'DPoP two words' });
    await jsonError(malformed, 400);
    assert.match(
      malformed.headers.get('www-authenticate')!,
      /^Bearer scope="mcp:read", resource_metadata="[^"]+", DPoP error="invalid_request", error_description="malformed Authorization header", algs=/,
    );
    assert.equal(s.running.handler.streamable.sessionCount, 1);
  }));

test('server nonces: use_dpop_nonce with a DPoP-Nonce header, then accepted', () =>
  withServer({ dpop: { nonce: true } }, async (s, as, c) => {
    const token = as.token({ aud: s.url, scope: 'mcp:read', cnf: { jkt: key.jkt } });
    const first = await post(s.url, initReq(), dpopHeaders(token, signProof(key, 'POST', s.url, token)));
    await refusedWith(first, 401, c.dpop('use_dpop_nonce', 'the resource server requires a nonce in the DPoP proof'));
    const nonce = first.headers.get('dpop-nonce');
    assert.ok(nonce);
    const wrong = await post(s.url, initReq(), dpopHeaders(token, signProof(key, 'POST', s.url, token, { nonce: 'not-this-one' })));
    await jsonError(wrong, 401);
    assert.equal(wrong.headers.get('dpop-nonce'), nonce);
    const ok = await post(s.url, initReq(), dpopHeaders(token, signProof(key, 'POST', s.url, token, { nonce })));
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('dpop-nonce'), null, 'the nonce is current: nothing newer to send');
    await ok.text();
    // Bearer requests know nothing of nonces.
    const bearer = await post(s.url, initReq(), { authorization: `Bearer ${as.token({ aud: s.url, scope: 'mcp:read' })}` });
    assert.equal(bearer.status, 200);
    await bearer.text();
  }));

test('a newer nonce rides on successful responses, through the node and the fetch adapters', async () => {
  const issued = ['n1', 'n2'];
  const nonce = { current: () => issued.at(-1)!, valid: (n: string) => issued.includes(n) };
  const verifyToken = (t: string): AuthInfo | undefined => (t === 'bound' ? { principal: 'p', scopes: [], confirmation: { jkt: key.jkt } } : undefined);
  const oauth: OAuthResourceOptions = { authorizationServers: ['https://as.example.com'], verifyToken, dpop: { nonce } };
  const s = await start({ oauth });
  try {
    const old = await post(s.url, initReq(), dpopHeaders('bound', signProof(key, 'POST', s.url, 'bound', { nonce: 'n1' })));
    assert.equal(old.status, 200);
    assert.equal(old.headers.get('dpop-nonce'), 'n2');
    await old.text();
  } finally {
    await s.running.close();
  }
  const handle = toFetchHandler(makeServer().mcp, { stateful: false, oauth });
  try {
    const url = 'https://mcp.example.com/mcp';
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'edge' } } });
    const send = (n: string) =>
      handle(
        new Request(url, {
          method: 'POST',
          headers: { ...BOTH, 'mcp-protocol-version': LATEST, ...dpopHeaders('bound', signProof(key, 'POST', url, 'bound', { nonce: n })) },
          body,
        }),
      );
    const old = await send('n1');
    assert.equal(old.status, 200);
    assert.equal(old.headers.get('dpop-nonce'), 'n2');
    const current = await send('n2');
    assert.equal(current.status, 200);
    assert.equal(current.headers.get('dpop-nonce'), null);
    // The fetch adapter's URL is the htu: the proof must name https://mcp.example.com/mcp.
    const local = await handle(
      new Request(url, {
        method: 'POST',
        headers: { ...BOTH, 'mcp-protocol-version': LATEST, ...dpopHeaders('bound', signProof(key, 'POST', 'http://127.0.0.1/mcp', 'bound', { nonce: 'n2' })) },
        body,
      }),
    );
    assert.equal(local.status, 401);
    assert.match(
      local.headers.get('www-authenticate')!,
      /DPoP error="invalid_dpop_proof", error_description="the DPoP proof htu does not match the request URL"/,
    );
  } finally {
    await handle.close();
  }
});

test('htu is the URL the client addressed: the Host header, or the configured resource behind a proxy', async () => {
  await withServer({}, async (s, as) => {
    const port = s.running.port;
    const named = `http://localhost:${port}/mcp`;
    const token = as.token({ aud: named, scope: 'mcp:read', cnf: { jkt: key.jkt } });
    const body = JSON.stringify(initReq());
    const viaHost = (htu: string) =>
      raw(s.url, 'POST', { ...BOTH, host: `LOCALHOST:${port}`, ...dpopHeaders(token, signProof(key, 'POST', htu, token)) }, body);
    assert.equal((await viaHost(named)).status, 200);
    const r = await viaHost(s.url);
    assert.equal(r.status, 401);
    assert.match(String(r.headers['www-authenticate']), /the DPoP proof htu does not match the request URL/);
  });
  const resource = 'https://api.example.com/v1/mcp';
  await withServer({ resource }, async (s, as) => {
    const token = as.token({ aud: resource, scope: 'mcp:read', cnf: { jkt: key.jkt } });
    const send = (htu: string) => post(s.url, initReq(), dpopHeaders(token, signProof(key, 'POST', htu, token)));
    const ok = await send(resource);
    assert.equal(ok.status, 200);
    await ok.text();
    assert.equal((await send('HTTPS://API.EXAMPLE.COM:443/v1/mcp')).status, 200);
    await jsonError(await send(s.url), 401);
    await jsonError(await send('https://api.example.com/mcp'), 401);
  });
});

test('DPoP required: Bearer is refused outright, only the DPoP challenge is offered, and the metadata says so', () =>
  withServer({ dpop: { required: true, algorithms: ['ES256', 'PS256'] } }, async (s, as) => {
    const prm = `${s.base}/.well-known/oauth-protected-resource/mcp`;
    const common = `algs="ES256 PS256", scope="mcp:read", resource_metadata="${prm}"`;
    await refusedWith(await post(s.url, initReq()), 401, `DPoP ${common}`);
    const bearer = await post(s.url, initReq(), { authorization: `Bearer ${as.token({ aud: s.url, scope: 'mcp:read' })}` });
    await refusedWith(bearer, 401, `DPoP error="invalid_token", error_description="DPoP-bound access tokens only", ${common}`);
    const token = as.token({ aud: s.url, scope: 'mcp:read', cnf: { jkt: key.jkt } });
    await refusedWith(
      await post(s.url, initReq(), dpopHeaders(token, signProof(makeProofKey('ES384'), 'POST', s.url, token))),
      401,
      `DPoP error="invalid_dpop_proof", error_description="the DPoP proof alg is not one of ES256 PS256", ${common}`,
    );
    const ok = await post(s.url, initReq(), dpopHeaders(token, signProof(key, 'POST', s.url, token)));
    assert.equal(ok.status, 200);
    await ok.text();
    const doc = (await (await fetch(prm)).json()) as Record<string, unknown>;
    assert.deepEqual(doc.dpop_signing_alg_values_supported, ['ES256', 'PS256']);
    assert.equal(doc.dpop_bound_access_tokens_required, true);
  }));

test('dpop: false: Bearer only, as before; the DPoP scheme is a foreign one and bound tokens are refused', () =>
  withServer({ dpop: false }, async (s, as) => {
    const prm = `${s.base}/.well-known/oauth-protected-resource/mcp`;
    const common = `scope="mcp:read", resource_metadata="${prm}"`;
    const token = as.token({ aud: s.url, scope: 'mcp:read', cnf: { jkt: key.jkt } });
    const dpop = await post(s.url, initReq(), dpopHeaders(token, signProof(key, 'POST', s.url, token)));
    assert.match((await jsonError(dpop, 401)).message, /a bearer token is required/);
    assert.equal(dpop.headers.get('www-authenticate'), `Bearer ${common}`);
    const bearer = await post(s.url, initReq(), { authorization: `Bearer ${token}` });
    await refusedWith(
      bearer,
      401,
      `Bearer error="invalid_token", error_description="the access token is DPoP-bound, and this server does not accept DPoP", ${common}`,
    );
    const doc = (await (await fetch(prm)).json()) as Record<string, unknown>;
    assert.equal(doc.dpop_signing_alg_values_supported, undefined);
  }));

test('bindings that cannot be checked are refused; a nonce source that throws is a 500 for onerror', async () => {
  const errors: Error[] = [];
  const tokens: Record<string, AuthInfo> = {
    mtls: { principal: 'm', confirmation: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } },
    bound: { principal: 'b', confirmation: { jkt: key.jkt } },
  };
  const fixture = { mcp: new McpServer({ name: 'dpop-500', version: '1.0.0', onerror: (e) => errors.push(e) }), counter: { n: 0 } };
  const s = await start(
    {
      oauth: {
        authorizationServers: ['https://as.example.com'],
        verifyToken: (t) => tokens[t],
        dpop: {
          nonce: {
            current: () => 'n',
            valid: () => {
              throw new Error('nonce store down');
            },
          },
        },
      },
    },
    fixture,
  );
  try {
    const mtls = await post(s.url, initReq(), { authorization: 'Bearer mtls' });
    assert.match((await jsonError(mtls, 401)).message, /bound to a key in a way this server cannot check/);
    assert.match(
      mtls.headers.get('www-authenticate')!,
      /^Bearer error="invalid_token", error_description="the access token is bound to a key in a way this server cannot check"/,
    );
    const down = await post(s.url, initReq(), dpopHeaders('bound', signProof(key, 'POST', s.url, 'bound', { nonce: 'n' })));
    await jsonError(down, 500, -32603);
    assert.equal(down.headers.get('www-authenticate'), null);
    assert.match(errors[0]?.message ?? '', /nonce store down/);
  } finally {
    await s.running.close();
  }
  // An `authenticate` hook is not where a bound token can be checked: it is refused there too.
  const hooked = await start({ authenticate: () => ({ principal: 'h', confirmation: { jkt: key.jkt } }) });
  try {
    await jsonError(await post(hooked.url, initReq(), { authorization: 'Bearer whatever' }), 401);
  } finally {
    await hooked.running.close();
  }
});
