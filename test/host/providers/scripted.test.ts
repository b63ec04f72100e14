// The scripted model endpoints themselves (test/support/llm.ts): what other host tests rely on
// when a turn's assertion fails, the script runs out, or a request goes to the wrong path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelError } from '../../../src/host/model.js';
import { AnthropicProvider, OpenAIProvider } from '../../../src/host/providers/index.js';
import { startScriptedAnthropic, startScriptedOpenAI, textTurn } from '../../support/index.js';

test('scripted endpoint: a turn whose assertion fails answers 400 naming it, and keeps the error', async () => {
  const llm = await startScriptedOpenAI([
    (req) => {
      assert.equal(req.body.model, 'expected-model');
      return textTurn('unreachable');
    },
  ]);
  try {
    const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'other-model' });
    await assert.rejects(provider.complete({ messages: [], tools: [] }), (err: ModelError) => {
      assert.ok(err instanceof ModelError);
      assert.equal(err.status, 400);
      assert.match(err.message, /scripted turn 0 failed: Expected values to be strictly equal/);
      return true;
    });
    assert.equal(llm.errors.length, 1);
    assert.throws(() => llm.assertNoErrors(), /strictly equal/);
    assert.equal(llm.remaining(), 0);
  } finally {
    await llm.close();
  }
});

test('scripted endpoint: requests beyond the script, and to another path, are refused and recorded', async () => {
  const llm = await startScriptedAnthropic([textTurn('one')]);
  try {
    const provider = new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'c' });
    assert.equal((await provider.complete({ messages: [{ role: 'user', content: 'a' }], tools: [] })).text, 'one');
    await assert.rejects(
      provider.complete({ messages: [{ role: 'user', content: 'b' }], tools: [] }),
      /script exhausted: request 2 has no turn \(1 scripted\)/,
    );
    llm.push(textTurn('two'));
    assert.equal((await provider.complete({ messages: [{ role: 'user', content: 'c' }], tools: [] })).text, 'two');
    const wrong = new AnthropicProvider({ baseUrl: `${llm.baseUrl}/extra`, model: 'c' });
    await assert.rejects(wrong.complete({ messages: [], tools: [] }), { status: 404 });
    assert.deepEqual(
      llm.requests.map((r) => [r.path, r.turn]),
      [
        ['/v1/messages', 0],
        ['/v1/messages', -1],
        ['/v1/messages', 1],
        ['/extra/v1/messages', -1],
      ],
    );
  } finally {
    await llm.close();
  }
});

test('scripted endpoint: one delta per chunkSize characters, [DONE] at the end, usage only when asked', async () => {
  const llm = await startScriptedOpenAI([textTurn('abcdefghij', { chunkSize: 1 })]);
  try {
    const res = await fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [], stream: true }) });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reads: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) reads.push(decoder.decode(chunk, { stream: true }));
    const text = reads.join('');
    assert.equal((text.match(/"content":"[a-j]"/g) ?? []).length, 10);
    assert.ok(text.endsWith('data: [DONE]\n\n'));
    assert.ok(!text.includes('"usage"'), 'no usage chunk unless stream_options.include_usage');
  } finally {
    await llm.close();
  }
});
