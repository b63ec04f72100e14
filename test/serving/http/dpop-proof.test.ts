// DPoP proof checking (RFC 9449 §4.3) on its own: proofs signed with node:crypto (not the Web
// Crypto code under test) that are good, or wrong in exactly one way; the replay cache; server
// nonces; the thumbprint; and how a token's binding and a proof go together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import {
  bindingError,
  DpopProofVerifier,
  jwkThumbprint,
  ReplayCache,
  type DpopProofResult,
  type DpopResourceOptions,
} from '../../../src/serving/http/dpop-proof.js';
import { accessTokenHash, makeProofKey, signProof, type ClientProofKey } from '../../fixtures/oauth/dpop.js';
import { hs256, unsigned } from '../../fixtures/oauth/jwt-issuer.js';

const URL_ = 'https://mcp.example.com/mcp';
const TOKEN = 'an.access.token';
const now = () => Math.floor(Date.now() / 1000);
const key = makeProofKey('ES256');

function ok(r: DpopProofResult): Extract<DpopProofResult, { ok: true }> {
  assert.ok(r.ok, !r.ok ? r.description : '');
  return r;
}

/** Asserts an invalid_dpop_proof refusal, and that its description names what was wrong. */
function refused(r: DpopProofResult, why: RegExp, note = ''): void {
  assert.equal(r.ok, false, `accepted, expected ${why} ${note}`);
  if (r.ok) return;
  assert.equal(r.error, 'invalid_dpop_proof', `${r.description} ${note}`);
  assert.match(r.description, why, note);
}

/** Asserts a use_dpop_nonce refusal; the nonce it hands out. */
function nonceAsked(r: DpopProofResult): string {
  assert.ok(!r.ok && r.error === 'use_dpop_nonce', r.ok ? 'accepted' : r.description);
  assert.equal(r.description, 'the resource server requires a nonce in the DPoP proof');
  assert.ok(typeof r.nonce === 'string' && r.nonce !== '');
  return r.nonce;
}

const check = (v: DpopProofVerifier, proof: string | undefined, method = 'POST', url = URL_, token = TOKEN) => v.check(proof, method, url, token);

test('a good proof: every algorithm by default, the thumbprint of its key, recorded once accepted', async () => {
  const v = new DpopProofVerifier();
  for (const alg of ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'] as const) {
    const k = alg === 'ES256' ? key : makeProofKey(alg);
    const r = ok(await check(v, signProof(k, 'POST', URL_, TOKEN)));
    assert.equal(r.jkt, k.jkt, alg);
    assert.equal(r.nonce, undefined);
    assert.ok(v.accept(r));
  }
  // GET of the stream, and application/dpop+jwt as typ (RFC 7515 §4.1.9 lets the prefix go either way).
  ok(await check(v, signProof(key, 'GET', URL_, TOKEN), 'GET'));
  ok(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { typ: 'application/dpop+jwt' })));
});

test('htm, htu and ath must name this request and this token', async () => {
  const v = new DpopProofVerifier();
  refused(await check(v, signProof(key, 'GET', URL_, TOKEN)), /htm does not match/);
  refused(await check(v, signProof(key, 'post', URL_, TOKEN)), /htm does not match/);
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, { htm: undefined })), /htm does not match/);
  for (const htu of [
    'https://other.example.com/mcp',
    'http://mcp.example.com/mcp',
    'https://mcp.example.com/mcp/other',
    'https://mcp.example.com:8443/mcp',
    'mcp.example.com/mcp',
    'urn:x:mcp',
  ]) {
    refused(await check(v, signProof(key, 'POST', htu, TOKEN)), /htu does not match/, htu);
  }
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, { htu: undefined })), /htu does not match/);
  // RFC 9449 §4.3: query and fragment ignored, scheme and host compared case-insensitively, default port normalized.
  for (const htu of [
    'https://mcp.example.com/mcp?session=1',
    'https://mcp.example.com/mcp#x',
    'HTTPS://MCP.Example.COM/mcp',
    'https://mcp.example.com:443/mcp',
    'https://mcp.example.com/a/../mcp',
  ]) {
    ok(await check(v, signProof(key, 'POST', htu, TOKEN)));
  }
  refused(await check(v, signProof(key, 'POST', 'https://mcp.example.com/MCP', TOKEN)), /htu/, 'the path is case-sensitive');
  refused(await check(v, signProof(key, 'POST', URL_, 'another.access.token')), /ath does not match/);
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, { ath: accessTokenHash(TOKEN).toUpperCase() })), /ath does not match/);
  refused(await check(v, signProof(key, 'POST', URL_)), /no ath/);
});

test('iat: within maxAgeSec either way (default 300 s), else refused as stale or early', async () => {
  const v = new DpopProofVerifier();
  for (const delta of [-290, -5, 0, 5, 290]) ok(await check(v, signProof(key, 'POST', URL_, TOKEN, { iat: now() + delta })));
  for (const iat of [now() - 310, now() + 310, now() - 86400, String(now()), undefined, (now() * 1000) as number]) {
    refused(await check(v, signProof(key, 'POST', URL_, TOKEN, { iat })), /iat is outside/, String(iat));
  }
  const strict = new DpopProofVerifier({ maxAgeSec: 60 });
  ok(await check(strict, signProof(key, 'POST', URL_, TOKEN, { iat: now() - 50 })));
  refused(await check(strict, signProof(key, 'POST', URL_, TOKEN, { iat: now() - 70 })), /iat/);
});

test('a replayed jti is refused, also when two requests race with the same proof', async () => {
  const v = new DpopProofVerifier();
  const proof = signProof(key, 'POST', URL_, TOKEN);
  const first = ok(await check(v, proof));
  const racing = ok(await check(v, proof));
  assert.equal(v.accept(first), true);
  assert.equal(v.accept(racing), false, 'the second of two concurrent uses loses');
  refused(await check(v, proof), /used before/);
  // The same jti from the same key in a new proof is the same proof as far as replay goes.
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, { jti: first.jti })), /used before/);
  for (const jti of [undefined, '', 7, 'x'.repeat(300)]) refused(await check(v, signProof(key, 'POST', URL_, TOKEN, { jti })), /no valid jti/, String(jti));
  // A proof that was checked but never accepted (its token was refused) is not burnt.
  const unused = signProof(key, 'POST', URL_, TOKEN);
  ok(await check(v, unused));
  ok(await check(v, unused));
});

test('the replay cache is bounded, and forgets proofs once they are too old anyway', () => {
  const c = new ReplayCache(3);
  const t = 1_000_000;
  for (const jti of ['a', 'b', 'c']) assert.ok(c.add(jti, t + 1000, t));
  assert.equal(c.add('b', t + 1000, t + 1), false);
  assert.ok(c.add('d', t + 1000, t + 2));
  assert.equal(c.size, 3);
  assert.equal(c.has('a', t + 2), false, 'the oldest went when full');
  assert.ok(c.has('d', t + 2));
  // Past their time, entries are neither replays nor kept.
  assert.equal(c.has('b', t + 1000), false);
  assert.ok(c.add('e', t + 5000, t + 2000));
  assert.equal(c.size, 1);
});

test('alg none, HMAC, an algorithm not allowed, or a key that does not fit the alg are refused', async () => {
  const v = new DpopProofVerifier();
  const claims = { jti: 'j1', htm: 'POST', htu: URL_, iat: now(), ath: accessTokenHash(TOKEN) };
  const header = { typ: 'dpop+jwt', jwk: key.publicJwk };
  refused(await check(v, unsigned(claims, header)), /alg is not one of ES256 ES384 RS256 PS256 EdDSA/);
  refused(await check(v, unsigned(claims, { ...header, alg: 'NONE' })), /alg/);
  refused(await check(v, hs256('secret', claims, header)), /alg/);
  refused(await check(v, hs256(String(key.publicJwk.x), claims, header)), /alg/);
  const onlyEs = new DpopProofVerifier({ algorithms: ['ES256'] });
  assert.equal(onlyEs.algs, 'ES256');
  refused(await check(onlyEs, signProof(makeProofKey('RS256'), 'POST', URL_, TOKEN)), /alg is not one of ES256$/);
  // An EC key in a proof claiming RS256, and a P-384 key claiming ES256.
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { alg: 'RS256' })), /jwk is not a public key for its alg/);
  const p384 = makeProofKey('ES384');
  refused(await check(v, signProof({ ...p384, alg: 'ES256' }, 'POST', URL_, TOKEN)), /jwk is not a public key/);
});

test('the jwk: present, public only, and the key that signed', async () => {
  const v = new DpopProofVerifier();
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { jwk: undefined })), /jwk is not a public key/);
  const priv = key.privateKey.export({ format: 'jwk' });
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { jwk: priv })), /jwk is not a public key/, 'a private key (d)');
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { jwk: { ...key.publicJwk, d: 'AAAA' } })), /jwk/);
  const rsa = makeProofKey('RS256');
  refused(await check(v, signProof(rsa, 'POST', URL_, TOKEN, {}, { jwk: { ...rsa.publicJwk, p: 'AAAA' } })), /jwk/);
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { jwk: { kty: 'oct', k: 'c2VjcmV0' } })), /jwk/);
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { jwk: { ...key.publicJwk, x: 7 } })), /jwk/);
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { jwk: 'x' })), /jwk/);
  // Signed by another key than the one it carries.
  const other = makeProofKey('ES256');
  refused(await check(v, signProof(other, 'POST', URL_, TOKEN, {}, { jwk: key.publicJwk })), /signature is invalid/);
  // A tampered payload or signature.
  const good = signProof(key, 'POST', URL_, TOKEN);
  const [h, p, s] = good.split('.') as [string, string, string];
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  const swapped = Buffer.from(JSON.stringify({ ...payload, jti: 'other' })).toString('base64url');
  refused(await check(v, `${h}.${swapped}.${s}`), /signature is invalid/);
  refused(await check(v, `${h}.${p}.${s.slice(0, -4)}`), /signature is invalid|not a compact JWS/);
  // An RSA key too short to trust.
  refused(await check(v, signProof(rsaProofKey(1024), 'POST', URL_, TOKEN)), /signature is invalid/);
});

/** An RSA proof key of `bits` (makeProofKey's are 2048). */
function rsaProofKey(bits: number): ClientProofKey {
  const pair = generateKeyPairSync('rsa', { modulusLength: bits });
  const publicJwk = pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const jkt = createHash('sha256')
    .update(JSON.stringify({ e: publicJwk.e, kty: 'RSA', n: publicJwk.n }))
    .digest('base64url');
  return { alg: 'RS256', privateKey: pair.privateKey, jwk: publicJwk, publicJwk, jkt };
}

test('typ, crit, the JWS shape, and exactly one DPoP header', async () => {
  const v = new DpopProofVerifier();
  for (const typ of ['JWT', 'at+jwt', undefined, 'dpop'])
    refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { typ })), /typ is not dpop\+jwt/, String(typ));
  refused(await check(v, signProof(key, 'POST', URL_, TOKEN, {}, { crit: ['exp'] })), /crit/);
  refused(await check(v, undefined), /proof is required/);
  refused(await check(v, ''), /proof is required/);
  refused(await check(v, 'this-is-not-a-jwt'), /not a compact JWS/);
  refused(await check(v, 'a.b.c.d.e'), /not a compact JWS/);
  refused(await check(v, `${Buffer.from('[1]').toString('base64url')}.e30.AAAA`), /not a compact JWS/);
  refused(await check(v, 'x'.repeat(20_000)), /too large/);
  // Two DPoP headers reach the core joined with ", " (node:http and fetch alike).
  const one = signProof(key, 'POST', URL_, TOKEN);
  refused(await check(v, `${one}, ${signProof(key, 'POST', URL_, TOKEN)}`), /exactly one DPoP header/);
  ok(await check(v, one));
});

test('nonces: a missing or unknown one gets use_dpop_nonce with the current one; built-in nonces are shared through the secret', async () => {
  const v = new DpopProofVerifier({ nonce: true });
  const nonce = nonceAsked(await check(v, signProof(key, 'POST', URL_, TOKEN)));
  assert.ok(nonce.length >= 16);
  assert.equal(nonceAsked(await check(v, signProof(key, 'POST', URL_, TOKEN, { nonce: 'made-up' }))), nonce);
  nonceAsked(await check(v, signProof(key, 'POST', URL_, TOKEN, { nonce: 7 })));
  const r = ok(await check(v, signProof(key, 'POST', URL_, TOKEN, { nonce })));
  assert.equal(r.nonce, undefined, 'the current nonce needs no replacement');
  // A bad proof is refused as such before its nonce is looked at.
  refused(await check(v, signProof(key, 'GET', URL_, TOKEN)), /htm/);
  // Instances sharing a secret agree; others do not.
  const secret = 'a shared secret of at least 32 bytes!!';
  const a = new DpopProofVerifier({ nonce: { secret } });
  const b = new DpopProofVerifier({ nonce: { secret } });
  const shared = nonceAsked(await check(a, signProof(key, 'POST', URL_, TOKEN)));
  ok(await check(b, signProof(key, 'POST', URL_, TOKEN, { nonce: shared })));
  nonceAsked(await check(v, signProof(key, 'POST', URL_, TOKEN, { nonce: shared })));
});

test('nonces of your own: a valid but superseded nonce is accepted, and the newer one comes back to send', async () => {
  const issued = ['n1'];
  const v = new DpopProofVerifier({ nonce: { current: () => issued.at(-1)!, valid: async (n) => issued.slice(-2).includes(n) } });
  ok(await check(v, signProof(key, 'POST', URL_, TOKEN, { nonce: 'n1' })));
  issued.push('n2');
  assert.equal(ok(await check(v, signProof(key, 'POST', URL_, TOKEN, { nonce: 'n1' }))).nonce, 'n2');
  issued.push('n3');
  assert.equal(nonceAsked(await check(v, signProof(key, 'POST', URL_, TOKEN, { nonce: 'n1' }))), 'n3');
});

test('options are checked when the verifier is built', () => {
  const build = (o: unknown) => () => new DpopProofVerifier(o as DpopResourceOptions);
  assert.throws(build('yes'), /oauth\.dpop: must be a boolean or an object/);
  assert.throws(build({ algorithms: [] }), /at least one algorithm/);
  assert.throws(build({ algorithms: ['HS256'] }), /"HS256" is never accepted/);
  assert.throws(build({ algorithms: ['none'] }), /"none" is never accepted/);
  assert.throws(build({ algorithms: ['XS1'] }), /unsupported algorithm "XS1"/);
  assert.throws(build({ maxAgeSec: 0 }), /maxAgeSec must be a positive number/);
  assert.throws(build({ replayCacheSize: -1 }), /replayCacheSize/);
  assert.throws(build({ nonce: 'x' }), /nonce must be/);
  assert.throws(build({ nonce: { current: () => 'n' } }), /both current\(\) and valid\(\)/);
  assert.throws(build({ nonce: { secret: 'short' } }), /too short/);
  assert.throws(build({ nonce: { lifetimeSec: -5 } }), /lifetimeSec/);
});

test('the RFC 7638 thumbprint (its own example), and a binding checked against the proof', async () => {
  const n =
    '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw';
  assert.equal(await jwkThumbprint({ kty: 'RSA', n, e: 'AQAB', alg: 'RS256', kid: '2011-04-29' }), 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  assert.equal(jwkThumbprint({ kty: 'oct' }), undefined);
  const proof = { jkt: key.jkt };
  assert.equal(bindingError(undefined, undefined, true), undefined, 'a plain bearer token');
  assert.equal(bindingError({ jkt: key.jkt }, proof, true), undefined);
  assert.match(bindingError({ jkt: key.jkt }, undefined, true)!, /DPoP-bound: present it with the DPoP scheme/);
  assert.match(bindingError({ jkt: key.jkt }, undefined, false)!, /does not accept DPoP/);
  assert.match(bindingError(undefined, proof, true)!, /not DPoP-bound/);
  assert.match(bindingError({}, proof, true)!, /not DPoP-bound/);
  assert.match(bindingError({ jkt: makeProofKey().jkt }, proof, true)!, /not signed with the key the access token is bound to/);
  assert.match(bindingError({ 'x5t#S256': 'abc' }, undefined, true)!, /cannot check/);
  assert.match(bindingError({ jkt: key.jkt, 'x5t#S256': 'abc' }, proof, true)!, /cannot check/);
  assert.match(bindingError({ jkt: 7 as unknown as string }, proof, true)!, /cannot check/);
});
