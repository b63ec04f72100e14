// A server's tools change during a conversation (tools/list_changed), through the Host: a tool
// call that adds a tool, over stdio, where the server's list_changed is written before the
// call's result, so the host knows of the change before the call returns and the model's very
// next step must be offered the new tool; and the demo's bonus tool over HTTP in both eras,
// offered by the next message once the pool has listed it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Host } from '../../../src/entries/host.js';
import { weatherFor } from '../../../src/cli/demo/data.js';
import {
  fixtureEntry,
  offeredTools,
  sentToolResults,
  startDemoHttp,
  startScriptedAnthropic,
  startScriptedOpenAI,
  textTurn,
  toolCallsTurn,
  within,
} from '../../support/index.js';

test('a call that adds a tool (stdio, list_changed before the result): the next step offers it and the model calls it', async () => {
  const tomorrow = weatherFor('Oslo+1').condition;
  const llm = await startScriptedAnthropic([
    (req) => {
      assert.ok(!offeredTools(req).includes('get_forecast'));
      return toolCallsTurn({ name: 'unlock_forecast', arguments: {} });
    },
    (req) => {
      assert.equal(sentToolResults(req)[0].text, 'get_forecast is available now.');
      assert.ok(offeredTools(req).includes('get_forecast'), `offered: ${offeredTools(req).join(', ')}`);
      return toolCallsTurn({ name: 'get_forecast', arguments: { city: 'Oslo' } });
    },
    (req) => {
      const r = sentToolResults(req).at(-1);
      assert.notEqual(r?.isError, true);
      return textTurn(r?.text ?? '');
    },
  ]);
  const host = new Host({ servers: { weather: fixtureEntry('weather') }, model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl } });
  try {
    await host.start();
    const answer = await host.conversation().send('What will the weather be tomorrow in Oslo?');
    llm.assertNoErrors();
    assert.equal(answer.text, `Tomorrow in Oslo: ${tomorrow}`);
  } finally {
    await host.close();
    await llm.close();
  }
});

for (const era of ['handshake', 'modern'] as const) {
  test(`the demo's bonus tool over HTTP (${era} era): once the pool has listed it again, the next message offers it`, async () => {
    const demo = await startDemoHttp();
    const llm = await startScriptedOpenAI([
      (req) => {
        assert.ok(!offeredTools(req).includes('lucky_number'));
        return toolCallsTurn({ name: 'toggle_bonus_tool', arguments: {} });
      },
      (req) => textTurn(sentToolResults(req)[0].text),
      (req) => {
        assert.ok(offeredTools(req).includes('lucky_number'), offeredTools(req).join(', '));
        return toolCallsTurn({ name: 'lucky_number', arguments: {} });
      },
      (req) => textTurn(sentToolResults(req).at(-1)?.text ?? ''),
    ]);
    const host = new Host({
      servers: { demo: { url: demo.url, era, allow: ['toggle_bonus_tool', 'lucky_number'] } },
      model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    });
    try {
      await host.start();
      const chat = host.conversation();
      const listed = new Promise<void>((resolve) => {
        const off = host.pool.onChange(() => {
          if (!host.tools().some((t) => t.name === 'lucky_number')) return;
          off();
          resolve();
        });
      });
      assert.match((await chat.send('Turn the bonus tool on.')).text, /^lucky_number is now available/);
      await within(listed, 'the pool to list lucky_number');
      assert.equal((await chat.send('My lucky number?')).text, 'Your lucky number is 7.');
      llm.assertNoErrors();
    } finally {
      await host.close();
      await demo.close();
      await llm.close();
    }
  });
}
