// Code mode: instead of every tool, a model is offered two. `search_api` finds functions of a
// typed API made of the tools (api.ts) and answers with their TypeScript declarations;
// `run_code` runs a JavaScript program against that API in a sandbox (sandbox.ts), and only
// what the program returns or prints comes back. This module knows nothing of who calls the
// tools: a host or a gateway passes the function that makes a call, and with it decides
// approval, visibility, limits and logging exactly as for a direct call.
import type { Clock } from '../engine/clock.js';
import type { CallToolResult } from '../protocol/params.js';
import { type ApiFunction, CodeApi, type ApiTool, type CodeApiOptions } from './api.js';
import { DEFAULT_LIMITS, SandboxCallError, type ProgramResult, type SandboxLimits } from './limits.js';
import { runProgram } from './sandbox.js';
import { describeRun, toolValue } from './values.js';

export const SEARCH_API = 'search_api';
export const RUN_CODE = 'run_code';
const DEFAULT_SEARCH_LIMIT = 6;
const MAX_SEARCH_LIMIT = 20;
/** Characters of the API overview in run_code's description (at most about 550 tokens). */
const DEFAULT_OVERVIEW_CHARS = 1500;

/** A tool definition as a model is offered it. */
export interface CodeToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface CodeModeOptions {
  /** The sandbox's limits (memory, compute time, output, tool calls per run). */
  limits?: Partial<SandboxLimits>;
  /**
   * Characters of the API shown in run_code's description: every declaration when they fit,
   * else every function’s name, else the namespaces. Default 1500.
   */
  overviewChars?: number;
  /**
   * How `search_api` finds functions instead of the default, ToolIndex: the BM25F index of the
   * host's `search_tools` (names, titles, descriptions, parameters, server names and instructions).
   */
  rank?: CodeApiOptions['rank'];
  /** Options of the default index (field weights, server instructions, a ranker fused in by `searchAsync`). */
  index?: CodeApiOptions['index'];
}

/** How a run reaches the tools, and its clock and cancellation. */
export interface CodeRunContext {
  /**
   * Makes one call the program asked for. Resolves with the tool's result; rejects (with a
   * message the program may read) when the call could not be made: refused, failed, timed out.
   * `signal` is aborted when the run is stopped.
   */
  call(fn: ApiFunction, args: Record<string, unknown>, info: { index: number; signal: AbortSignal }): Promise<CallToolResult>;
  clock?: Clock;
  signal?: AbortSignal;
}

export interface CodeRunOutcome {
  /** What the model reads. */
  text: string;
  isError: boolean;
  /** The run as the sandbox reported it. */
  result: ProgramResult;
}

/** What `search_api` answers: the text the model reads, and the functions it names. */
export interface SearchAnswer {
  text: string;
  isError: boolean;
  found: ApiFunction[];
}

/** A search's query and limit, or the answer that says what is wrong with them. */
function searchQuery(args: Record<string, unknown>): { query: string; limit: number } | SearchAnswer {
  const query = args.query;
  if (typeof query !== 'string' || query.trim() === '') {
    return { text: `${SEARCH_API} needs a "query": a few words saying what the function should do.`, isError: true, found: [] };
  }
  const limit = typeof args.limit === 'number' && args.limit >= 1 ? Math.min(MAX_SEARCH_LIMIT, Math.floor(args.limit)) : DEFAULT_SEARCH_LIMIT;
  return { query, limit };
}

/** The two tools over one set of tools. Make a new one when the tools change. */
export class CodeMode {
  readonly api: CodeApi;
  private readonly limits: SandboxLimits;
  private readonly overviewChars: number;
  private definitions: [CodeToolDefinition, CodeToolDefinition] | undefined;

  constructor(tools: readonly ApiTool[], options: CodeModeOptions = {}) {
    this.api = new CodeApi(tools, { ...(options.rank ? { rank: options.rank } : {}), ...(options.index ? { index: options.index } : {}) });
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.overviewChars = options.overviewChars ?? DEFAULT_OVERVIEW_CHARS;
  }

  /** `search_api` and `run_code`, their descriptions saying what the API holds. */
  tools(): [CodeToolDefinition, CodeToolDefinition] {
    if (this.definitions) return this.definitions;
    const count = this.api.functions.length;
    const spaces = this.api.namespaces().length;
    const overview = this.api.overview(this.overviewChars);
    const what =
      overview.level === 'declarations'
        ? `The whole API:\n${overview.text}`
        : overview.level === 'names'
          ? `Functions by namespace (search_api gives their parameters and result types):\n${overview.text}`
          : `Namespaces (functions): ${overview.text}`;
    const search: CodeToolDefinition = {
      name: SEARCH_API,
      description:
        `Searches the API that ${RUN_CODE} programs call: ${count} function${count === 1 ? '' : 's'} in ${spaces} namespace${spaces === 1 ? '' : 's'} ` +
        '(one per server). Returns the TypeScript declarations of the best matches: parameters, result types and what each does.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'A few words: what you want to do, a function or a namespace' },
          limit: { type: 'integer', description: `Declarations to return (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT})` },
        },
        required: ['query'],
      },
    };
    const run: CodeToolDefinition = {
      name: RUN_CODE,
      description:
        'Runs a JavaScript program that calls tools as async functions, `await namespace.function({ ...args })`, ' +
        'and gives back only what it returns (as JSON) and prints (console.log). Do the work in the program: call, filter, join, ' +
        'loop over items, and return just the answer, so large intermediate data never needs to be read. ' +
        'The code is the body of an async function: use await and return. Plain JavaScript only (no TypeScript types, no import). ' +
        'A call gives the tool’s structured result, or its text (parsed when it is a JSON object or array); a failed call throws an Error ' +
        'at that line. No network, files, timers or modules; Date is fixed at the start of the run. ' +
        `Limits: ${this.limits.cpuMs} ms of computing (waiting for tools not counted), ${this.limits.toolCalls} tool calls, ` +
        `${this.limits.outputChars} characters of output. Use ${SEARCH_API} to look up functions first.\n\n${what}`,
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The program: JavaScript, the body of an async function' } },
        required: ['code'],
      },
    };
    this.definitions = [search, run];
    return this.definitions;
  }

  /** Answers a `search_api` call (lexically: `searchAsync` fuses in the index's ranker too). */
  search(args: Record<string, unknown>): SearchAnswer {
    const q = searchQuery(args);
    return 'text' in q ? q : this.answer(q.query, this.api.search(q.query, q.limit));
  }

  /** Answers a `search_api` call, with the ranker of `index` (embeddings) fused in when there is one. */
  async searchAsync(args: Record<string, unknown>, signal?: AbortSignal): Promise<SearchAnswer> {
    const q = searchQuery(args);
    return 'text' in q ? q : this.answer(q.query, await this.api.searchAsync(q.query, q.limit, signal));
  }

  private answer(query: string, found: ApiFunction[]): SearchAnswer {
    if (found.length === 0) {
      const spaces = this.api
        .namespaces()
        .map((n) => n.namespace)
        .join(', ');
      return { text: `No function matches "${query}". Try other words. Namespaces: ${spaces || 'none'}.`, isError: false, found };
    }
    const head = `${found.length} matching function${found.length === 1 ? '' : 's'} (call them in ${RUN_CODE}):`;
    return { text: `${head}\n${this.api.declarations(found)}`, isError: false, found };
  }

  /** Answers a `run_code` call: runs the program and says what came of it. */
  async run(args: Record<string, unknown>, context: CodeRunContext): Promise<CodeRunOutcome> {
    const code = args.code;
    if (typeof code !== 'string' || code.trim() === '') {
      const result: ProgramResult = {
        ok: false,
        value: undefined,
        output: '',
        truncated: false,
        error: { kind: 'syntax', name: 'Error', message: 'no program' },
        calls: 0,
        unawaited: 0,
        late: 0,
        computeMs: 0,
      };
      return { text: `${RUN_CODE} needs "code": the body of an async JavaScript function.`, isError: true, result };
    }
    const result = await runProgram({
      code,
      api: this.api.shape(),
      limits: this.limits,
      ...(context.clock ? { clock: context.clock } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
      call: async (c) => {
        const fn = this.api.lookup(c.namespace, c.name);
        if (!fn) throw new SandboxCallError(`${c.namespace}.${c.name} is not a function of the API`);
        return toolValue(fn.path, await context.call(fn, c.args, { index: c.index, signal: c.signal }));
      },
    });
    return { ...describeRun(result, this.limits), result };
  }
}
