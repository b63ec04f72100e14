// ToolIndex: search over hundreds or thousands of tools. BM25F: each field of a tool (its name,
// title, description, parameter names, parameter descriptions, server name, server
// instructions) is length-normalised on its own and weighted before the term frequencies are
// saturated, so a word in a tool's name counts for more than the same word in a long description,
// and one long field cannot drown the others. A query's words also look for the API words they
// usually stand for (./synonyms.ts), and the best matches are reranked by how much of each
// tool's name the query says. The index is inverted (term → tools with their precomputed
// score), so a query touches only the tools that share a word with it: well under a microsecond
// per tool that matches, nothing for the rest.
//
// An optional ranker (embeddings: ./embeddings.ts) is fused with BM25F by reciprocal rank in
// `searchAsync`; `search` stays synchronous and lexical.
import type { Tool } from '../../protocol/types.js';
import type { HostTool } from '../tool-source.js';
import { type Analysis, analyse, FIELD_COUNT, FIELDS, fieldTexts, serverTexts, type ToolField } from './fields.js';
import { queryTerms } from './synonyms.js';
import { nameWords } from './tokenize.js';

export type { ToolField } from './fields.js';

/** A second opinion on which tools fit a query (e.g. `EmbeddingRanker`), fused with BM25 by `searchAsync`. */
export interface ToolRanker {
  /** The best `limit` of `tools` for `query`, best first. */
  rank<T extends HostTool>(query: string, tools: readonly T[], limit: number, signal?: AbortSignal): Promise<readonly T[]>;
}

export interface ToolIndexOptions {
  /** How much a word in each field counts (defaults: `DEFAULT_FIELD_WEIGHTS`); 0 ignores a field. */
  weights?: Partial<Record<ToolField, number>>;
  /** The instructions each server gave at initialize, searched with a low weight for all of its tools. */
  instructions?: (server: string) => string | undefined;
  /** Fused with BM25 in `searchAsync`. */
  ranker?: ToolRanker;
  /** Called when the ranker fails; `searchAsync` then answers with BM25 alone. Default: nothing. */
  onRankerError?: (error: unknown) => void;
  /** BM25's term-frequency saturation. Default 1.2. */
  k1?: number;
  /** Length normalisation per field, 0 (none) to 1 (full). */
  b?: Partial<Record<ToolField, number>>;
  /**
   * How much the API words a query word usually stands for count ("ticket" also looks for
   * `issue`; "删除" looks for `delete`), against 1 for the query's own words. Default 0.85; 0 turns
   * expansion off.
   */
  expansion?: number;
  /**
   * A tool whose name the query covers entirely gets this much more of its score (× 1 + c),
   * one it covers in part a share of it. Default 0.5; 0 turns it off.
   */
  coverage?: number;
}

/** Field weights, tuned on bench/tools' tuning split (never on its held-out split). */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<ToolField, number>> = {
  name: 3,
  title: 2,
  description: 1,
  parameters: 0.5,
  parameterDescriptions: 0.3,
  server: 1.5,
  instructions: 0.2,
};
/** Length normalisation per field: names are short and alike; descriptions vary. */
const FIELD_B: Readonly<Record<ToolField, number>> = {
  name: 0.3,
  title: 0.3,
  description: 0.75,
  parameters: 0.5,
  parameterDescriptions: 0.75,
  server: 0,
  instructions: 0.5,
};
const K1 = 1.2;
/** How deep each list goes into reciprocal rank fusion, and the usual RRF constant. */
const FUSION_DEPTH = 50;
/** How many of BM25F's best the name-coverage bonus reranks, and its default size. */
const RERANK_DEPTH = 50;
const COVERAGE = 0.5;
const RRF_K = 60;

interface Slot<T> {
  tool: T;
  analysis: Analysis;
  /** The words of the tool's name, for the coverage bonus. */
  words: readonly string[];
}

interface Postings {
  docs: Int32Array;
  scores: Float32Array;
}

/** A search index over tools. `search(query, limit)` returns the best matches, best first. */
export class ToolIndex<T extends HostTool = HostTool> {
  private slots: Array<Slot<T> | undefined> = [];
  private live = 0;
  private readonly byName = new Map<string, number>();
  private readonly weights: Float64Array;
  private readonly b: Float64Array;
  /** Analyses by listed tool object: a rebuild after list_changed reuses them. */
  private readonly cache = new WeakMap<Tool, Analysis>();
  private readonly servers = new Map<string, { instructions: string | undefined; analysis: Analysis }>();
  private readonly k1: number;
  private postings: Map<string, Postings> | undefined;
  private acc = new Float64Array(0);
  private touched = new Int32Array(0);
  private list: T[] | undefined;

  constructor(
    tools: readonly T[] = [],
    private readonly options: ToolIndexOptions = {},
  ) {
    const w = { ...DEFAULT_FIELD_WEIGHTS, ...options.weights };
    this.weights = Float64Array.from(FIELDS, (f) => w[f]);
    const b = { ...FIELD_B, ...options.b };
    this.b = Float64Array.from(FIELDS, (f) => b[f]);
    this.k1 = options.k1 ?? K1;
    this.add(tools);
  }

  /** The tools indexed, in the order they were added. */
  get tools(): readonly T[] {
    this.list ??= this.slots.flatMap((s) => (s ? [s.tool] : []));
    return this.list;
  }

  get size(): number {
    return this.live;
  }

  /** Adds tools (one with the model-facing name of an indexed tool replaces it). */
  add(tools: readonly T[]): void {
    for (const tool of tools) {
      const before = this.byName.get(tool.name);
      if (before !== undefined) this.drop(before);
      this.byName.set(tool.name, this.slots.length);
      this.slots.push({ tool, analysis: this.analysisOf(tool.tool), words: nameWords(tool.tool.name) });
      this.live++;
    }
    this.changed();
  }

  /** Removes the tools the predicate picks (e.g. `(t) => t.server === 'github'`); returns how many. */
  remove(which: (tool: T) => boolean): number {
    let n = 0;
    this.slots.forEach((s, i) => {
      if (s && which(s.tool)) {
        this.drop(i);
        n++;
      }
    });
    if (n > 0) this.changed();
    return n;
  }

  /**
   * Makes the index hold exactly `tools`, in their order. Tools listed before (the same objects)
   * are not analysed again, so after one server's list_changed this costs little more than
   * re-reading the others' precomputed terms.
   */
  update(tools: readonly T[]): void {
    this.slots = [];
    this.byName.clear();
    this.live = 0;
    this.add(tools);
  }

  /** The best `limit` tools for `query`, best first; ties keep the tools' order; tools sharing no word with it are left out. */
  search(query: string, limit = 5): T[] {
    return this.scored(query, limit).map((s) => s.tool);
  }

  /** As `search`, with each tool's score (BM25F, times the name-coverage bonus). `limit` may be Infinity. */
  scored(query: string, limit = 5): Array<{ tool: T; score: number }> {
    const postings = this.finish();
    const n = this.slots.length;
    if (this.acc.length < n) {
      this.acc = new Float64Array(n);
      this.touched = new Int32Array(n);
    }
    const acc = this.acc;
    const touched = this.touched;
    let count = 0;
    const terms = queryTerms(query, this.options.expansion);
    for (const [term, weight] of terms) {
      const p = postings.get(term);
      if (!p) continue;
      const { docs, scores } = p;
      for (let j = 0; j < docs.length; j++) {
        const d = docs[j] as number;
        if (acc[d] === 0) touched[count++] = d;
        acc[d] += weight * (scores[j] as number);
      }
    }
    const k = limit === Number.POSITIVE_INFINITY ? n : Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
    const coverage = this.options.coverage ?? COVERAGE;
    // The best RERANK_DEPTH by BM25F, reranked with a bonus for how much of each tool's name the
    // query covers: "create issue" is all of create_issue but half of update_issue.
    const top = topK(acc, touched, count, coverage > 0 ? Math.max(k, RERANK_DEPTH) : k);
    const out = top.map((d) => {
      const slot = this.slots[d] as Slot<T>;
      let score = acc[d] as number;
      if (coverage > 0 && slot.words.length > 0) {
        let covered = 0;
        for (const w of slot.words) covered += Math.min(1, terms.get(w) ?? 0);
        score *= 1 + (coverage * covered) / slot.words.length;
      }
      return { tool: slot.tool, score, d };
    });
    for (let i = 0; i < count; i++) acc[touched[i] as number] = 0;
    if (coverage > 0) out.sort((a, b) => b.score - a.score || a.d - b.d);
    return out.slice(0, k).map(({ tool, score }) => ({ tool, score }));
  }

  /**
   * With a ranker: BM25F and the ranker each give their best `FUSION_DEPTH`, fused by reciprocal
   * rank (a tool both rank high comes first; one only the ranker finds still gets in). Without
   * one, or when it fails (reported to `onRankerError`), BM25F alone.
   */
  async searchAsync(query: string, limit = 5, options: { signal?: AbortSignal } = {}): Promise<T[]> {
    const ranker = this.options.ranker;
    if (!ranker) return this.search(query, limit);
    const lexical = this.search(query, FUSION_DEPTH);
    let semantic: readonly T[];
    try {
      semantic = await ranker.rank(query, this.tools, FUSION_DEPTH, options.signal);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      this.options.onRankerError?.(err);
      return lexical.slice(0, limit);
    }
    const fused = new Map<T, number>();
    const order = new Map<T, number>();
    for (const list of [lexical, semantic]) {
      list.forEach((t, i) => {
        fused.set(t, (fused.get(t) ?? 0) + 1 / (RRF_K + i + 1));
        if (!order.has(t)) order.set(t, order.size);
      });
    }
    return [...fused.entries()]
      .sort((a, b) => b[1] - a[1] || (order.get(a[0]) as number) - (order.get(b[0]) as number))
      .slice(0, limit)
      .map(([t]) => t);
  }

  private drop(i: number): void {
    const s = this.slots[i];
    if (!s) return;
    this.slots[i] = undefined;
    this.byName.delete(s.tool.name);
    this.live--;
  }

  private changed(): void {
    this.postings = undefined;
    this.list = undefined;
    // Many removals leave holes: compact when they are most of the slots.
    if (this.slots.length > 64 && this.live < this.slots.length / 2) {
      this.slots = this.slots.filter((s) => s !== undefined);
      this.byName.clear();
      this.slots.forEach((s, i) => {
        this.byName.set((s as Slot<T>).tool.name, i);
      });
    }
  }

  private analysisOf(t: Tool): Analysis {
    let analysis = this.cache.get(t);
    if (!analysis) {
      analysis = analyse(fieldTexts(t));
      this.cache.set(t, analysis);
    }
    return analysis;
  }

  /** A server's name and instructions (asked for anew at each rebuild: a reconnect may change them). */
  private serverAnalysis(server: string): Analysis {
    const instructions = this.options.instructions?.(server);
    const hit = this.servers.get(server);
    if (hit && hit.instructions === instructions) return hit.analysis;
    const analysis = analyse(serverTexts(server, instructions));
    this.servers.set(server, { instructions, analysis });
    return analysis;
  }

  /**
   * The inverted index, built on the first search after a change: field lengths averaged over
   * the tools, each (term, tool) pair's saturated BM25F weight times the term's IDF, stored
   * per term in typed arrays.
   */
  private finish(): Map<string, Postings> {
    if (this.postings) return this.postings;
    const n = this.live;
    const avg = new Float64Array(FIELD_COUNT);
    const shared = new Map<string, Analysis>();
    for (const s of this.slots) {
      if (!s) continue;
      let server = shared.get(s.tool.server);
      if (!server) {
        server = this.serverAnalysis(s.tool.server);
        shared.set(s.tool.server, server);
      }
      for (let f = 0; f < FIELD_COUNT; f++) avg[f] += (s.analysis.lengths[f] as number) + (server.lengths[f] as number);
    }
    for (const name of this.servers.keys()) if (!shared.has(name)) this.servers.delete(name);
    for (let f = 0; f < FIELD_COUNT; f++) avg[f] = n > 0 ? (avg[f] as number) / n : 0;

    const docs = new Map<string, number[]>();
    const weights = new Map<string, number[]>();
    const norm = new Float64Array(FIELD_COUNT);
    this.slots.forEach((s, d) => {
      if (!s) return;
      const extra = shared.get(s.tool.server) as Analysis;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const len = (s.analysis.lengths[f] as number) + (extra.lengths[f] as number);
        const a = avg[f] as number;
        const b = this.b[f] as number;
        norm[f] = a > 0 ? (this.weights[f] as number) / (1 - b + (b * len) / a) : 0;
      }
      mergeTerms(
        s.analysis,
        extra,
        (term, tfw) => {
          if (tfw <= 0) return;
          let list = docs.get(term);
          if (!list) {
            list = [];
            docs.set(term, list);
            weights.set(term, []);
          }
          list.push(d);
          (weights.get(term) as number[]).push((tfw * (this.k1 + 1)) / (tfw + this.k1));
        },
        norm,
      );
    });
    const postings = new Map<string, Postings>();
    for (const [term, list] of docs) {
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      const w = weights.get(term) as number[];
      postings.set(term, { docs: Int32Array.from(list), scores: Float32Array.from(w, (x) => x * idf) });
    }
    this.postings = postings;
    return postings;
  }
}

/** Walks a tool's terms and its server's instruction terms in term order, summing each term's weighted frequency. */
function mergeTerms(a: Analysis, extra: Analysis, emit: (term: string, tfw: number) => void, norm: Float64Array): void {
  const bt = extra.terms;
  let i = 0;
  let j = 0;
  while (i < a.terms.length || j < bt.length) {
    const ta = a.terms[i];
    const tb = bt[j];
    const term = (tb === undefined || (ta !== undefined && ta <= tb) ? ta : tb) as string;
    let tfw = 0;
    while (a.terms[i] === term) {
      tfw += (a.counts[i] as number) * (norm[a.fields[i] as number] as number);
      i++;
    }
    while (bt[j] === term) {
      tfw += (extra.counts[j] as number) * (norm[extra.fields[j] as number] as number);
      j++;
    }
    emit(term, tfw);
  }
}

/** The indices of the `k` highest scores among `touched[0..count)`, best first; ties by lower index. */
function topK(acc: Float64Array, touched: Int32Array, count: number, k: number): number[] {
  if (k === 0 || count === 0) return [];
  // A min-heap of size k (worst kept at the root): n log k, never a full sort of the matches.
  const heap: number[] = [];
  const worse = (x: number, y: number) => (acc[x] as number) < (acc[y] as number) || (acc[x] === acc[y] && x > y);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && worse(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
      i = m;
    }
  };
  for (let t = 0; t < count; t++) {
    const d = touched[t] as number;
    if (heap.length < k) {
      heap.push(d);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i] as number, heap[p] as number)) break;
        [heap[i], heap[p]] = [heap[p] as number, heap[i] as number];
        i = p;
      }
    } else if (worse(heap[0] as number, d)) {
      heap[0] = d;
      down(0);
    }
  }
  return heap.sort((x, y) => (worse(x, y) ? 1 : worse(y, x) ? -1 : 0));
}
