// The gateway with its policy, over real transports: two gateway instances (each with its own
// stdio backend and its own policy built from the same config) in front of a stdio backend and
// an HTTP one; callers with API keys alice and bob see different tools; a rate limit counted in
// the real Redis refuses alice's fourth call whichever instance she uses, with retryAfterMs; and
// each instance's call log is read back line by line. Then OAuth in front: JWT access tokens whose
// scopes and claims choose the tools.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import type { McpClient } from '../../src/client/client.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway, type Gateway } from '../../src/gateway/gateway.js';
import { createPolicy } from '../../src/gateway/policy/create.js';
import type { CallLogLine } from '../../src/gateway/policy/call-log.js';
import { gatewayBackend, tempDir } from '../support/index.js';
import { startIssuer } from '../fixtures/oauth/jwt-issuer.js';
import { cleanup, connectRedis, PREFIX, REDIS_URL } from '../state/redis/helpers.js';

after(cleanup);

const ALICE_KEY = 'alice-e2e-key-4f1c';
const BOB_KEY = 'bob-e2e-key-9a2d';
const env = { ALICE_KEY };

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;
const names = async (c: McpClient) => (await c.listTools()).tools.map((t) => t.name).sort();

/** An HTTP backend with an administrative tool nobody should call through the gateway. */
async function adminBackend() {
  const server = new McpServer({ name: 'admin', version: '1.0.0' });
  server.tool('stats', { description: 'Usage numbers' }, () => 'stats:42');
  server.tool('delete_user', { description: 'Deletes a user' }, () => 'deleted');
  return serve(server, { port: 0 });
}

test('two gateway instances: per-caller tools, a rate limit shared over Redis, and the call logs', async (t) => {
  await connectRedis(); // fails loudly when there is no Redis, and lets cleanup() find this run's keys
  const admin = await adminBackend();
  const dir = tempDir('policy-e2e');
  const policyConfig = (log: string) => ({
    auth: {
      apiKeys: {
        'env:ALICE_KEY': { id: 'alice', groups: ['dev'] },
        [`sha256:${createHash('sha256').update(BOB_KEY).digest('hex')}`]: { id: 'bob', groups: ['ops'] },
      },
    },
    visibility: [
      { when: { group: 'dev' }, allow: ['local_*'] },
      { when: { group: 'ops' }, allow: ['admin_*', 'local_echo'] },
      { deny: ['*_delete*', 'local_wait'] },
    ],
    limits: {
      // A generous bound: on a loaded machine a 500 ms answer from Redis is not a Redis outage, and
      // the default fail-open would admit the call this test expects refused.
      store: { redis: REDIS_URL, keyPrefix: `${PREFIX}gw:`, timeoutMs: 30_000 },
      rules: [{ name: 'echo', items: ['local_echo'], limit: 3, windowMs: 60_000 }],
    },
    callLog: { to: join(dir, log) },
  });
  const gateways: Gateway[] = [];
  const urls: string[] = [];
  for (const n of [1, 2]) {
    const policy = createPolicy(policyConfig(`gw${n}.jsonl`), { env });
    const gateway = createGateway({ servers: { local: gatewayBackend(`policy-e2e-${n}`), admin: { url: admin.url } }, policy });
    gateways.push(gateway);
    urls.push((await gateway.listen({ port: 0, ...policy.front })).url);
  }
  const clients: McpClient[] = [];
  t.after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(gateways.map((g) => g.close()));
    await admin.close();
  });
  await Promise.all(gateways.map((g) => g.ready));
  const as = async (url: string, key: string) => {
    const c = await connect({ url, headers: { 'x-api-key': key } });
    clients.push(c);
    return c;
  };
  const alice1 = await as(urls[0]!, ALICE_KEY);
  const alice2 = await as(urls[1]!, ALICE_KEY);
  const bob1 = await as(urls[0]!, BOB_KEY);

  // Visibility: each sees their own tools, and a hidden tool is as unknown as a missing one.
  assert.deepEqual(await names(alice1), ['local_ask', 'local_cancelled', 'local_echo', 'local_pid']);
  assert.deepEqual(await names(bob1), ['admin_stats', 'local_echo']);
  assert.equal(text(await bob1.callTool('admin_stats', {})), 'stats:42');
  await assert.rejects(alice1.callTool('admin_stats', {}), (e: Error & { code?: number }) => e.code === -32602 && /Unknown tool: admin_stats/.test(e.message));
  await assert.rejects(bob1.callTool('admin_delete_user', {}), (e: Error & { code?: number }) => e.code === -32602);
  // A wrong key does not get in.
  await assert.rejects(connect({ url: urls[0]!, headers: { 'x-api-key': 'guess' } }), /401/);

  // The limit: 3 echoes a minute per caller, counted in Redis across both instances.
  assert.equal(text(await alice1.callTool('local_echo', { text: '1' })), 'echo:1');
  assert.equal(text(await alice2.callTool('local_echo', { text: '2' })), 'echo:2');
  assert.equal(text(await alice1.callTool('local_echo', { text: '3' })), 'echo:3');
  for (const client of [alice2, alice1]) {
    await assert.rejects(client.callTool('local_echo', { text: '4' }), (e: Error & { code?: number; data?: { retryAfterMs?: number } }) => {
      assert.equal(e.code, -32029);
      assert.match(e.message, /Rate limit "echo" reached \(3 calls per 60s\); retry in \d+s/);
      assert.ok(e.data?.retryAfterMs !== undefined && e.data.retryAfterMs > 0 && e.data.retryAfterMs <= 60_000, JSON.stringify(e.data));
      return true;
    });
  }
  // Other tools and other callers are not held back.
  assert.match(text(await alice2.callTool('local_pid', {})), /^\d+$/);
  assert.equal(text(await bob1.callTool('local_echo', { text: 'b' })), 'echo:b');

  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(gateways.splice(0).map((g) => g.close())); // closes each policy: the logs are flushed
  const log = (file: string) =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as CallLogLine);
  const summary = (lines: CallLogLine[]) => lines.map((l) => `${l.caller} ${l.item} ${l.outcome}`);
  const gw1 = log('gw1.jsonl');
  const gw2 = log('gw2.jsonl');
  assert.deepEqual(summary(gw1), ['bob admin_stats ok', 'alice local_echo ok', 'alice local_echo ok', 'alice local_echo refused', 'bob local_echo ok']);
  assert.deepEqual(summary(gw2), ['alice local_echo ok', 'alice local_echo refused', 'alice local_pid ok']);
  for (const line of [...gw1, ...gw2]) {
    assert.equal(line.method, 'tools/call');
    assert.ok(line.durationMs >= 0 && line.time.length > 0);
    assert.equal(line.arguments, undefined);
  }
  assert.match(gw1[3]!.error ?? '', /Rate limit "echo" reached/);
  assert.equal(gw1[1]!.server, 'local');
  assert.equal(gw1[1]!.original, 'echo');
  const all = readFileSync(join(dir, 'gw1.jsonl'), 'utf8') + readFileSync(join(dir, 'gw2.jsonl'), 'utf8');
  assert.ok(!all.includes(ALICE_KEY) && !all.includes(BOB_KEY));
});

test("OAuth in front of the gateway: a token's sub, scopes and claims decide what its bearer sees", async (t) => {
  const as = await startIssuer();
  const audience = 'http://gateway.example.test/mcp';
  const log = join(tempDir('policy-e2e'), 'oauth.jsonl');
  const policy = createPolicy({
    auth: { oauth: { issuer: as.issuer, audience } },
    callLog: { to: log, arguments: true },
    visibility: [
      { when: { scope: 'admin' }, allow: ['*'] },
      { when: { claim: { team: 'support' } }, allow: ['local_echo'] },
    ],
  });
  const gateway = createGateway({ servers: { local: gatewayBackend('policy-e2e-oauth') }, policy });
  const url = (await gateway.listen({ port: 0, ...policy.front })).url;
  const clients: McpClient[] = [];
  t.after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gateway.close();
    await as.close();
  });
  await gateway.ready;
  const withToken = async (claims: Record<string, unknown>) => {
    const c = await connect({ url, headers: { authorization: `Bearer ${as.token({ aud: audience, ...claims })}` } });
    clients.push(c);
    return c;
  };
  const carol = await withToken({ sub: 'carol', scope: 'admin' });
  const dave = await withToken({ sub: 'dave', team: 'support' });
  assert.deepEqual(await names(carol), ['local_ask', 'local_cancelled', 'local_echo', 'local_pid', 'local_wait']);
  assert.deepEqual(await names(dave), ['local_echo']);
  assert.equal(text(await dave.callTool('local_echo', { text: 'd' })), 'echo:d');
  await assert.rejects(dave.callTool('local_pid', {}), (e: Error & { code?: number }) => e.code === -32602);
  await assert.rejects(connect(url), /401/);
  await gateway.close();
  // Configured to keep them, the log has the call's arguments.
  const lines = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CallLogLine);
  assert.deepEqual(
    lines.map((l) => [l.caller, l.item, l.outcome, l.arguments]),
    [['dave', 'local_echo', 'ok', { text: 'd' }]],
  );
});
