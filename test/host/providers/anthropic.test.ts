// The Anthropic provider against a scripted Messages endpoint over real HTTP: the event stream,
// parallel tool_use blocks with input in fragments, and the conversation mapping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelEvent, ModelTool } from '../../../src/host/model.js';
import { AnthropicProvider } from '../../../src/host/providers/index.js';
import { startScriptedAnthropic, textTurn, toolCallsTurn } from '../../support/llm.js';

const weather: ModelTool = {
  name: 'weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const time: ModelTool = { name: 'time', inputSchema: { type: 'object', properties: { tz: { type: 'string' } } } };

test('anthropic: streams text, reports usage and model; headers, system prompt and max_tokens on the wire', async () => {
  const llm = await startScriptedAnthropic([textTurn('Bonjour, le monde !', { chunkSize: 2, usage: { input: 21, output: 9 }, model: 'claude-scripted-1' })], {
    apiKey: 'sk-ant',
  });
  try {
    const provider = new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'claude-x', apiKey: 'sk-ant' });
    const events: ModelEvent[] = [];
    const r = await provider.complete(
      {
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'hello' },
        ],
        tools: [],
      },
      (e) => events.push(e),
    );
    assert.deepEqual(r, {
      text: 'Bonjour, le monde !',
      toolCalls: [],
      stopReason: 'end',
      usage: { inputTokens: 21, outputTokens: 9 },
      model: 'claude-scripted-1',
    });
    assert.ok(events.length >= 10, `many deltas, got ${events.length}`);
    const [req] = llm.requests;
    assert.equal(req.path, '/v1/messages');
    assert.equal(req.headers['x-api-key'], 'sk-ant');
    assert.equal(req.headers['anthropic-version'], '2023-06-01');
    assert.equal(req.headers.authorization, undefined);
    assert.deepEqual(req.body, {
      model: 'claude-x',
      max_tokens: 4096,
      system: 'You are terse.\n\nAnswer in French.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      stream: true,
    });
  } finally {
    await llm.close();
  }
});

test('anthropic: parallel tool_use blocks after text, input streamed in fragments', async () => {
  const llm = await startScriptedAnthropic([
    (req) => {
      assert.deepEqual(req.body.tools, [
        { name: 'weather', description: 'Weather for a city', input_schema: weather.inputSchema },
        { name: 'time', input_schema: time.inputSchema },
      ]);
      assert.deepEqual(req.body.tool_choice, { type: 'any' });
      assert.equal(req.body.max_tokens, 300);
      return toolCallsTurn(
        [
          { id: 'toolu_W', name: 'weather', arguments: { city: 'São Paulo' } },
          { id: 'toolu_T', name: 'time', arguments: {} },
        ],
        { text: 'Checking both.', chunkSize: 2 },
      );
    },
  ]);
  try {
    const events: ModelEvent[] = [];
    const r = await new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'c' }).complete(
      { messages: [{ role: 'user', content: 'weather and time?' }], tools: [weather, time], toolChoice: 'required', maxTokens: 300 },
      (e) => events.push(e),
    );
    llm.assertNoErrors();
    assert.equal(r.stopReason, 'tool_calls');
    assert.equal(r.text, 'Checking both.');
    assert.deepEqual(r.toolCalls, [
      { id: 'toolu_W', name: 'weather', arguments: '{"city":"São Paulo"}' },
      { id: 'toolu_T', name: 'time', arguments: '{}' },
    ]);
    assert.deepEqual(
      events.filter((e) => e.type !== 'text').map((e) => (e.type === 'tool_call' ? `call ${e.call.id}` : e.type === 'tool_call_start' ? `start ${e.id}` : '')),
      ['start toolu_W', 'call toolu_W', 'start toolu_T', 'call toolu_T'],
    );
  } finally {
    await llm.close();
  }
});

test('anthropic: tool results become one user message of tool_result blocks (errors, images), tool_use input parsed', async () => {
  const png = 'iVBORw0KGgo=';
  const llm = await startScriptedAnthropic([textTurn('It is sunny.')]);
  try {
    await new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'c', maxTokens: 1000 }).complete({
      tools: [weather, time],
      temperature: 0,
      toolChoice: 'none',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', data: png, mimeType: 'image/png' },
          ],
        },
        {
          role: 'assistant',
          content: 'Calling.',
          toolCalls: [
            { id: 't1', name: 'weather', arguments: '{"city":"Oslo"}' },
            { id: 't2', name: 'time', arguments: 'not json' },
          ],
        },
        {
          role: 'tool',
          toolCallId: 't1',
          name: 'weather',
          content: [
            { type: 'text', text: 'sunny' },
            { type: 'image', data: png, mimeType: 'image/png' },
          ],
        },
        { role: 'tool', toolCallId: 't2', name: 'time', content: [{ type: 'text', text: 'bad arguments' }], isError: true },
        { role: 'user', content: 'and now?' },
      ],
    });
    const body = llm.requests[0].body;
    assert.equal(body.max_tokens, 1000);
    assert.equal(body.temperature, 0);
    assert.deepEqual(body.tool_choice, { type: 'none' });
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Calling.' },
          { type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 't2', name: 'time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [
              { type: 'text', text: 'sunny' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            ],
          },
          { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'bad arguments' }], is_error: true },
          { type: 'text', text: 'and now?' },
        ],
      },
    ]);
  } finally {
    await llm.close();
  }
});

test('anthropic: a non-streamed message (stream: false)', async () => {
  const llm = await startScriptedAnthropic([
    toolCallsTurn({ id: 'tu', name: 'weather', arguments: { city: 'Rome' } }, { text: 'One moment.', usage: { input: 5, output: 6 } }),
  ]);
  try {
    const events: ModelEvent[] = [];
    const r = await new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'c', stream: false }).complete(
      { messages: [{ role: 'user', content: 'x' }], tools: [weather] },
      (e) => events.push(e),
    );
    assert.equal(llm.requests[0].body.stream, false);
    assert.deepEqual(r, {
      text: 'One moment.',
      toolCalls: [{ id: 'tu', name: 'weather', arguments: '{"city":"Rome"}' }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 5, outputTokens: 6 },
      model: 'c',
    });
    assert.deepEqual(
      events.map((e) => e.type),
      ['text', 'tool_call_start', 'tool_call'],
    );
  } finally {
    await llm.close();
  }
});

test('anthropic: stop reasons map (max_tokens is length, refusal is refusal)', async () => {
  const llm = await startScriptedAnthropic([textTurn('cut', { stopReason: 'max_tokens' }), textTurn('no', { stopReason: 'refusal' })]);
  try {
    const provider = new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'c' });
    assert.equal((await provider.complete({ messages: [{ role: 'user', content: 'a' }], tools: [] })).stopReason, 'length');
    assert.equal((await provider.complete({ messages: [{ role: 'user', content: 'b' }], tools: [] })).stopReason, 'refusal');
  } finally {
    await llm.close();
  }
});

test('anthropic: a base URL given with /v1 (as OpenAI-style endpoints are) posts to /v1/messages too, not /v1/v1/messages', async () => {
  const llm = await startScriptedAnthropic([textTurn('one'), textTurn('two'), textTurn('three')]);
  try {
    for (const [baseUrl, answer] of [
      [llm.baseUrl, 'one'],
      [`${llm.baseUrl}/v1`, 'two'],
      [`${llm.baseUrl}/v1/`, 'three'],
    ] as const) {
      const r = await new AnthropicProvider({ baseUrl, model: 'c' }).complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] }, () => {});
      assert.equal(r.text, answer, baseUrl);
    }
    llm.assertNoErrors();
    assert.deepEqual(
      llm.requests.map((q) => q.path),
      ['/v1/messages', '/v1/messages', '/v1/messages'],
    );
  } finally {
    await llm.close();
  }
});
