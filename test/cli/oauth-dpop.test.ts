// Signing in from the CLI to a server whose authorization server binds tokens to a DPoP key
// (RFC 9449): the key is kept in the token file, so the sign-in, and the refresh token, stay
// usable in the next process. The resource server is the auth tests' node:http one, which checks
// the proofs; the test plays the browser as in oauth.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileOAuthStore } from '../../src/cli/oauth.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { startMockAs, type MockAs } from '../fixtures/oauth/authorization-server.js';
import { decodeProof, jwkThumbprint } from '../fixtures/oauth/dpop.js';
import { startRs, type Rs } from '../client/auth/fixture.js';
import { cleanEnv, mcpkit, withBrowser } from './helpers.js';

interface Kept {
  clients: Record<string, unknown>;
  tokens: Record<string, { tokens: { access_token: string; token_type: string }; dpopJkt?: string }>;
  dpopKey?: Record<string, string>;
}

let as: MockAs;
let rs: Rs;
let plain: RunningServer;

before(async () => {
  as = await startMockAs({ dpop: {} });
  rs = await startRs(as, { dpop: true });
  const mcp = new McpServer({ name: 'open', version: '1.0.0' });
  mcp.tool('ping', () => 'pong');
  plain = await serve(mcp, { port: 0 });
});
after(async () => {
  await plain?.close();
  await rs?.close();
  await as?.close();
});

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Kept;
const count = (path: string) => as.requests.filter((q) => q.path === path).length;

describe('mcpkit against a DPoP authorization server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-dpop-'));
  const file = join(dir, 'tokens.json');
  let jkt = '';

  test('the sign-in binds the tokens to a key kept in the user-only token file', async () => {
    const r = await withBrowser(['call', rs.url, 'admin', '--oauth', '--no-browser', '--oauth-file', file], cleanEnv());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.signIns, 1);
    assert.match(r.stdout, /admin done/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const kept = read(file);
    assert.equal(kept.dpopKey?.kty, 'EC');
    assert.equal(kept.dpopKey?.crv, 'P-256');
    assert.ok(kept.dpopKey?.d, 'the private key is kept');
    jkt = jwkThumbprint(kept.dpopKey!);
    const [entry] = Object.values(kept.tokens);
    assert.equal(entry?.tokens.token_type, 'DPoP');
    assert.equal(entry?.dpopJkt, jkt);
    assert.equal(as.tokens.get(entry!.tokens.access_token)?.jkt, jkt, 'the authorization server bound the token to the kept key');
    assert.ok(rs.mcpRequests().some((q) => q.authorization?.startsWith('DPoP ') && q.status === 200));
    assert.deepEqual(
      rs.mcpRequests().filter((q) => q.dpopError),
      [],
    );
  });

  test('the next command, a new process, uses the kept token: no sign-in, no token request', async () => {
    const authorize = count('/authorize');
    const token = count('/token');
    const seen = rs.mcpRequests().length;
    const r = await mcpkit(['call', rs.url, 'admin', '--oauth-file', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /admin done/);
    assert.equal(count('/authorize'), authorize);
    assert.equal(count('/token'), token);
    // The client reads the store on its first 401, so only the first request goes without a token.
    const [first, ...sent] = rs.mcpRequests().slice(seen);
    assert.equal(first?.authorization, undefined);
    assert.equal(first?.status, 401);
    assert.ok(sent.length > 0);
    for (const q of sent) {
      assert.match(q.authorization ?? '', /^DPoP /);
      assert.equal(q.dpopError, undefined);
      assert.ok(q.status! < 300, `${q.rpc} answered ${q.status}`);
    }
  });

  test('an expired token is refreshed in a third process with a proof of the same key', async () => {
    as.expireAll();
    const authorize = count('/authorize');
    const key = read(file).dpopKey;
    const r = await mcpkit(['call', rs.url, 'admin', '--oauth-file', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /admin done/);
    assert.equal(count('/authorize'), authorize, 'no sign-in');
    const refresh = as.requests.filter((q) => q.path === '/token' && q.form?.get('grant_type') === 'refresh_token');
    assert.equal(refresh.length, 1);
    const proof = decodeProof(String(refresh[0]!.headers.dpop));
    assert.equal(jwkThumbprint(proof.header['jwk'] as Record<string, unknown>), jkt);
    const kept = read(file);
    assert.deepEqual(kept.dpopKey, key, 'the key is not replaced');
    assert.equal(Object.values(kept.tokens)[0]?.dpopJkt, jkt);
  });

  test('a file from before the key (bound tokens, no dpopKey) signs in once more, then keeps a key', async () => {
    const old = join(dir, 'old.json');
    const { dpopKey: _, ...rest } = read(file);
    writeFileSync(old, JSON.stringify(rest), { mode: 0o600 });
    const r = await withBrowser(['call', rs.url, 'admin', '--oauth', '--no-browser', '--oauth-file', old], cleanEnv());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.signIns, 1, 'tokens bound to a key that is gone are not used');
    const kept = read(old);
    assert.ok(kept.dpopKey?.d);
    assert.notEqual(jwkThumbprint(kept.dpopKey!), jkt);
    assert.equal(Object.values(kept.tokens)[0]?.dpopJkt, jwkThumbprint(kept.dpopKey!));
    assert.deepEqual(Object.keys(kept.clients), Object.keys(rest.clients), 'the registration is kept');
  });

  test('a server without OAuth: no token file is written, even with --oauth', async () => {
    const none = join(dir, 'none.json');
    const r = await mcpkit(['call', plain.url, 'ping', '--oauth', '--no-browser', '--oauth-file', none]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pong/);
    assert.equal(existsSync(none), false);
  });
});

describe('FileOAuthStore and its DPoP key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-dpop-store-'));
  const bound = { tokens: { access_token: 'at', token_type: 'DPoP' }, dpopJkt: 'some-jkt' };
  const publicX = async (pair: CryptoKeyPair) => (await crypto.subtle.exportKey('jwk', pair.publicKey)).x;

  test('the key is written with the first bound tokens only, and loads back the same, not extractable', async () => {
    const file = join(dir, 'a.json');
    const store = new FileOAuthStore(file);
    const pair = await store.dpopKeyPair();
    assert.equal(pair.privateKey.extractable, false);
    assert.equal(existsSync(file), false, 'making the key writes nothing');
    store.saveClient('https://as', { client_id: 'c' });
    store.saveTokens('https://as', 'https://rs/a', { tokens: { access_token: 'b', token_type: 'Bearer' } });
    assert.equal(read(file).dpopKey, undefined, 'bearer tokens need no key');
    store.saveTokens('https://as', 'https://rs/b', bound);
    const kept = read(file);
    assert.ok(kept.dpopKey?.d);
    assert.equal(Object.keys(kept.tokens).length, 2);
    const again = await new FileOAuthStore(file).dpopKeyPair();
    assert.equal(again.privateKey.extractable, false);
    assert.equal(await publicX(again), await publicX(pair));
    const data = new TextEncoder().encode('proof');
    const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, again.privateKey, data);
    assert.ok(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, pair.publicKey, sig, data), 'the loaded private key is the saved one');
  });

  test('a key another command saved first stays; a malformed or off-curve one is replaced', async () => {
    const file = join(dir, 'b.json');
    const first = new FileOAuthStore(file);
    const second = new FileOAuthStore(file);
    const a = await first.dpopKeyPair();
    await second.dpopKeyPair();
    first.saveTokens('https://as', 'https://rs/a', bound);
    second.saveTokens('https://as', 'https://rs/b', bound);
    assert.equal(read(file).dpopKey?.x, await publicX(a));

    const zero = 'A'.repeat(43);
    for (const dpopKey of [
      { kty: 'EC', crv: 'P-256', x: 'short' },
      { kty: 'EC', crv: 'P-256', x: zero, y: zero, d: zero },
    ]) {
      const broken = join(dir, 'c.json');
      writeFileSync(broken, JSON.stringify({ clients: {}, tokens: {}, dpopKey }));
      const store = new FileOAuthStore(broken);
      const pair = await store.dpopKeyPair();
      store.saveTokens('https://as', 'https://rs/a', bound);
      assert.equal(read(broken).dpopKey?.x, await publicX(pair));
    }
  });
});
