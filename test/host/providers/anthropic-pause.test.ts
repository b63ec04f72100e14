// Anthropic's `pause_turn`: the API pauses a long turn while its server tools (the tool search,
// web search...) run. The provider reports it as `pause` with the turn's blocks kept as they came
// (streamed or not, the server tools' results included); the Host's loop then sends the paused
// turn back, with no new user message, and the model continues it: a turn paused twice, then a
// host tool call, then the answer, against a scripted Messages endpoint over real HTTP. The
// answer is the whole turn's text; the conversation goes on afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Host } from '../../../src/entries/host.js';
import { AnthropicProvider } from '../../../src/host/providers/index.js';
import { fixtureEntry, sentToolResults, startScriptedAnthropic, textTurn, toolCallsTurn } from '../../support/index.js';

const searching = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather Hangzhou' } };
const searched = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_1',
  content: [{ type: 'web_search_result', url: 'https://example.com/hz', title: 'Hangzhou', encrypted_content: 'abc' }],
};

for (const stream of [true, false]) {
  test(`pause_turn is "pause", the turn's blocks kept as they came (${stream ? 'streamed' : 'not streamed'})`, async () => {
    const llm = await startScriptedAnthropic([textTurn('Looking it up.', { stopReason: 'pause_turn', blocks: [searching, searched] })]);
    try {
      const provider = new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'scripted', stream });
      const r = await provider.complete({ messages: [{ role: 'user', content: 'Weather?' }], tools: [] });
      assert.equal(r.stopReason, 'pause');
      assert.equal(r.text, 'Looking it up.');
      assert.deepEqual(r.providerContent, { provider: 'anthropic', blocks: [searching, searched, { type: 'text', text: 'Looking it up.' }] });
    } finally {
      await llm.close();
    }
  });
}

for (const stream of [true, false]) {
  test(`the Host continues a paused turn by sending it back, then runs its tool call and answers (${stream ? 'streamed' : 'not streamed'})`, async () => {
    const part1 = [searching, { type: 'text', text: 'Searching. ' }];
    const part2 = [searched, { type: 'text', text: 'Found a page. ' }];
    const llm = await startScriptedAnthropic([
      textTurn('Searching. ', { stopReason: 'pause_turn', blocks: [searching] }),
      (req) => {
        // The paused turn goes back as-is, as the last message: no user message after it.
        const messages = req.body.messages as Array<{ role: string; content: unknown }>;
        assert.deepEqual(
          messages.map((m) => m.role),
          ['user', 'assistant'],
        );
        assert.deepEqual(messages[1]?.content, part1);
        return textTurn('Found a page. ', { stopReason: 'pause_turn', blocks: [searched] });
      },
      (req) => {
        // Paused twice: both parts, in order, as one assistant turn.
        const messages = req.body.messages as Array<{ role: string; content: unknown }>;
        assert.deepEqual(
          messages.map((m) => m.role),
          ['user', 'assistant'],
        );
        assert.deepEqual(messages[1]?.content, [...part1, ...part2]);
        return toolCallsTurn({ name: 'get_weather', arguments: { city: 'Hangzhou' } });
      },
      (req) => {
        assert.match(sentToolResults(req).at(-1)?.text ?? '', /Hangzhou/);
        return textTurn('Sunny in Hangzhou.');
      },
      (req) => {
        const messages = req.body.messages as Array<{ role: string; content: Array<{ type: string }> }>;
        assert.deepEqual(
          messages.map((m) => m.role),
          ['user', 'assistant', 'user', 'assistant', 'user'],
        );
        assert.deepEqual(
          messages[1]?.content.map((b) => b.type),
          ['server_tool_use', 'text', 'web_search_tool_result', 'text', 'tool_use'],
        );
        return textTurn('You are welcome.');
      },
    ]);
    const host = new Host({
      servers: { weather: fixtureEntry('weather') },
      model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl, stream },
      deferTools: false,
    });
    try {
      await host.start();
      const conversation = host.conversation();
      const answer = await conversation.send('Weather in Hangzhou?');
      llm.assertNoErrors();
      assert.equal(answer.stopReason, 'end');
      assert.equal(answer.steps, 4);
      assert.equal(answer.text, 'Sunny in Hangzhou.');
      assert.deepEqual(
        answer.toolCalls.map((c) => c.name),
        ['get_weather'],
      );
      // The conversation goes on after a paused turn.
      assert.equal((await conversation.send('Thanks!')).text, 'You are welcome.');
      llm.assertNoErrors();
    } finally {
      await host.close();
      await llm.close();
    }
  });
}

test('a turn paused and then ended has the text of all its parts; a pause at the step limit ends with max_steps', async () => {
  const llm = await startScriptedAnthropic([
    textTurn('First part. ', { stopReason: 'pause_turn', blocks: [searching] }),
    textTurn('Second part.', { blocks: [searched] }),
    textTurn('Still going. ', { stopReason: 'pause_turn', blocks: [searching] }),
    textTurn('And going. ', { stopReason: 'pause_turn', blocks: [searched] }),
  ]);
  const host = new Host({ servers: {}, model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl }, maxSteps: 2 });
  try {
    await host.start();
    const answer = await host.conversation().send('Go');
    assert.equal(answer.text, 'First part. Second part.');
    assert.equal(answer.stopReason, 'end');
    assert.equal(answer.steps, 2);
    const limited = await host.conversation().send('Go');
    assert.equal(limited.stopReason, 'max_steps');
    assert.equal(limited.steps, 2);
    assert.equal(limited.text, 'Still going. And going. ');
    assert.equal(llm.requests.length, 4);
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});
