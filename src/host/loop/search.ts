// Many tools: instead of every definition (which costs context and confuses models beyond a few
// dozen), the model gets one `search_tools` tool. It ranks the tools by BM25 over their names,
// descriptions and parameter names and descriptions, and returns the best definitions; the
// conversation then offers those tools too.
import type { ModelTool } from '../model.js';
import type { HostTool } from '../../pool/tool-source.js';

export const SEARCH_TOOLS = 'search_tools';
const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;
const K1 = 1.2;
const B = 0.75;

/** Words of a text: camelCase and snake_case split, lower case. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** The searchable text of a tool: its name counts twice (a name says most about a tool). */
function documentOf(t: HostTool): string[] {
  const parts = [t.name, t.name, t.tool.name, t.tool.title ?? '', t.tool.description ?? ''];
  const props = t.tool.inputSchema?.properties;
  if (props && typeof props === 'object') {
    for (const [name, schema] of Object.entries(props)) {
      parts.push(name);
      if (schema && typeof schema === 'object' && typeof (schema as { description?: unknown }).description === 'string') {
        parts.push((schema as { description: string }).description);
      }
    }
  }
  return tokenize(parts.join(' '));
}

/** A BM25 index over a list of tools. */
export class ToolIndex {
  private readonly docs: Array<{ tool: HostTool; tf: Map<string, number>; length: number }>;
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(readonly tools: readonly HostTool[]) {
    this.docs = tools.map((tool) => {
      const words = documentOf(tool);
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      return { tool, tf, length: words.length };
    });
    this.avgLength = this.docs.reduce((n, d) => n + d.length, 0) / Math.max(1, this.docs.length);
  }

  /** The best matches, best first; ties in the tools' order. Tools matching no word are left out. */
  search(query: string, limit = DEFAULT_LIMIT): HostTool[] {
    const words = [...new Set(tokenize(query))];
    const n = this.docs.length;
    const scored = this.docs.map((d, i) => {
      let score = 0;
      for (const w of words) {
        const f = d.tf.get(w);
        if (!f) continue;
        const df = this.df.get(w) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / this.avgLength));
      }
      return { i, score, tool: d.tool };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, limit)
      .map((s) => s.tool);
  }
}

/** The `search_tools` definition, saying how many tools stand behind it. */
export function searchTool(count: number): ModelTool {
  return {
    name: SEARCH_TOOLS,
    description:
      `Finds tools to call among ${count} available ones. Describe what you want to do in a few words; ` +
      'the matching tools are returned with their parameters and can be called from then on.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Keywords: what the tool should do, or its name' },
        limit: { type: 'integer', description: `How many tools to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})` },
      },
      required: ['query'],
    },
  };
}

/** Runs a `search_tools` call: the text the model reads and the tools to offer from now on. */
export function runSearch(
  index: ToolIndex,
  args: Record<string, unknown>,
  definition: (t: HostTool) => ModelTool,
): { text: string; isError: boolean; found: HostTool[] } {
  if (typeof args.query !== 'string' || args.query.trim() === '') {
    return { text: 'search_tools needs a "query": a few words saying what the tool should do.', isError: true, found: [] };
  }
  const limit = typeof args.limit === 'number' && args.limit >= 1 ? Math.min(MAX_LIMIT, Math.floor(args.limit)) : DEFAULT_LIMIT;
  const found = index.search(args.query, limit);
  if (found.length === 0) return { text: `No tool matches "${args.query}". Try other words.`, isError: false, found };
  const defs = found.map((t) => {
    const d = definition(t);
    return { name: d.name, description: d.description, parameters: d.inputSchema };
  });
  return {
    text: `${found.length} matching tool${found.length === 1 ? '' : 's'}, which you can call now:\n${JSON.stringify(defs, null, 2)}`,
    isError: false,
    found,
  };
}
