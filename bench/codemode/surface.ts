// What a host's tool surface costs the model per step, in tokens (o200k_base, the tokenizer of
// GPT-4o and later, from the gpt-tokenizer package), for 300 and 3,000 tools:
//   - plain: every definition, as the OpenAI provider sends them (`deferTools: false`);
//   - deferred: the host's default beyond 64 tools or 10 % of the context, one `search_tools` definition;
//   - code mode: `search_api` and `run_code` (with the API overview in run_code's description).
// And what one search answer costs in each mode (search_tools: 5 JSON definitions; search_api: 6
// TypeScript declarations, and 5 for parity), averaged over queries made from tool descriptions.
//
// The tools are real: bench/tools/catalogue.json (1,168 tools of 50 MCP servers from npm, listed
// by bench/tools/collect.mjs). 300 = the first 300 in the catalogue's order; 3,000 = the whole
// catalogue and then copies of its servers (named <server>_2, <server>_3...) until 3,000.
//
//   node --import tsx bench/codemode/surface.ts [--catalogue=bench/tools/catalogue.json]
import { existsSync, readFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { CodeMode } from '../../src/codemode/code-mode.js';
import type { ApiTool } from '../../src/codemode/api.js';
import { runSearch, searchTool, ToolIndex } from '../../src/host/loop/search.js';
import type { ModelTool } from '../../src/host/model.js';
import { toChatTools } from '../../src/host/providers/openai-messages.js';
import { sanitizeForOpenAI } from '../../src/host/providers/schema.js';
import type { HostTool } from '../../src/pool/tool-source.js';
import type { Tool } from '../../src/protocol/types.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const path = arg('catalogue') ?? 'bench/tools/catalogue.json';
if (!existsSync(path)) {
  console.error(`${path} is missing: it comes with the tool-search work (bench/tools/collect.mjs); pass --catalogue=FILE to use another`);
  process.exit(2);
}
const catalogue = JSON.parse(readFileSync(path, 'utf8')) as { servers: Array<{ name: string; tools: Tool[] }> };

const tokens = (value: unknown) => encode(typeof value === 'string' ? value : JSON.stringify(value)).length;

/** `count` tools: the catalogue in order, then copies of its servers. */
function toolsOf(count: number): HostTool[] {
  const out: HostTool[] = [];
  const taken = new Set<string>();
  for (let copy = 1; out.length < count; copy++) {
    for (const s of catalogue.servers) {
      const server = copy === 1 ? s.name : `${s.name}_${copy}`;
      for (const tool of s.tools) {
        if (out.length >= count) break;
        // Model-facing names as the pool makes them on a clash: the server's name in front.
        let name = tool.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
        if (taken.has(name)) name = `${server}_${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
        taken.add(name);
        out.push({ name, server, tool });
      }
    }
  }
  return out;
}

const asModel = (t: HostTool): ModelTool => ({
  name: t.name,
  ...(t.tool.description ? { description: t.tool.description } : {}),
  inputSchema: sanitizeForOpenAI((t.tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>),
});

/** Queries a model might send: the first words of some tools' descriptions. */
function queries(tools: HostTool[]): string[] {
  const out: string[] = [];
  for (let i = 7; i < tools.length && out.length < 40; i += Math.max(1, Math.floor(tools.length / 40))) {
    const words = (tools[i].tool.description ?? tools[i].tool.name).split(/\s+/).slice(0, 6).join(' ');
    if (words.trim()) out.push(words);
  }
  return out;
}

const rows: string[] = [];
for (const count of [300, 3000]) {
  const tools = toolsOf(count);
  const plain = tokens(toChatTools(tools.map(asModel), () => false));
  const deferred = tokens(toChatTools([searchTool(tools.length)], () => false));
  const mode = new CodeMode(tools.map((t): ApiTool => ({ key: t.name, server: t.server, tool: t.tool })));
  const code = tokens(toChatTools(mode.tools(), () => false));
  const index = new ToolIndex(tools);
  const qs = queries(tools);
  const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length));
  const searchPlain = mean(await Promise.all(qs.map(async (q) => tokens((await runSearch(index, { query: q }, asModel)).text))));
  const searchApi6 = mean(qs.map((q) => tokens(mode.search({ query: q }).text)));
  const searchApi5 = mean(qs.map((q) => tokens(mode.search({ query: q, limit: 5 }).text)));
  rows.push(
    `| ${count} | ${new Set(tools.map((t) => t.server)).size} | ${plain.toLocaleString('en')} | ${deferred} | ${code} | ${searchPlain} | ${searchApi5} / ${searchApi6} |`,
  );
}
console.log(`catalogue: ${path}; tokenizer: o200k_base (gpt-tokenizer)\n`);
console.log(
  '| tools | servers | plain: all definitions | deferred: search_tools | code mode: search_api + run_code | one search_tools answer (5) | one search_api answer (5 / 6) |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
