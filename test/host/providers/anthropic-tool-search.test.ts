// Anthropic's tool search tool, as the provider speaks it to a scripted Messages endpoint over
// real HTTP: deferred tools go out with `defer_loading` behind the search tool's entry, a turn
// in which the API searched comes back with its own blocks (streamed or not) and is sent back
// with them, and a reference to a tool the request no longer defines is dropped. Whether it is
// on by default: only for the real API and a model that has it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelMessage, ModelTool } from '../../../src/host/model.js';
import { AnthropicProvider, createProvider } from '../../../src/host/providers/index.js';
import { startScriptedAnthropic, toolCallsTurn } from '../../support/llm.js';

const tool = (name: string, defer = true): ModelTool => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object' }, defer });
const searchBlocks = (found: string[]) => [
  { type: 'server_tool_use', id: 'srvtoolu_01', name: 'tool_search_tool_bm25', input: { query: 'weather in a city' } },
  {
    type: 'tool_search_tool_result',
    tool_use_id: 'srvtoolu_01',
    content: { type: 'tool_search_tool_search_result', tool_references: found.map((tool_name) => ({ type: 'tool_reference', tool_name })) },
  },
];

test('on by default only with the real API and Opus or Sonnet 4.5 or later; toolSearch turns it on or off', () => {
  const at = (model: string, extra: Record<string, unknown> = {}) =>
    new AnthropicProvider({ model, apiKey: 'k', ...extra } as ConstructorParameters<typeof AnthropicProvider>[0]).nativeToolSearch;
  assert.equal(at('claude-sonnet-4-5'), true);
  assert.equal(at('claude-opus-4-5-20251101'), true);
  assert.equal(at('claude-opus-4-6'), true);
  assert.equal(at('claude-sonnet-4-20250514'), false);
  assert.equal(at('claude-3-5-haiku-latest'), false);
  assert.equal(at('claude-sonnet-4-5', { baseUrl: 'http://127.0.0.1:9999' }), false, 'a local endpoint may not have it');
  assert.equal(at('claude-sonnet-4-5', { toolSearch: false }), false);
  assert.equal(at('scripted', { baseUrl: 'http://127.0.0.1:9999', toolSearch: 'regex' }), true);
  assert.equal(createProvider({ provider: 'anthropic', model: 'scripted', baseUrl: 'http://127.0.0.1:1', toolSearch: true }).nativeToolSearch, true);
  assert.equal(createProvider({ provider: 'openai', model: 'gpt-4o', apiKey: 'k', toolSearch: true }).nativeToolSearch, undefined);
});

for (const stream of [true, false]) {
  test(`deferred tools and the search tool on the wire; a searched turn kept in the API's own blocks (${stream ? 'streamed' : 'not streamed'})`, async () => {
    const llm = await startScriptedAnthropic([
      toolCallsTurn({ id: 'toolu_9', name: 'forecast', arguments: { city: 'Hangzhou' } }, { text: 'Found it.', blocks: searchBlocks(['forecast']) }),
    ]);
    try {
      const provider = new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'scripted', toolSearch: 'regex', stream, betas: ['some-beta-2099-01-01'] });
      const r = await provider.complete({ messages: [{ role: 'user', content: 'Weather?' }], tools: [tool('forecast'), tool('convert'), tool('keep', false)] });
      const [req] = llm.requests;
      assert.equal(req.headers['anthropic-beta'], 'some-beta-2099-01-01');
      assert.deepEqual(req.body.tools, [
        { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
        { name: 'forecast', description: 'The forecast tool', input_schema: { type: 'object' }, defer_loading: true },
        { name: 'convert', description: 'The convert tool', input_schema: { type: 'object' }, defer_loading: true },
        { name: 'keep', description: 'The keep tool', input_schema: { type: 'object' } },
      ]);
      assert.equal(r.text, 'Found it.');
      assert.deepEqual(r.toolCalls, [{ id: 'toolu_9', name: 'forecast', arguments: '{"city":"Hangzhou"}' }]);
      assert.equal(r.stopReason, 'tool_calls');
      assert.deepEqual(r.providerContent, {
        provider: 'anthropic',
        blocks: [
          ...searchBlocks(['forecast']),
          { type: 'text', text: 'Found it.' },
          { type: 'tool_use', id: 'toolu_9', name: 'forecast', input: { city: 'Hangzhou' } },
        ],
      });
    } finally {
      await llm.close();
    }
  });
}

test('a searched turn is sent back as it came, minus references to tools the request no longer defines; the search tool stays while the history holds a search', () => {
  const provider = new AnthropicProvider({ baseUrl: 'http://127.0.0.1:1', model: 'scripted', toolSearch: true });
  const blocks = [...searchBlocks(['forecast', 'gone']), { type: 'tool_use', id: 'toolu_9', name: 'forecast', input: { city: 'Hangzhou' } }];
  const messages: ModelMessage[] = [
    { role: 'user', content: 'Weather?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'toolu_9', name: 'forecast', arguments: '{"city":"Hangzhou"}' }],
      providerContent: { provider: 'anthropic', blocks },
    },
    { role: 'tool', toolCallId: 'toolu_9', name: 'forecast', content: [{ type: 'text', text: 'Sunny' }] },
  ];
  // No tool is deferred any more (few tools now), but the history holds a search.
  const body = provider.body({ messages, tools: [tool('forecast', false)] }) as { tools: unknown[]; messages: Array<{ role: string; content: unknown[] }> };
  assert.deepEqual(body.tools[0], { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
  assert.equal(body.tools.length, 2);
  assert.deepEqual(body.messages[1], {
    role: 'assistant',
    content: [...searchBlocks(['forecast']), { type: 'tool_use', id: 'toolu_9', name: 'forecast', input: { city: 'Hangzhou' } }],
  });
  assert.deepEqual(body.messages[2].content, [{ type: 'tool_result', tool_use_id: 'toolu_9', content: [{ type: 'text', text: 'Sunny' }] }]);
  // Without the tool search, `defer` marks are not sent, and no search tool is added.
  const plain = new AnthropicProvider({ baseUrl: 'http://127.0.0.1:1', model: 'scripted' });
  assert.equal(plain.nativeToolSearch, false);
  assert.deepEqual((plain.body({ messages: [{ role: 'user', content: 'hi' }], tools: [tool('forecast')] }) as { tools: unknown[] }).tools, [
    { name: 'forecast', description: 'The forecast tool', input_schema: { type: 'object' } },
  ]);
});
