#!/usr/bin/env node
// Tool retrieval benchmark: how well does `search_tools` find the right tool among hundreds of
// real ones, and how fast over 10,000? Offline and reproducible: the catalogue
// (catalogue.json, real tool definitions listed by collect.mjs) and the tasks (tasks-tuning.json,
// tasks-heldout.json, written by hand and labelled with the right tools) are committed files.
//
//   node bench/tools/retrieval.mjs [--quick] [--json] [--embeddings=URL --model=NAME]
//   npm run bench -- --only=retrieval
//
// Rows: the host's BM25 before ToolIndex (baseline-bm25.mjs, kept verbatim) and ToolIndex, and code
// mode's search_api before (baseline-codemode.mjs, verbatim) and now (ToolIndex over the API), on the
// tuning split (the weights were chosen on it) and the held-out split (never used for tuning).
// recall@k: the share of a task's right tools among the first k results, averaged over tasks;
// nDCG@10 with every right tool worth 1. With --embeddings, a row for ToolIndex fused with an
// OpenAI-compatible /embeddings endpoint (EmbeddingRanker) is added.
//
// Latency: the catalogue copied under other server names up to 10,000 tools; every task's query
// searched in turn, many rounds; p50 and p90 of one search, both indexes; the time to build the
// index and to bring it up to date after one server's list_changed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaselineIndex } from './baseline-bm25.mjs';
import { rankFunctions as baselineCodeRanker } from './baseline-codemode.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const value = (name) =>
  argv
    .find((a) => a.startsWith(`--${name}=`))
    ?.split('=')
    .slice(1)
    .join('=');
const quick = flag('quick');
const asJson = flag('json');
const log = (...a) => (asJson ? process.stderr : process.stdout).write(`${a.join(' ')}\n`);

const { ToolIndex, EmbeddingRanker, OpenAIEmbeddings, assignNames, entryKey, CodeApi } = await import('mcpkit/host');

// ----------------------------------------------------------------------------- data
const catalogue = JSON.parse(readFileSync(join(here, 'catalogue.json'), 'utf8'));
const instructions = new Map(catalogue.servers.map((s) => [s.name, s.instructions]));

/** HostTools as a host would offer them: model-facing names from mcpkit's own name assignment. */
function hostTools(servers, suffix = '') {
  // Copies get tool objects of their own: an index caches a listed tool's analysis by object.
  const entries = servers.flatMap((s) => s.tools.map((t) => ({ server: s.name + suffix, name: t.name, tool: suffix ? structuredClone(t) : t })));
  const names = assignNames(entries);
  return entries.map((e) => ({ name: names.get(entryKey(e)), server: e.server, tool: e.tool }));
}
const tools = hostTools(catalogue.servers);
const keyOf = (t) => `${t.server}/${t.tool.name}`;
const known = new Set(tools.map(keyOf));

function loadTasks(file) {
  const tasks = JSON.parse(readFileSync(join(here, file), 'utf8')).tasks;
  for (const t of tasks) for (const k of t.tools) if (!known.has(k)) throw new Error(`${file}: task "${t.query}" names ${k}, which is not in the catalogue`);
  return tasks;
}
const splits = [
  { name: 'tuning', tasks: loadTasks('tasks-tuning.json') },
  { name: 'held-out', tasks: loadTasks('tasks-heldout.json') },
];

// -------------------------------------------------------------------------- metrics
function metrics(results, tasks) {
  const sum = { r1: 0, r5: 0, r10: 0, ndcg: 0 };
  tasks.forEach((task, i) => {
    const right = new Set(task.tools);
    const got = results[i].map(keyOf);
    const recall = (k) => got.slice(0, k).filter((x) => right.has(x)).length / right.size;
    sum.r1 += recall(1);
    sum.r5 += recall(5);
    sum.r10 += recall(10);
    let dcg = 0;
    got.slice(0, 10).forEach((x, r) => {
      if (right.has(x)) dcg += 1 / Math.log2(r + 2);
    });
    let ideal = 0;
    for (let r = 0; r < Math.min(10, right.size); r++) ideal += 1 / Math.log2(r + 2);
    sum.ndcg += dcg / ideal;
  });
  const n = tasks.length;
  return { recall1: sum.r1 / n, recall5: sum.r5 / n, recall10: sum.r10 / n, ndcg10: sum.ndcg / n };
}

const indexes = [
  {
    name: 'BM25 before ToolIndex (baseline)',
    search: (
      (i) => async (q) =>
        i.search(q, 10)
    )(new BaselineIndex(tools)),
  },
  {
    name: '**ToolIndex** (BM25F, no embeddings)',
    search: (
      (i) => async (q) =>
        i.search(q, 10)
    )(new ToolIndex(tools, { instructions: (s) => instructions.get(s) })),
  },
];
// Code mode's search_api: its own BM25 before, ToolIndex now (server instructions given, as the host and gateway give them).
{
  const api = new CodeApi(tools.map((t) => ({ key: t.name, server: t.server, tool: t.tool })));
  const before = baselineCodeRanker(api.functions);
  indexes.push({ name: 'search_api before (code mode’s own BM25)', search: async (q) => before(q, 10) });
  const now = new CodeApi(
    tools.map((t) => ({ key: t.name, server: t.server, tool: t.tool })),
    { index: { instructions: (s) => instructions.get(s) } },
  );
  indexes.push({ name: '**search_api** (ToolIndex)', search: async (q) => now.search(q, 10) });
}
if (value('embeddings')) {
  const embeddings = new OpenAIEmbeddings({
    baseUrl: value('embeddings'),
    model: value('model') ?? 'text-embedding-3-small',
    apiKey: process.env.OPENAI_API_KEY,
  });
  const hybrid = new ToolIndex(tools, {
    instructions: (s) => instructions.get(s),
    ranker: new EmbeddingRanker(embeddings),
    onRankerError: (err) => log(`ranker failed: ${err.message}`),
  });
  indexes.push({ name: `ToolIndex + embeddings (${value('model') ?? 'text-embedding-3-small'}, RRF)`, search: (q) => hybrid.searchAsync(q, 10) });
}

const rows = [];
const byLanguage = [];
for (const ix of indexes) {
  for (const split of splits) {
    const results = [];
    for (const task of split.tasks) results.push(await ix.search(task.query));
    rows.push({ index: ix.name, split: split.name, tasks: split.tasks.length, ...metrics(results, split.tasks) });
    // The same by language: English tasks, and the others (Chinese, Japanese, Korean, Spanish, German, French).
    for (const [lang, pick] of [
      ['English', (t) => !t.lang],
      ['other languages', (t) => Boolean(t.lang)],
    ]) {
      const which = split.tasks.map((t, i) => (pick(t) ? i : -1)).filter((i) => i >= 0);
      const sub = which.map((i) => split.tasks[i]);
      byLanguage.push({
        index: ix.name,
        split: split.name,
        lang,
        tasks: sub.length,
        ...metrics(
          which.map((i) => results[i]),
          sub,
        ),
      });
    }
  }
}

// -------------------------------------------------------------------------- latency
const TARGET = 10_000;
const copies = Math.ceil(TARGET / tools.length);
const big = [];
for (let c = 0; c < copies && big.length < TARGET; c++) {
  const suffix = c === 0 ? '' : `-${c + 1}`;
  for (const t of c === 0 ? tools : hostTools(catalogue.servers, suffix)) if (big.length < TARGET) big.push(t);
}
const queries = splits.flatMap((s) => s.tasks.map((t) => t.query));
const rounds = quick ? 3 : 15;
const pct = (xs, p) => {
  const v = [...xs].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];
};
/** CPU milliseconds of `fn` (this process's user + system time: steadier than wall time on a shared machine). */
function cpu(fn) {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
function time(index) {
  for (const q of queries) index.search(q, 10); // warm-up (and the lazy inverted index)
  const ms = [];
  const c0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      index.search(q, 10);
      ms.push(performance.now() - t0);
    }
  }
  const c = process.cpuUsage(c0);
  return { p50: pct(ms, 50), p90: pct(ms, 90), cpuPerSearch: (c.user + c.system) / 1000 / ms.length, searches: ms.length };
}
const latency = [];
{
  let base;
  const baseBuild = cpu(() => {
    base = new BaselineIndex(big);
  });
  latency.push({ index: 'BM25 before ToolIndex (baseline)', tools: big.length, build: baseBuild, ...time(base) });
  let ix;
  // Built on the first search: analysis of every tool, then the inverted index.
  const build = cpu(() => {
    ix = new ToolIndex(big, { instructions: (s) => instructions.get(s) });
    ix.search('warm', 1);
  });
  const measured = time(ix);
  // One server's list_changed: its tools listed anew (new objects), the rest as they were.
  const changedServer = big[0].server;
  const relisted = big.map((t) => (t.server === changedServer ? { ...t, tool: { ...t.tool } } : t));
  const update = cpu(() => {
    ix.update(relisted);
    ix.search('warm', 1);
  });
  latency.push({ index: '**ToolIndex**', tools: big.length, build, update, ...measured });
}

// --------------------------------------------------------------------------- report
const pc = (x) => (x * 100).toFixed(1);
const md = [
  `Catalogue: ${tools.length} real tools from ${catalogue.servers.length} MCP servers installed from npm (bench/tools/catalogue.json, collected ${catalogue.collected}). ` +
    `Tasks: ${splits.map((s) => `${s.tasks.length} ${s.name}`).join(', ')}.`,
  '',
  '| index | split | tasks | recall@1 | recall@5 | recall@10 | nDCG@10 |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.index} | ${r.split} | ${r.tasks} | ${pc(r.recall1)} | ${pc(r.recall5)} | ${pc(r.recall10)} | ${pc(r.ndcg10)} |`),
  '',
  'The same by the language of the task:',
  '',
  '| index | split | language | tasks | recall@1 | recall@5 | recall@10 | nDCG@10 |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...byLanguage.map((r) => `| ${r.index} | ${r.split} | ${r.lang} | ${r.tasks} | ${pc(r.recall1)} | ${pc(r.recall5)} | ${pc(r.recall10)} | ${pc(r.ndcg10)} |`),
  '',
  `Search latency over ${big.length.toLocaleString('en-US')} tools (the catalogue copied under other server names), top 10, ${latency[0].searches} searches of the tasks' queries:`,
  '',
  "| index | p50 ms | p90 ms | CPU ms per search | build, CPU ms | update after one server's list_changed, CPU ms |",
  '| --- | --- | --- | --- | --- | --- |',
  ...latency.map(
    (l) =>
      `| ${l.index} | ${l.p50.toFixed(3)} | ${l.p90.toFixed(3)} | ${l.cpuPerSearch.toFixed(3)} | ${l.build.toFixed(0)} | ${l.update === undefined ? '–' : l.update.toFixed(0)} |`,
  ),
].join('\n');

if (asJson) console.log(JSON.stringify({ markdown: md, rows, byLanguage, latency }));
else console.log(md);
