// A server with 300 tools, through the Host: more tools than the threshold are not sent to the
// model; it gets a search tool instead, finds the one it needs among the 300 by what it does,
// and calls it. With deferral off, all 300 go to the model as they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Host } from '../../../src/entries/host.js';
import { fixtureEntry, offeredTools, sentToolResults, startScriptedAnthropic, startScriptedOpenAI, textTurn, toolCallsTurn } from '../../support/index.js';

test('300 tools are deferred behind search_tools: the model searches, finds convert_currency among them, calls it', async () => {
  const llm = await startScriptedAnthropic([
    (req) => {
      const names = offeredTools(req);
      assert.ok(names.includes('search_tools'), names.join(', '));
      assert.ok(names.length < 10, `${names.length} tools sent: ${names.slice(0, 12).join(', ')}...`);
      assert.ok(!names.includes('convert_currency'));
      return toolCallsTurn({ name: 'search_tools', arguments: { query: 'convert money to another currency at the exchange rate' } });
    },
    (req) => {
      const [found] = sentToolResults(req);
      assert.equal(found.id, 'toolu_0_0');
      assert.notEqual(found.isError, true);
      assert.match(found.text, /convert_currency/);
      // The best match comes first.
      const firstTool = /"name": "([^"]+)"/.exec(found.text)?.[1];
      assert.equal(firstTool, 'convert_currency', found.text.slice(0, 400));
      return toolCallsTurn({ name: 'convert_currency', arguments: { amount: 10, from: 'EUR', to: 'USD' } });
    },
    (req) => {
      const converted = sentToolResults(req).at(-1);
      assert.equal(converted?.id, 'toolu_1_0');
      assert.equal(converted?.text, '10 EUR = 11.00 USD');
      return textTurn('10 euros are 11 dollars.');
    },
  ]);
  const host = new Host({ servers: { backoffice: fixtureEntry('manyTools') }, model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl } });
  try {
    await host.start();
    const answer = await host.conversation().send('How many dollars are 10 euros?');
    llm.assertNoErrors();
    assert.equal(answer.text, '10 euros are 11 dollars.');
    assert.deepEqual(
      answer.toolCalls.map((c) => c.name),
      ['search_tools', 'convert_currency'],
    );
    assert.equal(answer.toolCalls[1].server, 'backoffice');
    assert.equal(answer.toolCalls[1].tool, 'convert_currency');
  } finally {
    await host.close();
    await llm.close();
  }
});

test('deferTools: false sends all 300 tools to the model', async () => {
  const llm = await startScriptedOpenAI([
    (req) => {
      const names = offeredTools(req);
      assert.equal(names.length, 300);
      assert.ok(names.includes('convert_currency') && names.includes('get_invoice'));
      assert.ok(!names.includes('search_tools'));
      return textTurn('So many tools.');
    },
  ]);
  const host = new Host({
    servers: { backoffice: fixtureEntry('manyTools') },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    deferTools: false,
  });
  try {
    await host.start();
    assert.equal((await host.conversation().send('Hi')).text, 'So many tools.');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});
