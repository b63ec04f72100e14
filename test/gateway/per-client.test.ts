// "per-client" backends keep callers apart. The attack: two 2026-07-28 callers without a
// credential (no session, no identity) used to share one backend connection, so one read what
// the other stored there. Now such callers get no per-client backend at all, a gateway served
// with nobody identified is refused at start, and two API keys get two backend sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import type { McpClient } from '../../src/client/client.js';
import type { McpError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { createPolicy } from '../../src/gateway/policy/create.js';
import { TargetError } from '../../src/pool/errors.js';
import { tempDir } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

/** A backend that keeps a value per session of its own (as a shell or a browser keeps state). */
async function memoryBackend() {
  const server = new McpServer({ name: 'memory', version: '1.0.0', modern: false });
  const ids = new WeakMap<object, number>();
  let sessions = 0;
  server.tool('remember', { input: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] } }, (args, ctx) => {
    ctx.session!.data.set('value', (args as { value: string }).value);
    return 'stored';
  });
  server.tool('recall', {}, (_args, ctx) => String(ctx.session!.data.get('value') ?? '(nothing)'));
  server.tool('session', {}, (_args, ctx) => {
    const s = ctx.session!;
    if (!ids.has(s)) ids.set(s, ++sessions);
    return String(ids.get(s));
  });
  return serve(server, { port: 0 });
}

const names = async (c: McpClient) => (await c.listTools()).tools.map((t) => t.name).sort();

test('two 2026-07-28 callers without a credential cannot reach each other through a per-client backend', async (t) => {
  const backend = await memoryBackend();
  const gateway = createGateway({ servers: { notes: { url: backend.url, session: 'per-client' } } });
  // Served without listen(): the start check is not there, what each request gets still holds.
  const running = await serve(gateway.server, { port: 0 });
  t.after(async () => {
    await running.close();
    await gateway.close();
    await backend.close();
  });
  const alice = await connect(running.url, { era: 'modern' });
  const mallory = await connect(running.url, { era: 'modern' });
  t.after(() => Promise.all([alice.close(), mallory.close()]));

  const stored = await alice.callTool('notes_remember', { value: 'alice-secret' }).then(text, (e: McpError) => `refused: ${e.message}`);
  const read = await mallory.callTool('notes_recall', {}).then(text, (e: McpError) => `refused: ${e.message}`);
  assert.doesNotMatch(read, /alice-secret/, `alice: ${stored}; mallory read: ${read}`);
  // They are not offered the per-client backend at all: nothing tells them apart.
  assert.deepEqual(await names(mallory), []);
  assert.match(read, /refused: Unknown tool: notes_recall/);

  // Handshake-era clients have sessions: each gets a backend session of its own.
  const one = await connect(running.url, { era: 'handshake' });
  const two = await connect(running.url, { era: 'handshake' });
  t.after(() => Promise.all([one.close(), two.close()]));
  assert.equal(text(await one.callTool('notes_remember', { value: 'one-secret' })), 'stored');
  assert.equal(text(await two.callTool('notes_recall', {})), '(nothing)');
  assert.equal(text(await one.callTool('notes_recall', {})), 'one-secret');
});

test('a gateway with per-client backends and nobody identified in front is refused at start, saying why', async (t) => {
  const backend = await memoryBackend();
  t.after(() => backend.close());
  const gateway = createGateway({ servers: { notes: { url: backend.url, session: 'per-client' }, other: { url: backend.url } } });
  t.after(() => gateway.close());
  await assert.rejects(gateway.listen({ port: 0 }), (e: Error) => {
    assert.ok(e instanceof TargetError, String(e));
    assert.match(e.message, /server "notes" is "per-client"/);
    assert.match(e.message, /no authentication in front \(API keys or OAuth\)/);
    assert.match(e.message, /policy\.auth/);
    return true;
  });
  // Without the 2026-07-28 era every client has a session: nothing to refuse.
  const handshakeOnly = createGateway({ servers: { notes: { url: backend.url, session: 'per-client' } }, server: { modern: false } });
  t.after(() => handshakeOnly.close());
  await (await handshakeOnly.listen({ port: 0 })).close();
  // A reload cannot bring a per-client backend to a gateway listening with nobody identified.
  const file = join(tempDir('per-client'), 'gateway.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { other: { url: backend.url } } }));
  const open = createGateway({ config: file });
  t.after(() => open.close());
  await open.listen({ port: 0 });
  writeFileSync(file, JSON.stringify({ mcpServers: { other: { url: backend.url }, notes: { url: backend.url, session: 'per-client' } } }));
  await assert.rejects(open.reload(), (e: Error) => e instanceof TargetError && /server "notes" is "per-client"/.test(e.message));
});

test('with API keys, each key has its own backend session; a keyless caller, where let in, has none', async (t) => {
  const backend = await memoryBackend();
  const policy = createPolicy(
    {
      auth: {
        apiKeys: {
          'env:ALICE_KEY': { id: 'alice' },
          [`sha256:${createHash('sha256').update('bob-key').digest('hex')}`]: { id: 'bob' },
        },
        anonymous: true,
      },
    },
    { env: { ALICE_KEY: 'alice-key' } },
  );
  const gateway = createGateway({ servers: { notes: { url: backend.url, session: 'per-client' } }, policy });
  const running = await gateway.listen({ port: 0, ...policy.front });
  t.after(async () => {
    await gateway.close();
    await backend.close();
  });
  const as = (key: string | undefined) => connect({ url: running.url, headers: key ? { 'x-api-key': key } : {} }, { era: 'modern' });
  const alice = await as('alice-key');
  const bob = await as('bob-key');
  const aliceAgain = await as('alice-key');
  const nobody = await as(undefined);
  t.after(() => Promise.all([alice, bob, aliceAgain, nobody].map((c) => c.close())));

  assert.equal(text(await alice.callTool('notes_remember', { value: 'alice-secret' })), 'stored');
  assert.equal(text(await bob.callTool('notes_recall', {})), '(nothing)');
  const sessions = [text(await alice.callTool('notes_session', {})), text(await bob.callTool('notes_session', {}))];
  assert.notEqual(sessions[0], sessions[1], 'two keys, two backend sessions');
  // The same key is the same caller: stateless requests find what it stored.
  assert.equal(text(await aliceAgain.callTool('notes_recall', {})), 'alice-secret');
  // Let in without a key, a caller has nobody to be told apart from: no per-client backend.
  assert.deepEqual(await names(nobody), []);
  await assert.rejects(nobody.callTool('notes_recall', {}), /Unknown tool/);
});
