// Many tools: instead of every definition (which costs context and confuses models beyond a few
// dozen), the model gets one `search_tools` tool. It ranks the tools with ToolIndex (BM25F over
// names, titles, descriptions, parameters, server names and instructions; ../search/), fused
// with a ranker when one is configured, and returns the best definitions; the conversation then
// offers those tools too.
import type { ModelTool } from '../model.js';
import type { HostTool } from '../../pool/tool-source.js';
import type { ToolIndex } from '../../pool/search/tool-index.js';

export { ToolIndex } from '../../pool/search/tool-index.js';

export const SEARCH_TOOLS = 'search_tools';
const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

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
export async function runSearch(
  index: ToolIndex,
  args: Record<string, unknown>,
  definition: (t: HostTool) => ModelTool,
  signal?: AbortSignal,
): Promise<{ text: string; isError: boolean; found: HostTool[] }> {
  if (typeof args.query !== 'string' || args.query.trim() === '') {
    return { text: 'search_tools needs a "query": a few words saying what the tool should do.', isError: true, found: [] };
  }
  const limit = typeof args.limit === 'number' && args.limit >= 1 ? Math.min(MAX_LIMIT, Math.floor(args.limit)) : DEFAULT_LIMIT;
  const found = await index.searchAsync(args.query, limit, signal ? { signal } : {});
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
