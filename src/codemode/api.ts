// The typed API code mode offers a model: every tool becomes `namespace.function(args)`, the
// namespace its server's name and the function its tool's name, both made into JavaScript
// identifiers, with a TypeScript declaration written from the tool's schemas and descriptions.
// The model finds functions by searching (rank.ts) and reads only the declarations it asks for.
import type { Tool } from '../protocol/types.js';
import type { ToolIndexOptions } from '../pool/search/tool-index.js';
import { FunctionIndex, type Ranker } from './rank.js';
import { commentText, docComment, schemaHints, schemaToType } from './schema-ts.js';

/** A tool the API offers: `key` is how its caller names it (a host's model-facing name, say). */
export interface ApiTool {
  key: string;
  /** The server the tool belongs to: its namespace. */
  server: string;
  tool: Tool;
}

/** One function of the API. */
export interface ApiFunction {
  /** The namespace (a global of the program). */
  namespace: string;
  /** The function's name in its namespace. */
  name: string;
  /** `namespace.name`. */
  path: string;
  key: string;
  server: string;
  tool: Tool;
}

/** Words JavaScript reserves, and the globals a program has: a namespace named so gets a `_`. */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public await async arguments eval undefined NaN Infinity globalThis Object Function Array Number Boolean String ' +
    'Symbol BigInt Math JSON Date RegExp Error EvalError RangeError ReferenceError SyntaxError TypeError URIError InternalError ' +
    'AggregateError Promise Proxy Reflect Map Set WeakMap WeakSet WeakRef FinalizationRegistry ArrayBuffer SharedArrayBuffer DataView ' +
    'Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float16Array Float32Array Float64Array ' +
    'BigInt64Array BigUint64Array Iterator parseInt parseFloat isNaN isFinite encodeURI encodeURIComponent decodeURI ' +
    'decodeURIComponent escape unescape console constructor prototype __proto__ toString valueOf hasOwnProperty'
  ).split(' '),
);

/** A JavaScript identifier made of `raw`: other characters become `_`, a reserved word gets one appended. */
export function identifier(raw: string): string {
  let id = raw.replace(/[^A-Za-z0-9_$]+/g, '_');
  if (id === '' || /^_+$/.test(id)) id = `_${id}`;
  if (/^[0-9]/.test(id)) id = `_${id}`;
  return RESERVED.has(id) ? `${id}_` : id;
}

/** `name` made unique among `taken` with `_2`, `_3`... (and added to it). */
function unique(name: string, taken: Set<string>): string {
  let out = name;
  for (let n = 2; taken.has(out); n++) out = `${name}_${n}`;
  taken.add(out);
  return out;
}

export interface CodeApiOptions {
  /**
   * Ranks functions for a search, instead of the default: ToolIndex (BM25F over tool names,
   * titles, descriptions, parameters, server names and instructions, as `search_tools` ranks).
   */
  rank?: Ranker;
  /** Options of the default ToolIndex: field weights, server instructions, a ranker `searchAsync` fuses in. */
  index?: ToolIndexOptions;
  /** Characters of a tool's description kept in its declaration. Default 1200. */
  maxDescription?: number;
}

/** The API of a set of tools: names, declarations, search. Immutable: make a new one when the tools change. */
export class CodeApi {
  readonly functions: readonly ApiFunction[];
  private readonly byPath = new Map<string, ApiFunction>();
  private readonly declared = new WeakMap<ApiFunction, string>();
  private readonly rank: Ranker | undefined;
  private readonly indexOptions: ToolIndexOptions | undefined;
  /** Made at the first search: a program that only runs never needs it. */
  private index: FunctionIndex | undefined;
  private readonly maxDescription: number;

  constructor(
    readonly tools: readonly ApiTool[],
    options: CodeApiOptions = {},
  ) {
    this.maxDescription = options.maxDescription ?? 1200;
    const namespaces = new Map<string, string>();
    const takenNamespaces = new Set<string>();
    const takenNames = new Map<string, Set<string>>();
    const functions: ApiFunction[] = [];
    for (const t of tools) {
      let namespace = namespaces.get(t.server);
      if (namespace === undefined) {
        namespace = unique(identifier(t.server), takenNamespaces);
        namespaces.set(t.server, namespace);
        takenNames.set(namespace, new Set());
      }
      const name = unique(identifier(t.tool.name), takenNames.get(namespace)!);
      const fn: ApiFunction = { namespace, name, path: `${namespace}.${name}`, key: t.key, server: t.server, tool: t.tool };
      functions.push(fn);
      this.byPath.set(fn.path, fn);
    }
    this.functions = functions;
    this.rank = options.rank;
    this.indexOptions = options.index;
  }

  /** The function at `namespace.name`, if the API has it. */
  lookup(namespace: string, name: string): ApiFunction | undefined {
    return this.byPath.get(`${namespace}.${name}`);
  }

  /** Function names by namespace: what a program's globals are made of. */
  shape(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const f of this.functions) {
      const list = out.get(f.namespace) ?? [];
      list.push(f.name);
      out.set(f.namespace, list);
    }
    return out;
  }

  /** Namespaces with their server's name and how many functions each has, in the tools' order. */
  namespaces(): Array<{ namespace: string; server: string; count: number }> {
    const out = new Map<string, { namespace: string; server: string; count: number }>();
    for (const f of this.functions) {
      const entry = out.get(f.namespace) ?? { namespace: f.namespace, server: f.server, count: 0 };
      entry.count++;
      out.set(f.namespace, entry);
    }
    return [...out.values()];
  }

  /** The best matches for a query, best first. */
  search(query: string, limit: number): ApiFunction[] {
    return this.rank ? this.rank(query, limit) : this.functionIndex().search(query, limit);
  }

  /** As `search`, with the index's ranker (embeddings) fused in when one is configured. */
  searchAsync(query: string, limit: number, signal?: AbortSignal): Promise<ApiFunction[]> {
    return this.rank ? Promise.resolve(this.rank(query, limit)) : this.functionIndex().searchAsync(query, limit, signal);
  }

  private functionIndex(): FunctionIndex {
    this.index ??= new FunctionIndex(this.functions, this.indexOptions);
    return this.index;
  }

  /** One function's declaration (without its namespace), indented by two spaces. */
  declaration(fn: ApiFunction): string {
    const cached = this.declared.get(fn);
    if (cached !== undefined) return cached;
    const t = fn.tool;
    const lines: string[] = [];
    const about = t.description ?? t.title;
    if (about) lines.push(commentText(about, this.maxDescription));
    const a = t.annotations;
    const marks = [a?.readOnlyHint ? 'read-only' : '', a?.destructiveHint && !a?.readOnlyHint ? 'destructive' : '', a?.idempotentHint ? 'idempotent' : '']
      .filter(Boolean)
      .join(', ');
    if (marks) lines.push(`(${marks})`);
    const result = schemaHints(t.outputSchema);
    if (result) lines.push(`Returns: ${result}`);
    const input = t.inputSchema as Record<string, unknown> | undefined;
    const props = input && typeof input.properties === 'object' && input.properties !== null ? Object.keys(input.properties) : [];
    const required = Array.isArray(input?.required) && input.required.length > 0;
    const args = props.length === 0 ? 'args?: {}' : `args${required ? '' : '?'}: ${schemaToType(input, {}, '  ')}`;
    const output = t.outputSchema ? schemaToType(t.outputSchema, {}, '  ') : 'unknown';
    const text = `${lines.length > 0 ? docComment(lines.join('\n'), '  ') : ''}  function ${fn.name}(${args}): Promise<${output}>;\n`;
    this.declared.set(fn, text);
    return text;
  }

  /** Declarations of `fns`, grouped in `declare namespace` blocks in the order given. */
  declarations(fns: readonly ApiFunction[]): string {
    const groups = new Map<string, ApiFunction[]>();
    for (const f of fns) {
      const list = groups.get(f.namespace) ?? [];
      list.push(f);
      groups.set(f.namespace, list);
    }
    return [...groups]
      .map(([ns, list]) => {
        const server = list[0].server === ns ? '' : ` // server "${list[0].server}"`;
        return `declare namespace ${ns} {${server}\n${list.map((f) => this.declaration(f)).join('')}}`;
      })
      .join('\n');
  }

  /**
   * A summary within `budget` characters, for a tool description: every declaration when they
   * fit, else every function's name by namespace, else the namespaces with their counts.
   */
  overview(budget: number): { text: string; level: 'declarations' | 'names' | 'namespaces' } {
    const all = this.declarations(this.functions);
    if (all.length <= budget) return { text: all, level: 'declarations' };
    const shape = this.shape();
    const names = [...shape].map(([ns, fns]) => `${ns}: ${fns.join(', ')}`).join('\n');
    if (names.length <= budget) return { text: names, level: 'names' };
    const spaces = this.namespaces();
    let text = '';
    for (let i = 0; i < spaces.length; i++) {
      const s = spaces[i];
      const item = `${i === 0 ? '' : ', '}${s.namespace} (${s.count})`;
      const rest = `, and ${spaces.length - i} more namespaces`;
      if (text.length + item.length + rest.length > budget) return { text: `${text}${rest}`, level: 'namespaces' };
      text += item;
    }
    return { text, level: 'namespaces' };
  }
}
