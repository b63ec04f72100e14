// How search_api finds functions: the same ToolIndex as the host's search_tools (BM25F over each
// function's tool name, title, description, parameters, and its server's name and instructions;
// CJK tokenising, stemming, synonyms, a name-coverage rerank; ../pool/search), over the API's
// functions. A caller with its own idea passes a Ranker to CodeApi instead.
import { ToolIndex, type ToolIndexOptions } from '../pool/search/tool-index.js';
import type { ApiFunction } from './api.js';

/** The best functions for a query, best first, at most `limit`. */
export type Ranker = (query: string, limit: number) => ApiFunction[];

/** A function as the index holds it: unique by its path. */
interface Indexed {
  readonly name: string;
  readonly server: string;
  readonly tool: ApiFunction['tool'];
  readonly fn: ApiFunction;
}

/** A ToolIndex over an API's functions: `search` is lexical, `searchAsync` fuses the options' ranker in. */
export class FunctionIndex {
  private readonly index: ToolIndex<Indexed>;

  constructor(functions: readonly ApiFunction[], options: ToolIndexOptions = {}) {
    this.index = new ToolIndex(
      functions.map((fn) => ({ name: fn.path, server: fn.server, tool: fn.tool, fn })),
      options,
    );
  }

  search(query: string, limit: number): ApiFunction[] {
    return this.index.search(query, limit).map((x) => x.fn);
  }

  async searchAsync(query: string, limit: number, signal?: AbortSignal): Promise<ApiFunction[]> {
    return (await this.index.searchAsync(query, limit, signal ? { signal } : {})).map((x) => x.fn);
  }
}

/** A Ranker over `functions` with ToolIndex (no ranker fused in: that needs `FunctionIndex.searchAsync`). */
export function rankFunctions(functions: readonly ApiFunction[], options: ToolIndexOptions = {}): Ranker {
  const index = new FunctionIndex(functions, options);
  return (query, limit) => index.search(query, limit);
}
