// MRTR with the handler's own input keys (`ctx.elicit(params, { key })`), as the official
// conformance suite's input-required-result-* scenarios use them, and answers sent without a
// requestState (the ephemeral flow). Regression tests: answers were once checked by the key's
// `elicit-`/`sample-`/`roots-` prefix, so every answer under a custom key was -32602.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { assertError, Wire } from './helpers.js';

const ALL = { elicitation: {}, sampling: {}, roots: {} };
const NAME_FORM = {
  message: 'What is your name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
};
const ACCEPT = (content: Record<string, unknown>) => ({ action: 'accept', content });
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
const ROOTS = { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] };

function server(): McpServer {
  const s = new McpServer({ name: 'mrtr-keys', version: '1.0.0', onerror: () => {} });
  s.tool('named', async (_a, ctx) => {
    const r = await ctx.elicit(NAME_FORM, { key: 'user_name' });
    return `Hello, ${String(r.content?.name)}!`;
  });
  s.tool('all-three', async (_a, ctx) => {
    const [e, m, r] = await Promise.all([
      ctx.elicit(NAME_FORM, { key: 'user_name' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital?' } }], maxTokens: 10 }, { key: 'capital_question' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    return `${String(e.content?.name)} / ${(m.content as { text: string }).text} / ${r.map((x) => x.uri).join(',')}`;
  });
  s.tool('steps', async (_a, ctx) => {
    const a = await ctx.elicit(NAME_FORM, { key: 'step1' });
    const b = await ctx.elicit({ message: 'Color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } } } }, { key: 'step2' });
    return `${String(a.content?.name)} likes ${String(b.content?.color)}`;
  });
  s.tool('swallow', async (_a, ctx) => {
    try {
      await ctx.elicit(NAME_FORM, { key: 'user_name' });
    } catch {
      // A buggy handler that ignores the signal.
    }
    return 'returned anyway';
  });
  s.prompt('ctx-prompt', async (_a, ctx) => {
    const r = await ctx.elicit(
      { message: 'Context?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } } } },
      { key: 'user_context' },
    );
    return `in ${String(r.content?.context)}`;
  });
  return s;
}

test('answers under custom keys are accepted for elicitation, sampling, roots and prompts/get', async () => {
  const w = await Wire.connect(server());
  const r1 = await w.result('tools/call', { name: 'all-three', arguments: {} }, ALL);
  assert.equal(r1.resultType, 'input_required');
  assert.deepEqual(Object.keys(r1.inputRequests).sort(), ['capital_question', 'client_roots', 'user_name']);
  const done = await w.result(
    'tools/call',
    {
      name: 'all-three',
      arguments: {},
      inputResponses: { user_name: ACCEPT({ name: 'Alice' }), capital_question: SAMPLED, client_roots: ROOTS },
      requestState: r1.requestState,
    },
    ALL,
  );
  assert.equal(done.resultType, 'complete');
  assert.deepEqual(done.content, [{ type: 'text', text: 'Alice / Paris / file:///test/root' }]);

  const p1 = await w.result('prompts/get', { name: 'ctx-prompt' }, ALL);
  assert.deepEqual(Object.keys(p1.inputRequests), ['user_context']);
  const p2 = await w.result(
    'prompts/get',
    { name: 'ctx-prompt', inputResponses: { user_context: ACCEPT({ context: 'tests' }) }, requestState: p1.requestState },
    ALL,
  );
  assert.deepEqual(p2.messages, [{ role: 'user', content: { type: 'text', text: 'in tests' } }]);
});

test('custom keys across rounds: a new state each round, sealed answers cannot be replaced', async () => {
  const w = await Wire.connect(server());
  const r1 = await w.result('tools/call', { name: 'steps', arguments: {} }, ALL);
  assert.deepEqual(Object.keys(r1.inputRequests), ['step1']);
  const r2 = await w.result(
    'tools/call',
    { name: 'steps', arguments: {}, inputResponses: { step1: ACCEPT({ name: 'Al' }) }, requestState: r1.requestState },
    ALL,
  );
  assert.equal(r2.resultType, 'input_required');
  assert.deepEqual(Object.keys(r2.inputRequests), ['step2']);
  assert.notEqual(r2.requestState, r1.requestState);
  const r3 = await w.result(
    'tools/call',
    {
      name: 'steps',
      arguments: {},
      inputResponses: { step1: ACCEPT({ name: 'EVIL' }), step2: ACCEPT({ color: 'blue' }) },
      requestState: r2.requestState,
    },
    ALL,
  );
  assert.deepEqual(r3.content, [{ type: 'text', text: 'Al likes blue' }]);
});

test('an answer of the wrong kind for its key is -32602, judged by the method asked', async () => {
  const w = await Wire.connect(server());
  const r1 = await w.result('tools/call', { name: 'named', arguments: {} }, ALL);
  // A sampling result where an ElicitResult was asked for, and plain garbage.
  for (const [i, bad] of [SAMPLED, 12345, ROOTS].entries()) {
    const f = await w.modern('tools/call', { name: 'named', arguments: {}, inputResponses: { user_name: bad }, requestState: r1.requestState }, ALL, `bad${i}`);
    assertError(f, `bad${i}`, -32602, /user_name.*ElicitResult/);
  }
  // Without a requestState too, and even when the handler swallows the signal.
  assertError(await w.modern('tools/call', { name: 'named', arguments: {}, inputResponses: { user_name: 12345 } }, ALL, 'n1'), 'n1', -32602, /user_name/);
  assertError(await w.modern('tools/call', { name: 'swallow', arguments: {}, inputResponses: { user_name: 'x' } }, ALL, 'n2'), 'n2', -32602, /user_name/);
});

test('answers sent without a requestState count (ephemeral flow); unknown keys are ignored', async () => {
  const w = await Wire.connect(server());
  const done = await w.result(
    'tools/call',
    {
      name: 'named',
      arguments: {},
      inputResponses: { user_name: ACCEPT({ name: 'Alice' }), unknown_extra_key: ACCEPT({ foo: 'bar' }), another_unexpected: 7 },
    },
    ALL,
  );
  assert.equal(done.resultType, 'complete');
  assert.deepEqual(done.content, [{ type: 'text', text: 'Hello, Alice!' }]);
  // The wrong key only: asked again, never an error.
  for (const inputResponses of [{ wrong_key: ACCEPT({ data: 'wrong' }) }, null, 'nope']) {
    const again = await w.result('tools/call', { name: 'named', arguments: {}, inputResponses }, ALL);
    assert.equal(again.resultType, 'input_required', JSON.stringify(inputResponses));
    assert.deepEqual(Object.keys(again.inputRequests), ['user_name']);
  }
  // Keys named like Object.prototype members are not answers.
  const proto = await w.result('tools/call', { name: 'named', arguments: {}, inputResponses: { constructor: ACCEPT({ name: 'x' }) } }, ALL);
  assert.equal(proto.resultType, 'input_required');
});
