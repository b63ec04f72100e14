// createProvider: which provider a config gives, where its key comes from (an env object, never
// process.env), and that a local server needs none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicProvider, createProvider, isLoopbackUrl, OpenAIProvider, ProviderConfigError, toolNamePattern } from '../../../src/host/providers/index.js';
import { startScriptedAnthropic, startScriptedOpenAI, textTurn } from '../../support/llm.js';

test('createProvider: keys come from the env object given', async () => {
  const openai = await startScriptedOpenAI([textTurn('o')], { apiKey: 'sk-from-env' });
  const anthropic = await startScriptedAnthropic([textTurn('a')], { apiKey: 'ant-from-env' });
  try {
    const env = { OPENAI_API_KEY: 'sk-from-env', ANTHROPIC_API_KEY: 'ant-from-env' };
    const o = createProvider({ provider: 'openai', model: 'm', baseUrl: openai.baseUrl, env });
    const a = createProvider({ provider: 'anthropic', model: 'c', baseUrl: anthropic.baseUrl, env });
    assert.ok(o instanceof OpenAIProvider);
    assert.ok(a instanceof AnthropicProvider);
    assert.equal(o.kind, 'openai');
    assert.equal(a.kind, 'anthropic');
    assert.equal((await o.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] })).text, 'o');
    assert.equal((await a.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] })).text, 'a');
    // An explicit key wins over the env.
    const explicit = createProvider({ provider: 'openai', model: 'm', baseUrl: openai.baseUrl, apiKey: 'other', env });
    await assert.rejects(explicit.complete({ messages: [], tools: [] }), { status: 401 });
  } finally {
    await openai.close();
    await anthropic.close();
  }
});

test('createProvider: a remote endpoint without a key is refused up front; a loopback one needs none', () => {
  assert.throws(
    () => createProvider({ provider: 'openai', model: 'gpt-x', env: {} }),
    (err: Error) => {
      assert.ok(err instanceof ProviderConfigError);
      assert.match(err.message, /no API key for https:\/\/api\.openai\.com\/v1: set OPENAI_API_KEY/);
      return true;
    },
  );
  assert.throws(() => createProvider({ provider: 'anthropic', model: 'c', env: { OPENAI_API_KEY: 'x' } }), /set ANTHROPIC_API_KEY/);
  assert.throws(
    () => createProvider({ provider: 'openai', model: 'g', dialect: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', env: {} }),
    /set GEMINI_API_KEY or OPENAI_API_KEY/,
  );
  const gemini = createProvider({
    provider: 'openai',
    model: 'g',
    dialect: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    env: { GEMINI_API_KEY: 'k' },
  });
  assert.deepEqual(gemini.sanitizeSchema({ type: 'object', properties: { a: { const: 1 } } }).properties, { a: { type: 'integer', description: 'one of: 1' } });
  for (const baseUrl of ['http://localhost:11434/v1', 'http://127.0.0.1:8080/v1', 'http://[::1]:1234/v1']) {
    assert.ok(createProvider({ provider: 'openai', model: 'llama3.2', baseUrl, env: {} }) instanceof OpenAIProvider, baseUrl);
  }
  assert.throws(() => createProvider({ provider: 'cohere' as 'openai', model: 'm' }), /unknown model provider "cohere"/);
  assert.throws(() => createProvider({ provider: 'openai', model: '', env: {} }), /no model given/);
  assert.throws(() => createProvider({ provider: 'openai', model: 'm', baseUrl: 'not a url' }), /is not a URL/);
});

test('isLoopbackUrl and toolNamePattern', () => {
  assert.ok(isLoopbackUrl('http://localhost:1/v1'));
  assert.ok(isLoopbackUrl('http://127.5.0.1/'));
  assert.ok(isLoopbackUrl('http://[::1]/'));
  assert.ok(!isLoopbackUrl('http://localhost.evil.com/'));
  assert.ok(!isLoopbackUrl('http://10.0.0.1/'));
  assert.ok(!isLoopbackUrl('nope'));
  for (const p of [
    toolNamePattern('openai'),
    toolNamePattern('anthropic'),
    createProvider({ provider: 'anthropic', model: 'c', apiKey: 'k' }).toolNamePattern,
  ]) {
    assert.ok(p.test('server__tool-name_1'));
    assert.ok(!p.test('has.dot'));
    assert.ok(!p.test('x'.repeat(65)));
  }
});
