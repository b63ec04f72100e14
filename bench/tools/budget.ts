// Deferred loading by budget: how close the host's token estimate (src/host/budget.ts, no
// tokenizer) is to real tokenizers on real tool definitions, what it costs, and when the host
// starts deferring definitions for models of each context size.
//
// The tools are bench/tools/catalogue.json (1,168 real tools of 50 MCP servers from npm), each
// as the host sends it: name, description and the schema sanitised for the OpenAI provider, as
// JSON. "When deferral starts": the catalogue's tools taken in order, the first count at which
// their definitions pass 10 % of the context (the default `deferTools.share`), by the estimate
// and by o200k_base; the host also defers past 64 tools whatever their size (`threshold`).
//
//   node --import tsx bench/tools/budget.ts
import { readFileSync } from 'node:fs';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { contextWindowOf, estimateTokens } from '../../src/host/budget.js';
import { sanitizeForOpenAI } from '../../src/host/providers/schema.js';
import type { Tool } from '../../src/protocol/types.js';

const catalogue = JSON.parse(readFileSync(new URL('catalogue.json', import.meta.url), 'utf8')) as { servers: Array<{ name: string; tools: Tool[] }> };
const texts = catalogue.servers.flatMap((s) =>
  s.tools.map((t) => JSON.stringify({ name: t.name, description: t.description, input_schema: sanitizeForOpenAI(t.inputSchema as Record<string, unknown>) })),
);

const est = texts.map(estimateTokens);
const real = texts.map((t) => o200k(t).length);
const real100 = texts.map((t) => cl100k(t).length);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const pct = (xs: number[], p: number) => {
  const v = [...xs].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.floor((p / 100) * v.length))] as number;
};
const ratio = est.map((e, i) => e / (real[i] as number));
console.log(`${texts.length} tool definitions, ${sum(texts.map((t) => t.length)).toLocaleString('en-US')} characters\n`);
console.log('| count | o200k_base | cl100k_base | estimate | estimate / o200k, total | per tool: p1 | p50 | p99 | min | max |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
console.log(
  `| tokens | ${sum(real).toLocaleString('en-US')} | ${sum(real100).toLocaleString('en-US')} | ${sum(est).toLocaleString('en-US')} | ${(sum(est) / sum(real)).toFixed(3)} | ` +
    `${pct(ratio, 1).toFixed(2)} | ${pct(ratio, 50).toFixed(2)} | ${pct(ratio, 99).toFixed(2)} | ${Math.min(...ratio).toFixed(2)} | ${Math.max(...ratio).toFixed(2)} |`,
);

// Cost: the estimate over every definition, many rounds; the real tokenizer once, for scale.
const rounds = 30;
const chars = sum(texts.map((t) => t.length));
let c0 = process.cpuUsage();
let sink = 0;
for (let r = 0; r < rounds; r++) for (const t of texts) sink += estimateTokens(t);
let c = process.cpuUsage(c0);
const estimateNs = ((c.user + c.system) * 1000) / (rounds * chars);
c0 = process.cpuUsage();
for (let r = 0; r < 3; r++) for (const t of texts) sink += o200k(t).length;
c = process.cpuUsage(c0);
const realNs = ((c.user + c.system) * 1000) / (3 * chars);
console.log(
  `\nCPU per character: estimate ${estimateNs.toFixed(1)} ns, o200k_base (gpt-tokenizer) ${realNs.toFixed(1)} ns; ` +
    `the whole catalogue: ${((estimateNs * chars) / 1e6).toFixed(2)} ms estimated, ${((realNs * chars) / 1e6).toFixed(1)} ms tokenised (${sink > 0 ? 'ok' : ''})`,
);

console.log('\n| model | context | 10 % budget | deferred from (estimate) | deferred from (o200k) | tokens at 64 tools (o200k) |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const model of ['my-model (unknown)', 'qwen2.5:7b', 'llama3.2', 'gpt-4o', 'claude-sonnet-4-5', 'gpt-5', 'gpt-4.1']) {
  const window = contextWindowOf(model.split(' ')[0] as string);
  const budget = Math.round(0.1 * window);
  const first = (xs: number[]) => {
    let total = 0;
    for (let i = 0; i < xs.length; i++) if ((total += xs[i] as number) > budget) return i + 1;
    return Number.POSITIVE_INFINITY;
  };
  const byEstimate = Math.min(first(est), 65);
  const byReal = Math.min(first(real), 65);
  const words = (n: number) => (n === 65 ? '65 (the count: past 64)' : `${n}`);
  console.log(
    `| ${model} | ${window.toLocaleString('en-US')} | ${budget.toLocaleString('en-US')} | ${words(byEstimate)} | ${words(byReal)} | ${sum(real.slice(0, 64)).toLocaleString('en-US')} |`,
  );
}
