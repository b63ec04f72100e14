// What the host makes of results that are not plain answers, with real stdio servers: an
// `isError` result reaches the model as an error it reads and corrects; an oversized result is
// cut (head and tail kept, the image untouched) and the rest stays reachable through the host's
// read_full_result tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Host, type HostEvent } from '../../../src/entries/host.js';
import {
  fixtureEntry,
  offeredTools,
  PIXEL,
  sentToolResults,
  startScriptedAnthropic,
  startScriptedOpenAI,
  textTurn,
  toolCallsTurn,
} from '../../support/index.js';

test('an isError result: the model reads the error (Anthropic is_error), corrects its call, and answers', async () => {
  const llm = await startScriptedAnthropic([
    toolCallsTurn({ name: 'lookup_order', arguments: { id: 42 } }),
    (req) => {
      const [failed] = sentToolResults(req);
      assert.equal(failed.id, 'toolu_0_0');
      assert.equal(failed.isError, true);
      assert.match(failed.text, /There is no order 42\. Known orders: 7\./);
      return toolCallsTurn({ name: 'lookup_order', arguments: { id: 7 } });
    },
    (req) => {
      const [, ok] = sentToolResults(req);
      assert.equal(ok.id, 'toolu_1_0');
      assert.notEqual(ok.isError, true);
      assert.equal(ok.text, 'Order 7: two umbrellas, shipped.');
      return textTurn('Order 42 does not exist; order 7 shipped.');
    },
  ]);
  const events: HostEvent[] = [];
  const host = new Host({
    servers: { shop: fixtureEntry('results') },
    model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl },
    onEvent: (e) => events.push(e),
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Where is my order 42?');
    llm.assertNoErrors();
    assert.equal(answer.text, 'Order 42 does not exist; order 7 shipped.');
    assert.equal(answer.steps, 3);
    assert.deepEqual(
      answer.toolCalls.map((c) => [c.id, c.result?.isError === true, c.error]),
      [
        ['toolu_0_0', true, undefined],
        ['toolu_1_0', false, undefined],
      ],
    );
    // A failing tool is a result, not a failed call.
    assert.deepEqual(
      events.flatMap((e) => (e.type === 'tool_result' ? [[e.id, e.isError]] : e.type === 'tool_error' ? [[e.id, 'tool_error']] : [])),
      [
        ['toolu_0_0', true],
        ['toolu_1_0', false],
      ],
    );
  } finally {
    await host.close();
    await llm.close();
  }
});

test('an isError result over the OpenAI format (no is_error field): the tool message still says it failed', async () => {
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ name: 'lookup_order', arguments: { id: 3 } }),
    (req) => {
      const [failed] = sentToolResults(req);
      assert.equal(failed.id, 'call_0_0');
      assert.match(failed.text, /There is no order 3/);
      assert.match(failed.text, /error/i, 'the model is told this is an error');
      return textTurn('No such order.');
    },
  ]);
  const host = new Host({ servers: { shop: fixtureEntry('results') }, model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl } });
  try {
    await host.start();
    const answer = await host.conversation().send('Order 3?');
    llm.assertNoErrors();
    assert.equal(answer.text, 'No such order.');
  } finally {
    await host.close();
    await llm.close();
  }
});

test('an oversized result: head and tail reach the model, the image is not cut, the rest is read through read_full_result', async () => {
  const maxChars = 2000;
  // Where row 2000 starts in the report: a 12-character head line, then rows of 51.
  const READ_ARGS = { id: 'call_0_0', offset: 12 + 2000 * 51, length: 1000 };
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ name: 'huge_report', arguments: {} }),
    (req) => {
      const [cut] = sentToolResults(req);
      assert.equal(cut.id, 'call_0_0');
      assert.ok(cut.text.length < maxChars + 500, `the model got ${cut.text.length} characters`);
      assert.match(cut.text, /^REPORT-HEAD\nrow 0000/);
      assert.match(cut.text, /row 3999: x+\nREPORT-TAIL/);
      assert.doesNotMatch(cut.text, /row 2000/);
      assert.match(cut.text, /read_full_result/, 'the model is told how to read the rest');
      assert.ok(JSON.stringify(cut.media).includes(PIXEL), 'the image reaches the model whole');
      assert.ok(offeredTools(req).includes('read_full_result'), offeredTools(req).join(', '));
      return toolCallsTurn({ name: 'read_full_result', arguments: READ_ARGS });
    },
    (req) => {
      const results = sentToolResults(req);
      const more = results.at(-1);
      assert.equal(more?.id, 'call_1_0');
      assert.match(more?.text ?? '', /^\[characters 102012\.\.103012 of \d+\]\nrow 2000: x{40}\n/);
      return textTurn('The report has 4000 rows.');
    },
  ]);
  const events: HostEvent[] = [];
  const host = new Host({
    servers: { reports: fixtureEntry('results') },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    resultLimit: { maxChars },
    onEvent: (e) => events.push(e),
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Summarize the report.');
    llm.assertNoErrors();
    assert.equal(answer.text, 'The report has 4000 rows.');
    const results = events.filter((e) => e.type === 'tool_result');
    assert.equal(results[0]?.type === 'tool_result' && results[0].truncated, true);
    // The application still gets the whole result.
    const whole = answer.toolCalls[0].result?.content[0] as { text: string };
    assert.match(whole.text, /row 2000/);
  } finally {
    await host.close();
    await llm.close();
  }
});
