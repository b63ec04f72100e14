// The gateway over real transports: three backends (an mcpkit stdio server, an official-SDK
// server over Streamable HTTP, an OAuth-protected mcpkit server taking a gateway-held token)
// behind one HTTP endpoint, used by clients of both eras and by an HTTP+SSE client; namespacing
// of tools, prompts and resources; two clients sharing one stdio backend, each answering its
// own elicitation while both calls are in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import type { McpClient } from '../../src/client/client.js';
import { SseClientTransport } from '../../src/transports/http/client/sse-legacy.js';
import { McpClient as Client } from '../../src/client/client.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { startStreamableServer } from '../fixtures/http/official-servers.js';
import { gatewayBackend as stdioBackend, latch, waitFor, patient } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

/** An mcpkit HTTP server that only takes the bearer tokens given (token -> principal). */
async function oauthBackend(tokens: Record<string, string>) {
  const server = new McpServer({ name: 'secure', version: '1.0.0' });
  server.tool('whoami', { description: 'Who the token says you are' }, (_args, ctx) => `principal:${ctx.authInfo?.principal}`);
  const seen: Array<string | undefined> = [];
  const running = await serve(server, {
    port: 0,
    oauth: {
      authorizationServers: ['https://auth.example.com'],
      verifyToken: (t) => {
        seen.push(t);
        return Object.hasOwn(tokens, t) ? { principal: tokens[t], scopes: [], token: t } : undefined;
      },
    },
  });
  return { url: running.url, seen, close: () => running.close() };
}

test('three backends behind one endpoint, for clients of both eras and HTTP+SSE', async (t) => {
  const official = await startStreamableServer();
  const secure = await oauthBackend({ s3cret: 'gateway-service' });
  const gateway = createGateway({
    servers: {
      local: stdioBackend('three'),
      official: { url: official.url },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${ENV} syntax, written literally
      secure: { url: secure.url, headers: { Authorization: 'Bearer ${SECURE_TOKEN}' } },
    },
    env: { SECURE_TOKEN: 's3cret' },
  });
  const running = await gateway.listen({ port: 0 });
  t.after(async () => {
    await gateway.close();
    await official.close();
    await secure.close();
  });
  await gateway.ready;
  const modern = await connect(running.url, { era: 'modern' });
  const handshake = await connect(running.url, { era: 'handshake' });
  const legacy = new Client({ name: 'legacy', version: '1' });
  await legacy.connect(new SseClientTransport({ url: running.url.replace(/\/mcp$/, '/sse') }));
  t.after(() => Promise.all([modern.close(), handshake.close(), legacy.close()]));
  assert.equal(modern.era, 'modern');
  assert.equal(handshake.era, 'handshake');

  for (const client of [modern, handshake, legacy]) {
    const names = (await client.listTools()).tools.map((x) => x.name).sort();
    for (const n of ['local_echo', 'local_ask', 'official_echo', 'official_count', 'secure_whoami']) assert.ok(names.includes(n), `${n} in ${names}`);
    const echoed = await client.callTool('local_echo', { text: 'hi' });
    assert.equal(text(echoed), 'echo:hi');
    // The stdio backend speaks 2026-07-28 to the gateway and names itself in every result's
    // _meta: that name and version stay behind the gateway, whatever era its caller speaks.
    assert.doesNotMatch(JSON.stringify(echoed), /gateway-backend/, JSON.stringify(echoed));
    assert.equal(text(await client.callTool('official_echo', { message: 'yo' })), 'yo');
    // The token is the gateway's, from its environment: the client never had it.
    assert.equal(text(await client.callTool('secure_whoami', {})), 'principal:gateway-service');
    const progress: number[] = [];
    const counted = await client.callTool('official_count', { n: 3 }, { onprogress: (p) => progress.push(p.progress) });
    assert.equal(text(counted), 'counted to 3');
    assert.deepEqual(progress, [1, 2, 3]);
  }
  assert.ok(
    secure.seen.every((s) => s === 's3cret'),
    'only the configured token reached the protected backend',
  );

  // An unknown name is the protocol's "unknown tool", not a tool failure.
  await assert.rejects(handshake.callTool('nope_echo', {}), (e: Error & { code?: number }) => e.code === -32602);

  // Prompts and resources are namespaced too, and read back through the gateway's URIs.
  for (const client of [modern, handshake]) {
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    assert.ok(prompts.includes('local_greet'), String(prompts));
    const prompt = await client.getPrompt('local_greet', { name: 'Ada' });
    assert.match(JSON.stringify(prompt.messages), /Please greet Ada/);
    const resources = (await client.listResources()).resources;
    const notes = resources.find((r) => r.uri === 'mcpgw://local/file:///notes.txt');
    assert.ok(notes, JSON.stringify(resources));
    const read = await client.readResource(notes.uri);
    assert.equal(read.contents[0].uri, notes.uri);
    assert.match(String((read.contents[0] as { text?: string }).text), /^notes of \d+$/);
  }
});

test('two clients on one shared stdio backend each answer their own elicitation, concurrently', async (t) => {
  for (const era of ['modern', 'handshake'] as const) {
    await t.test(`front clients of both eras; backend era: ${era === 'modern' ? '2026-07-28, shared' : 'handshake, per-client'}`, async () => {
      // The era is pinned: under load, the auto probe of a slow-starting stdio server can time out
      // and take it for a handshake-era one, which a shared backend cannot route questions for.
      const gateway = createGateway({
        servers: {
          local: stdioBackend(`elicit-${era}`, era === 'handshake' ? { ERA: 'handshake' } : {}, { session: era === 'modern' ? 'shared' : 'per-client', era }),
        },
      });
      // Per-client backends tell 2026-07-28 callers apart by identity: each client names itself.
      const running = await gateway.listen({ port: 0, authenticate: (req) => ({ principal: req.header('x-user') ?? '' }) });
      try {
        await gateway.ready;
        // Each handler waits until both are asked: the two calls are in flight together.
        const both = latch(2);
        const asker = (who: string) => async () => {
          both.arrive();
          await both.opened;
          return { action: 'accept' as const, content: { word: who } };
        };
        const as = (who: string) => ({ url: running.url, headers: { 'x-user': who } });
        const alice = await connect(as('alice'), { era: 'modern', elicitation: asker('alice') });
        const bob = await connect(as('bob'), { era: 'handshake', elicitation: asker('bob') });
        try {
          const [a, b] = await Promise.all([alice.callTool('local_ask', { question: 'A?' }), bob.callTool('local_ask', { question: 'B?' })]);
          assert.equal(text(a), 'A? -> alice');
          assert.equal(text(b), 'B? -> bob');
          const pids = new Set([text(await alice.callTool('local_pid', {})), text(await bob.callTool('local_pid', {}))]);
          // Shared: one process serves both; per-client: one each.
          assert.equal(pids.size, era === 'modern' ? 1 : 2);
        } finally {
          await Promise.all([alice.close(), bob.close()]);
        }
      } finally {
        await gateway.close();
      }
    });
  }
});

test('logs reach the calling client; a cancelled call is cancelled on the backend, which stays usable; a backend that never connects offers nothing', async (t) => {
  const gateway = createGateway({ servers: { local: stdioBackend('cancel'), gone: { url: 'http://127.0.0.1:9/mcp' } }, requestTimeoutMs: patient(20_000) });
  const running = await gateway.listen({ port: 0 });
  t.after(() => gateway.close());
  await gateway.ready;
  const client: McpClient = await connect(running.url, { era: 'handshake' });
  t.after(() => client.close());
  const controller = new AbortController();
  // A backend's log line during a call reaches the client that made it.
  const logs: unknown[] = [];
  client.on('notifications/message', (params: { data?: unknown }) => logs.push(params.data));
  assert.equal(text(await client.callTool('local_echo', { text: 'logged' })), 'echo:logged');
  await waitFor(() => logs.includes('echoing logged'));
  const started = client.callTool('local_wait', {}, { signal: controller.signal, onprogress: () => controller.abort() });
  await assert.rejects(started);
  // The backend saw the cancellation: its handler's signal fired.
  await waitFor(async () => text(await client.callTool('local_cancelled', {})) === '1');
  // The backend is still usable, so the cancelled call did not wedge it.
  assert.equal(text(await client.callTool('local_echo', { text: 'after' })), 'echo:after');
  const names = (await client.listTools()).tools.map((x) => x.name);
  assert.ok(!names.some((n) => n.startsWith('gone_')), 'a backend that never connected offers nothing');
});

test('a passthrough backend gets the token of each caller, on a connection of its own', async (t) => {
  const crm = await oauthBackend({ 'alice-token': 'alice', 'bob-token': 'bob' });
  const gateway = createGateway({ servers: { crm: { url: crm.url, auth: 'passthrough' } } });
  // The gateway's own front: it takes the same tokens (in production, its own OAuth or API keys).
  const running = await gateway.listen({
    port: 0,
    oauth: { authorizationServers: ['https://auth.example.com'], verifyToken: (token) => ({ principal: token.split('-')[0], scopes: [], token }) },
  });
  t.after(async () => {
    await gateway.close();
    await crm.close();
  });
  const as = (token: string, era: 'modern' | 'handshake') => connect({ url: running.url, headers: { Authorization: `Bearer ${token}` } }, { era });
  const alice = await as('alice-token', 'handshake');
  const bob = await as('bob-token', 'modern');
  t.after(() => Promise.all([alice.close(), bob.close()]));
  const [a, b] = await Promise.all([alice.callTool('crm_whoami', {}), bob.callTool('crm_whoami', {})]);
  assert.equal(text(a), 'principal:alice');
  assert.equal(text(b), 'principal:bob');
  assert.deepEqual([...new Set(crm.seen)].sort(), ['alice-token', 'bob-token']);
});
