// Multi round-trip requests, client side: input_required results are answered with the same
// handlers the handshake era uses, then retried with a new id, the original params, the
// answers and the exact requestState.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { ClientOptions } from '../../../src/client/options.js';
import type { ElicitResult } from '../../../src/protocol/params.js';
import { LocalError, McpError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { memoryClient, text } from './helpers.js';

const FORM = { type: 'object' as const, properties: { name: { type: 'string' as const, default: 'Ada' }, age: { type: 'integer' as const } } };
const SAMPLED = { role: 'assistant' as const, content: { type: 'text' as const, text: 'Paris' }, model: 'test-model' };

function server(): McpServer {
  const s = new McpServer({ name: 'mrtr', version: '1.0.0', onerror: () => {}, modern: { cache: { ttlMs: 60_000, scope: 'public' } } });
  s.tool('greet', { input: { greeting: z.string() } }, async ({ greeting }, ctx) => {
    const r = await ctx.elicit({ message: 'Who are you?', requestedSchema: FORM });
    return r.action === 'accept' ? `${greeting}, ${JSON.stringify(r.content)}` : `no (${r.action})`;
  });
  s.tool('two-steps', async (_a, ctx) => {
    const a = await ctx.elicit({ message: 'step 1', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });
    const b = await ctx.elicit({ message: 'step 2', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });
    return `${String(a.content?.v)}+${String(b.content?.v)}`;
  });
  s.tool('parallel', async (_a, ctx) => {
    const [e, m, roots] = await Promise.all([
      ctx.elicit({ message: 'name?', requestedSchema: FORM }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 10 }),
      ctx.roots(),
    ]);
    return `${String(e.content?.name)} / ${(m.content as { text: string }).text} / ${roots.map((r) => r.uri).join(',')}`;
  });
  s.tool('sample', async (_a, ctx) => {
    const m = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    return (m.content as { text: string }).text;
  });
  s.tool('many', async (_a, ctx) => {
    for (let i = 0; i < 5; i++) await ctx.elicit({ message: `q${i}`, requestedSchema: { type: 'object', properties: {} } });
    return 'done';
  });
  s.resource('ask', 'test://ask/{item}', async (uri, ctx) => {
    const r = await ctx.elicit({ message: `Read ${uri}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `${uri}: ${String(r.content?.ok)}`;
  });
  s.prompt('context', { args: { topic: z.string() } }, async ({ topic }, ctx) => {
    const r = await ctx.elicit({ message: 'Context?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } } } });
    return `${topic} in ${String(r.content?.context)}`;
  });
  return s;
}

const handlers = (calls: string[]): Partial<ClientOptions> => ({
  elicitation: (p): ElicitResult => {
    calls.push(`elicit:${p.message}`);
    if (p.message === 'step 1') return { action: 'accept', content: { v: 'a' } };
    if (p.message === 'step 2') return { action: 'accept', content: { v: 'b' } };
    if (p.message === 'Context?') return { action: 'accept', content: { context: 'Europe' } };
    if (String(p.message).startsWith('Read')) return { action: 'accept', content: { ok: true } };
    return { action: 'accept', content: { age: 36 } };
  },
  sampling: (p) => {
    calls.push(`sample:${(p.messages[0].content as { text: string }).text}`);
    return SAMPLED;
  },
  roots: [{ uri: 'file:///work', name: 'work' }],
});

test('tools/call: elicitation round trip with schema defaults; the retry is a new id with the exact state', async () => {
  const calls: string[] = [];
  const { client, wire } = await memoryClient(server(), handlers(calls));
  const r = await client.callTool('greet', { greeting: 'Hello' });
  // The handler answered {age: 36}; the form's default filled in the name, as in the handshake era.
  assert.equal(text(r), 'Hello, {"age":36,"name":"Ada"}');
  // The era's plumbing stays on the wire: the caller sees the handshake era's shape.
  assert.equal(r.resultType, undefined);
  assert.deepEqual(calls, ['elicit:Who are you?']);
  const [first, retry] = wire.requests('tools/call');
  const answer = wire.received.find((m) => m.id === first.id)!.result!;
  assert.equal(answer.resultType, 'input_required');
  assert.notEqual(retry.id, first.id);
  assert.deepEqual(retry.params!.arguments, { greeting: 'Hello' });
  assert.equal(retry.params!.name, 'greet');
  assert.equal(retry.params!.requestState, answer.requestState);
  assert.deepEqual(retry.params!.inputResponses, { 'elicit-1': { action: 'accept', content: { age: 36, name: 'Ada' } } });
  assert.deepEqual(retry.params!._meta, first.params!._meta);
  await client.close();
});

test('tools/call: two rounds, each answered in turn; state from round one is not resent in round two', async () => {
  const calls: string[] = [];
  const { client, wire } = await memoryClient(server(), handlers(calls));
  assert.equal(text(await client.callTool('two-steps')), 'a+b');
  assert.deepEqual(calls, ['elicit:step 1', 'elicit:step 2']);
  const sent = wire.requests('tools/call');
  assert.equal(sent.length, 3);
  assert.equal(new Set(sent.map((m) => m.id)).size, 3, 'every round has its own id');
  assert.equal(sent[0].params!.inputResponses, undefined);
  assert.deepEqual(Object.keys(sent[1].params!.inputResponses), ['elicit-1']);
  assert.deepEqual(Object.keys(sent[2].params!.inputResponses), ['elicit-2']);
  assert.notEqual(sent[1].params!.requestState, sent[2].params!.requestState);
  await client.close();
});

test('tools/call: elicitation, sampling and roots requested together are all answered in one retry', async () => {
  const calls: string[] = [];
  const { client, wire } = await memoryClient(server(), handlers(calls));
  assert.equal(text(await client.callTool('parallel')), 'Ada / Paris / file:///work');
  assert.deepEqual(calls.sort(), ['elicit:name?', 'sample:Capital of France?']);
  const sent = wire.requests('tools/call');
  assert.equal(sent.length, 2);
  assert.deepEqual(Object.keys(sent[1].params!.inputResponses).sort(), ['elicit-1', 'roots-1', 'sample-1']);
  assert.deepEqual(sent[1].params!.inputResponses['roots-1'], { roots: [{ uri: 'file:///work', name: 'work' }] });
  assert.deepEqual(sent[1].params!.inputResponses['sample-1'], SAMPLED);
  await client.close();
});

test('resources/read and prompts/get go through rounds too; MRTR results are never cached', async () => {
  const calls: string[] = [];
  const { client, wire } = await memoryClient(server(), handlers(calls));
  const read = await client.readResource('test://ask/x');
  assert.equal((read.contents[0] as { text: string }).text, 'test://ask/x: true');
  await client.readResource('test://ask/x');
  assert.equal(wire.requests('resources/read').length, 4, 'read twice, two rounds each: nothing served from cache');
  const prompt = await client.getPrompt('context', { topic: 'Rome' });
  assert.equal((prompt.messages[0].content as { text: string }).text, 'Rome in Europe');
  const sent = wire.requests('prompts/get');
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1].params!.arguments, { topic: 'Rome' });
  await client.close();
});

test('a requested kind with no handler fails the call with a LocalError naming the missing handler', async () => {
  // Declares sampling (so the server may ask) but has no handler to answer with.
  const { client, wire } = await memoryClient(server(), { capabilities: { sampling: {} } });
  await assert.rejects(client.callTool('sample'), (e: unknown) => e instanceof LocalError && e.kind === 'capability' && /sampling handler/.test(e.message));
  assert.equal(wire.requests('tools/call').length, 1, 'no retry without an answer');
  // Without declaring it, the server refuses up front (-32021): a server error, not ours.
  const bare = await memoryClient(server());
  await assert.rejects(bare.client.callTool('sample'), (e: unknown) => e instanceof McpError && e.code === -32021);
  await client.close();
  await bare.client.close();
});

test('rounds are bounded by maxInputRounds', async () => {
  const calls: string[] = [];
  const { client, wire } = await memoryClient(server(), { ...handlers(calls), maxInputRounds: 3 });
  await assert.rejects(client.callTool('many'), (e: unknown) => e instanceof LocalError && e.kind === 'protocol' && /maxInputRounds/.test(e.message));
  assert.equal(calls.length, 3);
  assert.equal(wire.requests('tools/call').length, 4);
  // With the default (8) the same call completes.
  const roomy = await memoryClient(server(), handlers([]));
  assert.equal(text(await roomy.client.callTool('many')), 'done');
  await client.close();
  await roomy.client.close();
});

test('an abort while a handler ignores its signal rejects the call at once (no second round)', async () => {
  const ctl = new AbortController();
  let asked!: () => void;
  const opened = new Promise<void>((r) => {
    asked = r;
  });
  const { client, wire } = await memoryClient(server(), {
    // A dialog nobody answers: it never settles and never looks at its signal.
    elicitation: () => {
      asked();
      return new Promise<never>(() => {});
    },
  });
  const call = client.callTool('greet', { greeting: 'x' }, { signal: ctl.signal });
  await opened;
  ctl.abort();
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
  assert.equal(wire.requests('tools/call').length, 1);
  await client.close();
});

test('an aborted call stops between rounds', async () => {
  const ctl = new AbortController();
  const { client, wire } = await memoryClient(server(), {
    elicitation: () => {
      ctl.abort();
      return { action: 'accept', content: {} };
    },
  });
  await assert.rejects(client.callTool('greet', { greeting: 'x' }, { signal: ctl.signal }), (e: unknown) => e instanceof LocalError && e.kind === 'aborted');
  assert.equal(wire.requests('tools/call').length, 1);
  await client.close();
});
