// Multi round-trip requests (SEP-2322): ctx.elicit/sample/roots in the 2026-07-28 era become
// `input_required` results; the client retries with inputResponses and the sealed requestState.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { assertError, errorSink, M, Wire } from './helpers.js';
import { ManualClock } from '../../support/index.js';

const INFO = { name: 'mrtr', version: '1.0.0' };
const ELICIT = { elicitation: {} };
const ALL = { elicitation: {}, sampling: {}, roots: {} };
const NAME_FORM = {
  message: 'What is your name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
};
const ACCEPT = (name: string) => ({ action: 'accept', content: { name } });
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };

function server(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  const s = new McpServer({ ...INFO, onerror: () => {}, ...options });
  s.tool('greet', { input: { greeting: z.string().optional() } }, async ({ greeting }, ctx) => {
    const r = await ctx.elicit(NAME_FORM);
    return r.action === 'accept' ? `${greeting ?? 'Hello'}, ${(r.content as { name: string }).name}!` : `no name (${r.action})`;
  });
  s.tool('two-steps', async (_a, ctx) => {
    const a = await ctx.elicit({ message: 'step 1', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });
    const b = await ctx.elicit({ message: 'step 2', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });
    return `${(a.content as { v: string }).v}+${(b.content as { v: string }).v}`;
  });
  s.tool('parallel', async (_a, ctx) => {
    const [e, m] = await Promise.all([
      ctx.elicit(NAME_FORM),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 }),
    ]);
    return `${(e.content as { name: string }).name} / ${(m.content as { text: string }).text}`;
  });
  s.tool('roots', async (_a, ctx) => {
    const roots = await ctx.roots();
    return roots.map((r) => r.uri).join(',');
  });
  s.tool('sample-tools', async (_a, ctx) => {
    await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'x' } }],
      maxTokens: 5,
      tools: [{ name: 't', inputSchema: { type: 'object' } }],
    });
    return 'done';
  });
  s.tool('url', async (_a, ctx) => {
    await ctx.elicit({ mode: 'url', message: 'Open this', url: 'https://example.com/auth', elicitationId: 'e1' } as never);
    return 'done';
  });
  s.tool('swallow', async (_a, ctx) => {
    try {
      await ctx.elicit(NAME_FORM);
    } catch {
      // A buggy handler: it must let the signal propagate.
    }
    return 'returned anyway';
  });
  s.resource('ask', 'test://ask/{item}', async (uri, ctx) => {
    const r = await ctx.elicit({ message: `Read ${uri}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `${uri}: ${(r.content as { ok: boolean }).ok}`;
  });
  s.prompt('context', { args: { topic: z.string() } }, async ({ topic }, ctx) => {
    const r = await ctx.elicit({ message: 'Context?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } } } });
    return `${topic} in ${(r.content as { context: string }).context}`;
  });
  return s;
}

/** Round one of a tools/call: asserts the exact input_required shape and returns the state. */
async function firstRound(
  w: Wire,
  name: string,
  caps: Record<string, unknown>,
  args: Record<string, unknown> = {},
): Promise<{ state: string; requests: Record<string, any> }> {
  const r = await w.result('tools/call', { name, arguments: args }, caps);
  assert.equal(r.resultType, 'input_required', JSON.stringify(r));
  assert.deepEqual(Object.keys(r).sort(), ['_meta', 'inputRequests', 'requestState', 'resultType']);
  assert.equal(typeof r.requestState, 'string');
  assert.deepEqual(r._meta, { [M.serverInfo]: INFO });
  return { state: r.requestState, requests: r.inputRequests };
}

test('tools/call: input_required with the exact request, then a retry with answers completes', async () => {
  const w = await Wire.connect(server());
  const { state, requests } = await firstRound(w, 'greet', ELICIT, { greeting: 'Hi' });
  assert.deepEqual(requests, { 'elicit-1': { method: 'elicitation/create', params: NAME_FORM } });
  // No elicitation/create request ever went on the wire: only the response.
  assert.equal(w.frames.filter((f) => f.method !== undefined).length, 0);
  const done = await w.result(
    'tools/call',
    { name: 'greet', arguments: { greeting: 'Hi' }, inputResponses: { 'elicit-1': ACCEPT('Alice') }, requestState: state },
    ELICIT,
  );
  assert.deepEqual(done, { content: [{ type: 'text', text: 'Hi, Alice!' }], resultType: 'complete', _meta: { [M.serverInfo]: INFO } });
});

test('two sequential elicits take two rounds, with a new requestState each time', async () => {
  const w = await Wire.connect(server());
  const r1 = await firstRound(w, 'two-steps', ELICIT);
  assert.deepEqual(Object.keys(r1.requests), ['elicit-1']);
  assert.equal(r1.requests['elicit-1'].params.message, 'step 1');
  const r2 = await w.result(
    'tools/call',
    { name: 'two-steps', arguments: {}, inputResponses: { 'elicit-1': { action: 'accept', content: { v: 'a' } } }, requestState: r1.state },
    ELICIT,
  );
  assert.equal(r2.resultType, 'input_required');
  assert.deepEqual(Object.keys(r2.inputRequests), ['elicit-2']);
  assert.equal(r2.inputRequests['elicit-2'].params.message, 'step 2');
  assert.notEqual(r2.requestState, r1.state);
  // Round three answers only the new key: the first answer lives in the sealed state.
  const r3 = await w.result(
    'tools/call',
    { name: 'two-steps', arguments: {}, inputResponses: { 'elicit-2': { action: 'accept', content: { v: 'b' } } }, requestState: r2.requestState },
    ELICIT,
  );
  assert.equal(r3.resultType, 'complete');
  assert.deepEqual(r3.content, [{ type: 'text', text: 'a+b' }]);
  // An answer re-sent for an earlier key cannot overwrite the sealed one.
  const r3b = await w.result(
    'tools/call',
    {
      name: 'two-steps',
      arguments: {},
      inputResponses: { 'elicit-1': { action: 'accept', content: { v: 'EVIL' } }, 'elicit-2': { action: 'accept', content: { v: 'b' } } },
      requestState: r2.requestState,
    },
    ELICIT,
  );
  assert.deepEqual(r3b.content, [{ type: 'text', text: 'a+b' }]);
});

test('parallel elicit and sample are asked in one round', async () => {
  const w = await Wire.connect(server());
  const { state, requests } = await firstRound(w, 'parallel', ALL);
  assert.deepEqual(requests, {
    'elicit-1': { method: 'elicitation/create', params: NAME_FORM },
    'sample-1': {
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
    },
  });
  // Only one answered: the other is asked again, never an error.
  const partial = await w.result('tools/call', { name: 'parallel', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('Bob') }, requestState: state }, ALL);
  assert.equal(partial.resultType, 'input_required');
  assert.deepEqual(Object.keys(partial.inputRequests), ['sample-1']);
  const done = await w.result(
    'tools/call',
    { name: 'parallel', arguments: {}, inputResponses: { 'sample-1': SAMPLED }, requestState: partial.requestState },
    ALL,
  );
  assert.deepEqual(done.content, [{ type: 'text', text: 'Bob / Paris' }]);
  // Both at once work as well.
  const both = await w.result(
    'tools/call',
    { name: 'parallel', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('Cy'), 'sample-1': SAMPLED }, requestState: state },
    ALL,
  );
  assert.deepEqual(both.content, [{ type: 'text', text: 'Cy / Paris' }]);
});

test('unknown inputResponses keys are ignored; a missing answer asks again', async () => {
  const w = await Wire.connect(server());
  const { state } = await firstRound(w, 'greet', ELICIT);
  const extra = await w.result(
    'tools/call',
    {
      name: 'greet',
      arguments: {},
      inputResponses: { 'elicit-1': ACCEPT('Ann'), unknown_extra_key: { x: 1 }, another_unexpected: 'y' },
      requestState: state,
    },
    ELICIT,
  );
  assert.equal(extra.resultType, 'complete');
  assert.deepEqual(extra.content, [{ type: 'text', text: 'Hello, Ann!' }]);
  for (const inputResponses of [{ wrong_key: ACCEPT('x') }, {}, null, undefined]) {
    const again = await w.result('tools/call', { name: 'greet', arguments: {}, inputResponses, requestState: state }, ELICIT);
    assert.equal(again.resultType, 'input_required', `inputResponses ${JSON.stringify(inputResponses)}`);
    assert.deepEqual(Object.keys(again.inputRequests), ['elicit-1']);
  }
});

test('an answer of the wrong shape is -32602, never a complete result', async () => {
  const w = await Wire.connect(server());
  const { state } = await firstRound(w, 'greet', ELICIT);
  for (const bad of [12345, 'accept', { action: 'maybe' }, [ACCEPT('x')]]) {
    const f = await w.modern('tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicit-1': bad }, requestState: state }, ELICIT, 'bad');
    assertError(f, 'bad', -32602, /elicit-1/);
  }
  const p = await firstRound(w, 'parallel', ALL);
  const f = await w.modern(
    'tools/call',
    { name: 'parallel', arguments: {}, inputResponses: { 'sample-1': { text: 'Paris' } }, requestState: p.state },
    ALL,
    's',
  );
  assertError(f, 's', -32602, /sample-1/);
  const r = await firstRound(w, 'roots', ALL);
  const g = await w.modern('tools/call', { name: 'roots', arguments: {}, inputResponses: { 'roots-1': { roots: 'nope' } }, requestState: r.state }, ALL, 'r');
  assertError(g, 'r', -32602, /roots-1/);
});

test('roots travel through MRTR', async () => {
  const w = await Wire.connect(server());
  const { state, requests } = await firstRound(w, 'roots', { roots: {} });
  assert.deepEqual(requests, { 'roots-1': { method: 'roots/list' } });
  const done = await w.result(
    'tools/call',
    { name: 'roots', arguments: {}, inputResponses: { 'roots-1': { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] } }, requestState: state },
    { roots: {} },
  );
  assert.deepEqual(done.content, [{ type: 'text', text: 'file:///test/root' }]);
});

test('resources/read (template) and prompts/get use MRTR too', async () => {
  const w = await Wire.connect(server());
  const r1 = await w.result('resources/read', { uri: 'test://ask/7' }, ELICIT);
  assert.equal(r1.resultType, 'input_required');
  assert.deepEqual(r1.inputRequests['elicit-1'].method, 'elicitation/create');
  const r2 = await w.result(
    'resources/read',
    { uri: 'test://ask/7', inputResponses: { 'elicit-1': { action: 'accept', content: { ok: true } } }, requestState: r1.requestState },
    ELICIT,
  );
  assert.deepEqual(r2, {
    contents: [{ uri: 'test://ask/7', text: 'test://ask/7: true' }],
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [M.serverInfo]: INFO },
  });
  const p1 = await w.result('prompts/get', { name: 'context', arguments: { topic: 'MCP' } }, ELICIT);
  assert.equal(p1.resultType, 'input_required');
  const p2 = await w.result(
    'prompts/get',
    {
      name: 'context',
      arguments: { topic: 'MCP' },
      inputResponses: { 'elicit-1': { action: 'accept', content: { context: 'tests' } } },
      requestState: p1.requestState,
    },
    ELICIT,
  );
  assert.deepEqual(p2, {
    messages: [{ role: 'user', content: { type: 'text', text: 'MCP in tests' } }],
    resultType: 'complete',
    _meta: { [M.serverInfo]: INFO },
  });
});

test('requestState: tampered, from another method, for other params, expired, or another principal is -32602', async () => {
  const s = server({ modern: { stateTtlMs: 60_000 } });
  s.prompt('greet', { args: { greeting: z.string().optional() } }, async (_a, ctx) => {
    await ctx.elicit(NAME_FORM);
    return 'p';
  });
  const w = await Wire.connect(s);
  const { state } = await firstRound(w, 'greet', ELICIT);
  const answers = { 'elicit-1': ACCEPT('Eve') };
  const call = (params: Record<string, unknown>, id: string) =>
    w.modern('tools/call', { name: 'greet', arguments: {}, inputResponses: answers, ...params }, ELICIT, id);
  assertError(await call({ requestState: `${state}-TAMPERED` }, 't1'), 't1', -32602, /requestState/);
  const [body, mac] = state.split('.');
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), a: { 'elicit-1': ACCEPT('Mallory') } })).toString(
    'base64url',
  );
  assertError(await call({ requestState: `${forged}.${mac}` }, 't2'), 't2', -32602);
  assertError(await call({ requestState: 42 }, 't3'), 't3', -32602);
  assertError(await call({ requestState: '' }, 't4'), 't4', -32602);
  // Same params, other method: a prompt of the same name.
  const other = await w.modern('prompts/get', { name: 'greet', arguments: {}, inputResponses: answers, requestState: state }, ELICIT, 't5');
  assertError(other, 't5', -32602);
  // Same method, other params.
  const params = await w.modern('tools/call', { name: 'greet', arguments: { greeting: 'Yo' }, inputResponses: answers, requestState: state }, ELICIT, 't6');
  assertError(params, 't6', -32602);
  // The untouched state still works (and _meta differences do not matter).
  const ok = await w.modern(
    'tools/call',
    { name: 'greet', arguments: {}, inputResponses: answers, requestState: state, _meta: { progressToken: 'p' } },
    ELICIT,
    'ok',
  );
  assert.equal(ok.result?.resultType, 'complete');
});

test('an expired requestState is -32602', async () => {
  const clock = new ManualClock();
  const w = await Wire.connect(server({ modern: { stateTtlMs: 1, clock } }));
  const { state } = await firstRound(w, 'greet', ELICIT);
  clock.advance(2);
  const f = await w.modern('tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('Old') }, requestState: state }, ELICIT, 'exp');
  assertError(f, 'exp', -32602, /expired/);
});

test('a requestState is bound to the principal that got it', async () => {
  const s = server();
  const a = await Wire.connect(s, { authInfo: { principal: 'a' } });
  const b = await Wire.connect(s, { authInfo: { principal: 'b' } });
  const anon = await Wire.connect(s);
  const { state } = await firstRound(a, 'greet', ELICIT);
  const retry = { name: 'greet', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('A') }, requestState: state };
  assertError(await b.modern('tools/call', retry, ELICIT, 'b1'), 'b1', -32602);
  assertError(await anon.modern('tools/call', retry, ELICIT, 'n1'), 'n1', -32602);
  // Another connection of the same principal may finish it: there is no session.
  const a2 = await Wire.connect(s, { authInfo: { principal: 'a' } });
  assert.equal((await a2.modern('tools/call', retry, ELICIT, 'a2')).result?.resultType, 'complete');
});

test('a state sealed by one instance opens on another with the same secret, not with another', async () => {
  const one = await Wire.connect(server({ modern: { stateSecret: 'shared-secret' } }));
  const two = await Wire.connect(server({ modern: { stateSecret: 'shared-secret' } }));
  const three = await Wire.connect(server({ modern: { stateSecret: 'other-secret' } }));
  const { state } = await firstRound(one, 'greet', ELICIT);
  const retry = { name: 'greet', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('Z') }, requestState: state };
  assert.equal((await two.modern('tools/call', retry, ELICIT, 1)).result?.resultType, 'complete');
  assertError(await three.modern('tools/call', retry, ELICIT, 2), 2, -32602);
});

test('undeclared capabilities are -32021 with data.requiredCapabilities', async () => {
  const w = await Wire.connect(server());
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['greet', {}, { elicitation: {} }],
    ['greet', { sampling: {} }, { elicitation: {} }],
    ['roots', { elicitation: {} }, { roots: {} }],
    ['sample-tools', { elicitation: {} }, { sampling: {} }],
    ['sample-tools', { sampling: {} }, { sampling: { tools: {} } }],
    ['url', { elicitation: {} }, { elicitation: { url: {} } }],
    ['greet', { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    // One answer in hand does not hide a missing capability for the next question.
    ['parallel', { elicitation: {} }, { sampling: {} }],
  ];
  let id = 0;
  for (const [name, caps, required] of cases) {
    const f = await w.modern('tools/call', { name, arguments: {} }, caps, ++id);
    const e = assertError(f, id, -32021);
    assert.deepEqual(e.data, { requiredCapabilities: required }, `${name} with ${JSON.stringify(caps)}`);
  }
  // Declared ones are fine.
  assert.equal((await w.result('tools/call', { name: 'sample-tools', arguments: {} }, { sampling: { tools: {} } })).resultType, 'input_required');
  assert.equal((await w.result('tools/call', { name: 'url', arguments: {} }, { elicitation: { url: {} } })).resultType, 'input_required');
});

test('capabilities are read per request: the retry must declare them again', async () => {
  const w = await Wire.connect(server());
  const { state } = await firstRound(w, 'greet', ELICIT);
  const f = await w.modern('tools/call', { name: 'greet', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('Q') }, requestState: state }, {}, 'nocap');
  assertError(f, 'nocap', -32021);
});

test('a handler that catches around ctx.elicit gets its answer: the call waits, nothing is thrown to swallow', async () => {
  const sink = errorSink();
  const w = await Wire.connect(server({ onerror: sink.onerror }));
  const r = await w.result('tools/call', { name: 'swallow', arguments: {} }, ELICIT);
  assert.equal(r.resultType, 'input_required');
  assert.deepEqual(Object.keys(r.inputRequests), ['elicit-1']);
  const done = await w.result(
    'tools/call',
    { name: 'swallow', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('x') }, requestState: r.requestState },
    ELICIT,
  );
  assert.deepEqual(done.content, [{ type: 'text', text: 'returned anyway' }]);
  assert.deepEqual(sink.errors, []);
});

test('a handler that returns while a question is open still yields input_required, with a warning', async () => {
  const sink = errorSink();
  const s = server({ onerror: sink.onerror });
  s.tool('forget', async (_a, ctx) => {
    void ctx.elicit(NAME_FORM);
    return 'returned anyway';
  });
  const w = await Wire.connect(s);
  const r = await w.result('tools/call', { name: 'forget', arguments: {} }, ELICIT);
  assert.equal(r.resultType, 'input_required');
  assert.deepEqual(Object.keys(r.inputRequests), ['elicit-1']);
  assert.equal(sink.errors.length, 1);
  assert.match(sink.errors[0].message, /returned while its ctx\.elicit\/sample\/roots still waited/);
  const done = await w.result(
    'tools/call',
    { name: 'forget', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('x') }, requestState: r.requestState },
    ELICIT,
  );
  assert.deepEqual(done.content, [{ type: 'text', text: 'returned anyway' }]);
  assert.equal(sink.errors.length, 1);
});

test('ctx.elicit where MRTR is not allowed is a clear error, never input_required', async () => {
  const s = server();
  s.resourceTemplate(
    'listed',
    'test://listed/{x}',
    {
      list: async (ctx) => {
        await ctx.elicit(NAME_FORM);
        return [];
      },
      complete: {
        x: async (_v, _c, ctx) => {
          await ctx.sample({ messages: [], maxTokens: 1 });
          return [];
        },
      },
    },
    () => 'x',
  );
  const w = await Wire.connect(s);
  const list = await w.modern('resources/list', {}, ALL, 'l');
  const e = assertError(list, 'l', -32603, /resources\/list/);
  assert.match(e.message, /tools\/call, resources\/read and prompts\/get/);
  const comp = await w.modern('completion/complete', { ref: { type: 'ref/resource', uri: 'test://listed/{x}' }, argument: { name: 'x', value: '' } }, ALL, 'c');
  assertError(comp, 'c', -32603, /completion\/complete/);
  // tools/list and prompts/list never answer input_required.
  for (const m of ['tools/list', 'prompts/list']) assert.equal((await w.result(m, {}, ALL)).resultType, 'complete');
});

test("a form the client cannot render is the server's bug: a tool error, not a question", async () => {
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.tool('bad-form', async (_a, ctx) => {
    await ctx.elicit({ message: 'nested', requestedSchema: { type: 'object', properties: { o: { type: 'object' } } } as never });
    return 'x';
  });
  const w = await Wire.connect(s);
  const r = await w.result('tools/call', { name: 'bad-form', arguments: {} }, ELICIT);
  assert.equal(r.resultType, 'complete');
  assert.equal(r.isError, true);
});

test('a handler that changes its arguments in place before asking still gets its retry', async () => {
  // A JSON Schema hands the handler the request's own arguments object; the state is bound to
  // the params as they arrived, not as the handler left them.
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.tool('defaults', { input: { type: 'object', properties: { limit: { type: 'number' } } } }, async (args, ctx) => {
    (args as { limit?: number }).limit ??= 10;
    const r = await ctx.elicit(NAME_FORM);
    return `${(r.content as { name: string }).name}: ${(args as { limit: number }).limit}`;
  });
  const w = await Wire.connect(s);
  const { state } = await firstRound(w, 'defaults', ELICIT);
  const done = await w.result('tools/call', { name: 'defaults', arguments: {}, inputResponses: { 'elicit-1': ACCEPT('Bo') }, requestState: state }, ELICIT);
  assert.deepEqual(done.content, [{ type: 'text', text: 'Bo: 10' }]);
});

test('a result with its own _meta keeps it, beside serverInfo; a constant result is never changed', async () => {
  const constant = { content: [{ type: 'text' as const, text: 'c' }], _meta: { 'x.example/k': 1 } };
  const s = new McpServer({ ...INFO, onerror: () => {} });
  s.tool('constant', () => constant);
  const w = await Wire.connect(s);
  for (let i = 0; i < 2; i++) {
    const r = await w.result('tools/call', { name: 'constant', arguments: {} }, {});
    assert.deepEqual(r, { content: [{ type: 'text', text: 'c' }], _meta: { 'x.example/k': 1, [M.serverInfo]: INFO }, resultType: 'complete' });
  }
  assert.deepEqual(constant, { content: [{ type: 'text', text: 'c' }], _meta: { 'x.example/k': 1 } });
});
