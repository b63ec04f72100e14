// The host's token estimate against a real tokenizer (o200k_base, GPT-4o's, and cl100k_base), on
// the 1,168 real tool definitions of bench/tools, as the providers send them; and the context
// windows of the models a host meets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW, estimateTokens } from '../../src/host/budget.js';

const catalogue = JSON.parse(readFileSync(new URL('../../bench/tools/catalogue.json', import.meta.url), 'utf8')) as {
  servers: Array<{ tools: Array<{ name: string; description?: string; inputSchema: unknown }> }>;
};
const definitions = catalogue.servers.flatMap((s) =>
  s.tools.map((t) => JSON.stringify({ name: t.name, description: t.description, input_schema: t.inputSchema })),
);

test('the estimate of 1,168 real tool definitions is within 10 % of o200k_base and cl100k_base in total, and each within 25 %', () => {
  let estimated = 0;
  let real = 0;
  let real100 = 0;
  const off: string[] = [];
  for (const text of definitions) {
    const e = estimateTokens(text);
    const r = o200k(text).length;
    estimated += e;
    real += r;
    real100 += cl100k(text).length;
    if (Math.abs(e - r) > 0.25 * r) off.push(`${e} estimated, ${r} real: ${text.slice(0, 80)}`);
  }
  assert.ok(definitions.length >= 1000);
  assert.ok(Math.abs(estimated / real - 1) < 0.1, `${estimated} estimated, ${real} o200k tokens`);
  assert.ok(Math.abs(estimated / real100 - 1) < 0.1, `${estimated} estimated, ${real100} cl100k tokens`);
  assert.deepEqual(off, []);
});

test('prose, CJK, other scripts and pretty-printed JSON stay near the real count', () => {
  const samples = [
    'Creates a new issue in a GitHub repository, with a title, a body and labels.',
    '查询北京明天的天气预报并把结果发送到我的邮箱',
    'Создать новую задачу в репозитории и назначить её мне',
    JSON.stringify({ type: 'object', properties: { path: { type: 'string', description: 'Absolute path' }, depth: { type: 'integer', minimum: 0 } } }, null, 2),
  ];
  for (const s of samples) {
    const r = o200k(s).length;
    const e = estimateTokens(s);
    assert.ok(Math.abs(e - r) <= Math.max(3, 0.35 * r), `${e} estimated, ${r} real: ${s}`);
  }
  assert.equal(estimateTokens(''), 0);
});

test('context windows: known families by name (a provider/ prefix and a tag are fine), a small default otherwise', () => {
  assert.equal(contextWindowOf('gpt-4o-mini'), 128_000);
  assert.equal(contextWindowOf('gpt-4.1-nano'), 1_047_576);
  assert.equal(contextWindowOf('claude-sonnet-4-5'), 200_000);
  assert.equal(contextWindowOf('openai/gpt-5-mini'), 400_000);
  assert.equal(contextWindowOf('models/gemini-2.5-flash'), 1_048_576);
  assert.equal(contextWindowOf('llama3.2:3b'), 131_072);
  assert.equal(contextWindowOf('qwen2.5:7b'), 32_768);
  assert.equal(contextWindowOf('my-own-model'), DEFAULT_CONTEXT_WINDOW);
});
