// Sampling through the gateway: a backend tool asks the model (ctx.sample) in the middle of a call,
// and the question goes back to the client whose call it is. Two clients (one of each era) call
// the same backend at once, each handler waiting until both are asked, so a question sent to the
// wrong client (or to both) would show in the answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { connect } from '../../src/client/connect.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { latch } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

/** An HTTP backend whose `think` tool asks the caller's model and returns what it said. */
async function samplingBackend(era: 'modern' | 'handshake') {
  const server = new McpServer({ name: 'thinker', version: '1.0.0', ...(era === 'handshake' ? { modern: false as const } : {}) });
  server.tool('think', { description: 'Asks the model', input: { topic: z.string() } }, async ({ topic }, ctx) => {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: topic } }], maxTokens: 50 });
    const content = answer.content as { type: string; text?: string };
    return `${topic} -> ${content.text} (${answer.model})`;
  });
  return serve(server, { port: 0 });
}

test('two clients on one backend each answer their own sampling request, concurrently', async (t) => {
  for (const era of ['modern', 'handshake'] as const) {
    await t.test(`front clients of both eras; backend era: ${era === 'modern' ? '2026-07-28, shared' : 'handshake, per-client'}`, async () => {
      const backend = await samplingBackend(era);
      // A handshake-era backend's question names no call: with two clients in flight on one
      // shared connection it cannot be routed, so that backend gets a connection per client.
      const gateway = createGateway({ servers: { b: { url: backend.url, era, session: era === 'modern' ? 'shared' : 'per-client' } } });
      // Per-client backends tell 2026-07-28 callers apart by identity: each client names itself.
      const running = await gateway.listen({ port: 0, authenticate: (req) => ({ principal: req.header('x-user') ?? '' }) });
      try {
        await gateway.ready;
        const both = latch(2);
        const asked: Record<string, string[]> = { alice: [], bob: [] };
        const model = (who: 'alice' | 'bob') => async (params: { messages: Array<{ content: unknown }> }) => {
          asked[who].push((params.messages[0].content as { text: string }).text);
          both.arrive();
          await both.opened;
          return { role: 'assistant' as const, content: { type: 'text' as const, text: `${who}'s model` }, model: `${who}-llm` };
        };
        const as = (who: string) => ({ url: running.url, headers: { 'x-user': who } });
        const alice = await connect(as('alice'), { era: 'modern', sampling: model('alice') });
        const bob = await connect(as('bob'), { era: 'handshake', sampling: model('bob') });
        try {
          const [a, b] = await Promise.all([alice.callTool('b_think', { topic: 'A' }), bob.callTool('b_think', { topic: 'B' })]);
          assert.equal(text(a), "A -> alice's model (alice-llm)");
          assert.equal(text(b), "B -> bob's model (bob-llm)");
          assert.deepEqual(asked, { alice: ['A'], bob: ['B'] });
        } finally {
          await Promise.all([alice.close(), bob.close()]);
        }
      } finally {
        await gateway.close();
        await backend.close();
      }
    });
  }
});
