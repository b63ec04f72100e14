// The OpenAI-compatible provider against a scripted Chat Completions endpoint over real HTTP:
// streaming, parallel tool calls in fragments, the conversation mapping, non-streamed answers,
// strict mode and the Gemini dialect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelEvent, ModelMessage, ModelTool } from '../../../src/host/model.js';
import { OpenAIProvider } from '../../../src/host/providers/index.js';
import { errorTurn, startScriptedOpenAI, textTurn, toolCallsTurn } from '../../support/llm.js';

const echo: ModelTool = {
  name: 'echo',
  description: 'Echoes text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};
const add: ModelTool = {
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
};
const user = (content: string): ModelMessage => ({ role: 'user', content });

test('openai: streams text in deltas, reports usage, model and stop reason', async () => {
  const llm = await startScriptedOpenAI([
    textTurn('Hello there, streaming world!', { chunkSize: 2, usage: { input: 12, output: 7 }, model: 'gpt-scripted-0613' }),
  ]);
  try {
    const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'gpt-scripted', apiKey: 'sk-test', headers: { 'openai-organization': 'org-1' } });
    const events: ModelEvent[] = [];
    const r = await provider.complete({ messages: [{ role: 'system', content: 'be brief' }, user('hi')], tools: [] }, (e) => events.push(e));
    assert.equal(r.text, 'Hello there, streaming world!');
    assert.equal(r.stopReason, 'end');
    assert.deepEqual(r.usage, { inputTokens: 12, outputTokens: 7 });
    assert.equal(r.model, 'gpt-scripted-0613');
    assert.deepEqual(r.toolCalls, []);
    const deltas = events.map((e) => (e.type === 'text' ? e.delta : '?'));
    assert.ok(deltas.length >= 14, `many small deltas, got ${deltas.length}`);
    assert.equal(deltas.join(''), r.text);
    const [req] = llm.requests;
    assert.equal(req.path, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer sk-test');
    assert.equal(req.headers['openai-organization'], 'org-1');
    assert.deepEqual(req.body, {
      model: 'gpt-scripted',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    llm.assertNoErrors();
  } finally {
    await llm.close();
  }
});

for (const interleave of [false, true]) {
  test(`openai: parallel tool calls with arguments in fragments${interleave ? ', interleaved' : ''}`, async () => {
    const llm = await startScriptedOpenAI([
      (req) => {
        assert.deepEqual(req.body.tools, [
          { type: 'function', function: { name: 'echo', description: 'Echoes text', parameters: echo.inputSchema } },
          { type: 'function', function: { name: 'add', parameters: add.inputSchema } },
        ]);
        assert.equal(req.body.tool_choice, 'auto');
        return toolCallsTurn(
          [
            { id: 'call_A', name: 'echo', arguments: { text: 'a "quoted" ünïcode text' } },
            { id: 'call_B', name: 'add', arguments: { a: 1.5, b: -2 } },
          ],
          { text: 'Let me check.', chunkSize: 2, interleave },
        );
      },
    ]);
    try {
      const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'm' });
      const events: ModelEvent[] = [];
      const r = await provider.complete({ messages: [user('go')], tools: [echo, add], toolChoice: 'auto' }, (e) => events.push(e));
      llm.assertNoErrors();
      assert.equal(r.stopReason, 'tool_calls');
      assert.equal(r.text, 'Let me check.');
      assert.deepEqual(
        r.toolCalls.map((c) => ({ ...c, arguments: JSON.parse(c.arguments) })),
        [
          { id: 'call_A', name: 'echo', arguments: { text: 'a "quoted" ünïcode text' } },
          { id: 'call_B', name: 'add', arguments: { a: 1.5, b: -2 } },
        ],
      );
      const calls = events.filter((e) => e.type !== 'text');
      assert.deepEqual(
        calls.map((e) => (e.type === 'tool_call' ? `call ${e.call.id}` : e.type === 'tool_call_start' ? `start ${e.id} ${e.name}` : '')),
        ['start call_A echo', 'start call_B add', 'call call_A', 'call call_B'],
      );
    } finally {
      await llm.close();
    }
  });
}

test('openai: the conversation mapping (images, tool results, errors, images a tool returned)', async () => {
  const png = 'iVBORw0KGgo=';
  const llm = await startScriptedOpenAI([textTurn('seen')]);
  try {
    const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'm' });
    await provider.complete({
      tools: [echo],
      maxTokens: 100,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', data: png, mimeType: 'image/png' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
          ],
        },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'c1', name: 'echo', arguments: '{"text":"x"}' },
            { id: 'c2', name: 'shot', arguments: '' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', name: 'echo', content: [{ type: 'text', text: 'no such thing' }], isError: true },
        {
          role: 'tool',
          toolCallId: 'c2',
          name: 'shot',
          content: [
            { type: 'text', text: 'a screenshot' },
            { type: 'image', data: png, mimeType: 'image/png' },
          ],
        },
        { role: 'assistant', content: 'Here it is.' },
      ],
    });
    const body = llm.requests[0].body;
    assert.equal(body.max_tokens, 100, 'max_tokens for a compatible server');
    assert.equal(body.temperature, 0.2);
    assert.equal(body.tool_choice, undefined, 'no tool_choice unless asked');
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
      { role: 'user', content: 'one\ntwo' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } },
          { id: 'c2', type: 'function', function: { name: 'shot', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: no such thing' },
      { role: 'tool', tool_call_id: 'c2', content: 'a screenshot\n[1 image returned by this call follow in the next user message]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image returned by tool call c2 (shot):' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
      { role: 'assistant', content: 'Here it is.' },
    ]);
  } finally {
    await llm.close();
  }
});

test('openai: a non-streamed answer (stream: false), and max_completion_tokens for api.openai.com', async () => {
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ id: 'c9', name: 'echo', arguments: { text: 'hi' } }, { text: 'calling', usage: { input: 3, output: 4 } }),
  ]);
  try {
    const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'm', stream: false, maxTokensField: 'max_completion_tokens' });
    const events: ModelEvent[] = [];
    const r = await provider.complete({ messages: [user('x')], tools: [echo], maxTokens: 9, toolChoice: 'required' }, (e) => events.push(e));
    assert.equal(llm.requests[0].body.stream, false);
    assert.equal(llm.requests[0].body.stream_options, undefined);
    assert.equal(llm.requests[0].body.max_completion_tokens, 9);
    assert.equal(llm.requests[0].body.tool_choice, 'required');
    assert.deepEqual(r, {
      text: 'calling',
      toolCalls: [{ id: 'c9', name: 'echo', arguments: '{"text":"hi"}' }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 3, outputTokens: 4 },
      model: 'm',
    });
    assert.deepEqual(
      events.map((e) => e.type),
      ['text', 'tool_call_start', 'tool_call'],
    );
  } finally {
    await llm.close();
  }
  assert.equal(new OpenAIProvider({ model: 'gpt-5' }).body({ messages: [], tools: [], maxTokens: 5 }).max_completion_tokens, 5);
});

test('openai: strict mode sends strict schemas and removes the nulls of optional arguments', async () => {
  const provider = new OpenAIProvider({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', strict: true });
  const search: ModelTool = {
    name: 'search',
    inputSchema: provider.sanitizeSchema({ type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } }, required: ['q'] }),
  };
  const free: ModelTool = { name: 'free', inputSchema: provider.sanitizeSchema({ type: 'object', properties: { data: { type: 'object' } } }) };
  const llm = await startScriptedOpenAI([
    (req) => {
      const [s, f] = req.body.tools;
      assert.equal(s.function.strict, true);
      assert.deepEqual(s.function.parameters, {
        type: 'object',
        properties: { q: { type: 'string' }, limit: { type: ['integer', 'null'] } },
        required: ['q', 'limit'],
        additionalProperties: false,
      });
      assert.equal(f.function.strict, undefined, 'a free-form object cannot be strict: sent without it');
      return toolCallsTurn([
        { name: 'search', arguments: { q: 'mcp', limit: null } },
        { name: 'free', arguments: { data: null } },
      ]);
    },
  ]);
  try {
    const strictProvider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'm', strict: true });
    const r = await strictProvider.complete({ messages: [user('find')], tools: [search, free] });
    llm.assertNoErrors();
    assert.deepEqual(
      r.toolCalls.map((c) => c.arguments),
      ['{"q":"mcp"}', '{"data":null}'],
    );
    assert.match(r.toolCalls[0].id, /^call_\d+_0$/);
  } finally {
    await llm.close();
  }
});

test('openai: the gemini dialect names the tool on tool messages and sanitises to the Gemini subset', async () => {
  const llm = await startScriptedOpenAI([textTurn('ok')]);
  try {
    const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'gemini-2.5-flash', dialect: 'gemini', strict: true });
    const schema = provider.sanitizeSchema({
      type: 'object',
      properties: { n: { type: ['integer', 'null'], exclusiveMinimum: 0 } },
      additionalProperties: false,
    });
    assert.deepEqual(schema, { type: 'object', properties: { n: { type: 'integer', nullable: true, description: 'exclusiveMinimum: 0' } } });
    await provider.complete({
      tools: [{ name: 'count', inputSchema: schema }],
      messages: [
        user('count'),
        { role: 'assistant', content: '', toolCalls: [{ id: 'g1', name: 'count', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'g1', name: 'count', content: [{ type: 'text', text: '3' }] },
      ],
    });
    const body = llm.requests[0].body;
    assert.deepEqual(body.messages[2], { role: 'tool', tool_call_id: 'g1', content: '3', name: 'count' });
    assert.equal(body.tools[0].function.strict, undefined, 'Gemini has no strict mode');
  } finally {
    await llm.close();
  }
});

test('openai: tool call deltas without index or id (Gemini, llama.cpp shapes), chunks without choices (Azure)', async () => {
  // A hand-written stream: the scripted endpoint always sends OpenAI's own shape.
  const chunks = [
    { id: '', object: '', model: '', choices: [], prompt_filter_results: [] },
    { object: 'keep-alive' },
    { choices: [{ delta: { role: 'assistant', tool_calls: [{ function: { name: 'echo', arguments: '{"te' } }] } }] },
    { choices: [{ delta: { tool_calls: [{ function: { arguments: 'xt":"a"}' } }] } }] },
    { choices: [{ delta: { tool_calls: [{ id: 'x2', function: { name: 'add', arguments: { a: 1, b: 2 } } }] } }] },
    { choices: [{ delta: {}, finish_reason: 'stop' }] },
  ];
  const fakeFetch: typeof fetch = async () =>
    new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } });
  const provider = new OpenAIProvider({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', fetch: fakeFetch });
  const r = await provider.complete({ messages: [user('x')], tools: [echo, add] });
  assert.equal(r.stopReason, 'tool_calls', '"stop" with tool calls is a tool turn');
  assert.deepEqual(
    r.toolCalls.map((c) => [c.name, c.arguments]),
    [
      ['echo', '{"text":"a"}'],
      ['add', '{"a":1,"b":2}'],
    ],
  );
  assert.match(r.toolCalls[0].id, /^call_/, 'a missing id is generated');
  assert.equal(r.toolCalls[1].id, 'x2');
});

test('openai: a Gemini error array naming function_declarations[N] names that tool', async () => {
  const message = '* GenerateContentRequest.tools[0].function_declarations[1].parameters.properties[meta].properties: should be non-empty for OBJECT type\n';
  const llm = await startScriptedOpenAI([errorTurn(400, undefined, { body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }] })]);
  try {
    const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'gemini-2.5-flash', dialect: 'gemini' });
    await assert.rejects(provider.complete({ messages: [user('x')], tools: [echo, add] }), (err: Error & { status?: number; detail?: string }) => {
      assert.equal(err.status, 400);
      assert.match(err.message, /^the Gemini endpoint at .* refused a tool schema \(tool add\) \(400\): \* GenerateContentRequest/);
      assert.equal(err.detail, message.trim());
      return true;
    });
  } finally {
    await llm.close();
  }
});
