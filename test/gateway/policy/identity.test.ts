// Who is calling: API keys from environment variables or SHA-256 digests, compared in constant
// time; the front authentication in a real HTTP server (API keys, anonymous callers, OAuth JWT
// access tokens through mcpkit's resource-server guard); and identify() on what it produced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve } from '../../../src/serving/node.js';
import { connect } from '../../../src/client/connect.js';
import { createPolicy } from '../../../src/gateway/policy/create.js';
import { PolicyConfigError } from '../../../src/gateway/policy/config.js';
import { ANONYMOUS, ApiKeyTable, Identifier, sameDigest } from '../../../src/gateway/policy/identity.js';
import type { Policy } from '../../../src/gateway/policy/create.js';
import { startIssuer } from '../../fixtures/oauth/jwt-issuer.js';

const ALICE_KEY = 'alice-secret-key-0001';
const BOB_KEY = 'bob-secret-key-0002';
const digest = (s: string) => createHash('sha256').update(s).digest('hex');
const ENV = { ALICE_KEY };
const API_KEYS = {
  'env:ALICE_KEY': { id: 'alice', groups: ['dev'], scopes: ['tools:read'], claims: { tenant: 'acme' } },
  [`sha256:${digest(BOB_KEY)}`]: { id: 'bob', groups: ['ops'] },
};

test('keys from an environment variable and from a digest; an unset variable is a startup error naming it', () => {
  const table = new ApiKeyTable(API_KEYS, ENV);
  assert.equal(table.size, 2);
  assert.equal(table.lookup(ALICE_KEY)?.id, 'alice');
  assert.equal(table.lookup(BOB_KEY)?.id, 'bob');
  assert.equal(table.lookup(`${ALICE_KEY}x`), undefined);
  assert.equal(table.lookup(''), undefined);
  // The digest itself is not a key.
  assert.equal(table.lookup(digest(BOB_KEY)), undefined);
  assert.throws(
    () => new ApiKeyTable(API_KEYS, {}),
    (e: unknown) => {
      assert.ok(e instanceof PolicyConfigError);
      assert.match(e.message, /"alice" is read from the environment variable ALICE_KEY, which is not set/);
      return true;
    },
  );
});

test('constant time: digests of equal length are compared whole, every known key is compared, hit or miss', () => {
  const a = createHash('sha256').update('x').digest();
  const first = Buffer.from(a);
  first[0] ^= 1;
  const last = Buffer.from(a);
  last[31] ^= 1;
  assert.equal(sameDigest(a, Buffer.from(a)), true);
  assert.equal(sameDigest(a, first), false);
  assert.equal(sameDigest(a, last), false);
  // Lengths differ: false, where timingSafeEqual alone would throw.
  assert.equal(sameDigest(a, a.subarray(0, 16)), false);

  let compared = 0;
  const counting = (x: Uint8Array, y: Uint8Array) => (compared++, sameDigest(x, y));
  const keys = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`sha256:${digest(`key-${i}`)}`, { id: `user${i}` }]));
  const table = new ApiKeyTable(keys, {}, counting);
  for (const presented of ['key-0', 'key-4', 'nope']) {
    compared = 0;
    table.lookup(presented);
    assert.equal(compared, 5, presented);
  }
  assert.equal(table.lookup('key-0')?.id, 'user0');
});

test('one AuthInfo per key, shared by its requests and frozen: a caller cannot change what the next request is', () => {
  const table = new ApiKeyTable(API_KEYS, ENV);
  const first = table.authOf(ALICE_KEY)!;
  assert.equal(table.authOf(ALICE_KEY), first);
  assert.notEqual(table.authOf(BOB_KEY), first);
  assert.equal(table.authOf(`${ALICE_KEY}x`), undefined);
  assert.deepEqual(first, { principal: 'alice', scopes: ['tools:read'], extra: { claims: { tenant: 'acme', groups: ['dev'] }, apiKey: true } });
  assert.throws(() => (first.scopes as string[]).push('admin'), TypeError);
  assert.throws(() => ((first.extra!.claims as Record<string, unknown>).tenant = 'evil'), TypeError);
  assert.throws(() => (first.extra!.claims as { groups: string[] }).groups.push('ops'), TypeError);
  assert.throws(() => ((first as { principal: string }).principal = 'bob'), TypeError);
  // The same identity object follows, so per-caller work (visibility rules) is done once.
  const ids = new Identifier();
  assert.equal(ids.identify(table.authOf(ALICE_KEY)), ids.identify(first));
});

test('identify: API key attributes become claims, anonymous stays anonymous, one identity per AuthInfo', () => {
  const ids = new Identifier();
  assert.equal(ids.identify(undefined), ANONYMOUS);
  const auth = { principal: 'carol', scopes: ['s1'], extra: { claims: { groups: ['qa'], sub: 'carol' } } };
  const carol = ids.identify(auth);
  assert.deepEqual({ ...carol }, { id: 'carol', scopes: ['s1'], claims: { groups: ['qa'], sub: 'carol' }, auth });
  assert.equal(ids.identify(auth), carol);
  // An AuthInfo from another authenticate hook, without claims: an empty claim set.
  assert.deepEqual(ids.identify({ principal: 'dave' }).claims, {});
  assert.deepEqual(ids.identify({ principal: 'eve', extra: { claims: 'not an object' } }).claims, {});
});

/** An MCP server behind the policy's front, with a tool that says whom the policy sees. */
async function served(policy: Policy) {
  const server = new McpServer({ name: 'front', version: '1.0.0' });
  server.tool('whoami', (_args, ctx) => JSON.stringify(policy.identify(ctx.authInfo), (k, v) => (k === 'auth' ? undefined : v)));
  const running = await serve(server, { port: 0, ...policy.front });
  async function whoami(headers: Record<string, string>): Promise<Record<string, unknown>> {
    const client = await connect({ url: running.url, headers });
    try {
      const r = await client.callTool('whoami', {});
      return JSON.parse((r.content[0] as { text: string }).text) as Record<string, unknown>;
    } finally {
      await client.close();
    }
  }
  return { running, whoami };
}

async function status(url: string, headers: Record<string, string>): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await r.body?.cancel();
  return r.status;
}

test('front with API keys: Bearer or X-API-Key in, wrong or missing key 401, and the key never in the identity', async () => {
  const policy = createPolicy({ auth: { apiKeys: API_KEYS } }, { env: ENV });
  const { running, whoami } = await served(policy);
  try {
    const alice = await whoami({ authorization: `Bearer ${ALICE_KEY}` });
    assert.deepEqual(alice, { id: 'alice', scopes: ['tools:read'], claims: { tenant: 'acme', groups: ['dev'] } });
    assert.deepEqual(await whoami({ 'x-api-key': BOB_KEY }), { id: 'bob', scopes: [], claims: { groups: ['ops'] } });
    assert.equal(await status(running.url, { 'x-api-key': 'wrong' }), 401);
    assert.equal(await status(running.url, {}), 401);
    // Not from the query string: a key in a URL lands in access logs.
    assert.equal(await status(`${running.url}?api_key=${BOB_KEY}`, {}), 401);
    // Past authentication, a ping without a session is a 400 (not 401): the key was accepted.
    assert.equal(await status(running.url, { 'x-api-key': BOB_KEY }), 400);
    // The key is not passed on as a token (backends would receive the gateway's own credential).
    const info = policy.front.authenticate!({ header: (n: string) => (n === 'x-api-key' ? ALICE_KEY : undefined) } as never) as { token?: string };
    assert.equal(info.token, undefined);
  } finally {
    await running.close();
    await policy.close();
  }
});

test('front with API keys and anonymous allowed: no key is anonymous, a wrong key is still 401', async () => {
  const policy = createPolicy({ auth: { apiKeys: API_KEYS, anonymous: true } }, { env: ENV });
  const { running, whoami } = await served(policy);
  try {
    assert.deepEqual(await whoami({}), { id: 'anonymous', scopes: [], claims: {} });
    assert.equal(policy.identify(undefined).auth, undefined);
    assert.equal(await status(running.url, { 'x-api-key': 'wrong' }), 401);
    assert.equal((await whoami({ 'x-api-key': ALICE_KEY })).id, 'alice');
  } finally {
    await running.close();
    await policy.close();
  }
});

test('no auth section: an open gateway with anonymous callers; anonymous false without credentials is refused', () => {
  const open = createPolicy({});
  assert.deepEqual(open.front, {});
  assert.equal(open.visible(open.identify(undefined), { kind: 'tool', name: 't', server: 's', original: 't' }), true);
  assert.throws(() => createPolicy({ auth: { anonymous: false } }), /nobody could call/);
});

test('front with OAuth: JWT access tokens verified by the resource-server guard, their claims and scopes in the identity; API keys as bearer tokens too', async () => {
  const as = await startIssuer();
  const audience = 'http://mcp.example.test/mcp';
  const policy = createPolicy({ auth: { oauth: { issuer: as.issuer, audience }, apiKeys: API_KEYS } }, { env: ENV });
  const { running, whoami } = await served(policy);
  try {
    const token = as.token({ sub: 'carol', scope: 'tools:read admin', groups: ['dev', 'ops'] });
    const carol = await whoami({ authorization: `Bearer ${token}` });
    assert.equal(carol.id, 'carol');
    assert.deepEqual(carol.scopes, ['tools:read', 'admin']);
    assert.deepEqual((carol.claims as { groups: string[] }).groups, ['dev', 'ops']);
    assert.equal((carol.claims as { iss: string }).iss, as.issuer);
    assert.equal((await whoami({ authorization: `Bearer ${ALICE_KEY}` })).id, 'alice');
    assert.equal(await status(running.url, {}), 401);
    assert.equal(await status(running.url, { authorization: `Bearer ${as.token({ aud: 'http://elsewhere.test/mcp' })}` }), 401);
    assert.equal(await status(running.url, { authorization: 'Bearer not-a-key-nor-a-token' }), 401);
    // The protected resource metadata names the issuer, for clients to find it.
    const meta = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', running.url))).json()) as { authorization_servers: string[] };
    assert.deepEqual(meta.authorization_servers, [as.issuer]);
    assert.throws(() => createPolicy({ auth: { oauth: { issuer: as.issuer }, anonymous: true } }), /cannot be combined with "oauth"/);
  } finally {
    await running.close();
    await policy.close();
    await as.close();
  }
});
