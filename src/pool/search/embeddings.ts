// An embeddings ranker for ToolIndex: tools and queries as vectors from an OpenAI-compatible
// `POST {baseUrl}/embeddings` endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp's server, a
// text-embeddings-inference server...), ranked by cosine similarity. It finds tools that share
// no word with the query (other languages, synonyms), which BM25 cannot; ToolIndex.searchAsync
// fuses the two. Tool vectors are cached by the tool's text, so each tool is embedded once per
// listing and a list_changed costs only the changed tools; texts go out in batches.
import type { HostTool } from '../tool-source.js';
import type { ToolRanker } from './tool-index.js';

/** Turns texts into vectors, one per text, in order. */
export interface Embedder {
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface OpenAIEmbeddingsOptions {
  /** Default `https://api.openai.com/v1`; e.g. `http://localhost:11434/v1` for Ollama. */
  baseUrl?: string;
  model: string;
  /** Sent as `Authorization: Bearer` to `baseUrl` only. */
  apiKey?: string;
  /** Asked of models that can shorten their vectors (`dimensions`). */
  dimensions?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per request (ms). Default 30 000. */
  timeoutMs?: number;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** What went wrong with an embeddings request: `status` when the endpoint answered with an error. */
export class EmbeddingsError extends Error {
  override name = 'EmbeddingsError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const MAX_ERROR_TEXT = 300;

/** A client of an OpenAI-compatible `/embeddings` endpoint. */
export class OpenAIEmbeddings implements Embedder {
  private readonly url: string;
  private readonly batch: number;

  constructor(private readonly options: OpenAIEmbeddingsOptions) {
    this.url = `${(options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/embeddings`;
    this.batch = Math.max(1, Math.floor(options.batchSize ?? 64));
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batch) out.push(...(await this.request(texts.slice(i, i + this.batch), signal)));
    return out;
  }

  private async request(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const o = this.options;
    const timeout = AbortSignal.timeout(o.timeoutMs ?? 30_000);
    const body: Record<string, unknown> = { model: o.model, input, encoding_format: 'float' };
    if (o.dimensions !== undefined) body.dimensions = o.dimensions;
    // The caller's signal may be long-lived (a Host's): its listener goes when the request is done.
    const both = new AbortController();
    const onAbort = () => both.abort(signal?.reason);
    const onTimeout = () => both.abort(timeout.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    timeout.addEventListener('abort', onTimeout, { once: true });
    let res: Response;
    let text: string;
    try {
      res = await (o.fetch ?? fetch)(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}), ...o.headers },
        body: JSON.stringify(body),
        signal: both.signal,
      });
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw err;
      const why = timeout.aborted ? `no answer within ${o.timeoutMs ?? 30_000} ms` : String((err as Error).cause ?? (err as Error).message);
      throw new EmbeddingsError(`Embeddings endpoint ${this.url}: ${why}`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      timeout.removeEventListener('abort', onTimeout);
    }
    if (!res.ok) {
      let detail = text;
      try {
        const e = (JSON.parse(text) as { error?: { message?: unknown } | string }).error;
        detail = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : text;
      } catch {}
      throw new EmbeddingsError(`Embeddings endpoint ${this.url} answered ${res.status}: ${detail.slice(0, MAX_ERROR_TEXT)}`, res.status);
    }
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data?: unknown }).data;
    } catch {
      throw new EmbeddingsError(`Embeddings endpoint ${this.url} answered something that is not JSON: ${text.slice(0, MAX_ERROR_TEXT)}`);
    }
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbeddingsError(`Embeddings endpoint ${this.url} answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${input.length} texts`);
    }
    const vectors = new Array<Float32Array>(input.length);
    data.forEach((d: { index?: unknown; embedding?: unknown }, i) => {
      const at = typeof d?.index === 'number' ? d.index : i;
      if (!Array.isArray(d?.embedding) || at < 0 || at >= input.length || !d.embedding.every((x) => typeof x === 'number')) {
        throw new EmbeddingsError(`Embeddings endpoint ${this.url} answered a malformed vector (item ${i})`);
      }
      vectors[at] = Float32Array.from(d.embedding as number[]);
    });
    if (vectors.some((v) => v === undefined)) throw new EmbeddingsError(`Embeddings endpoint ${this.url} answered two vectors for one text`);
    return vectors;
  }
}

export interface EmbeddingRankerOptions {
  /** The text embedded for a tool. Default: server, name, title, description and parameter names. */
  text?: (tool: HostTool) => string;
  /** Tool vectors kept (oldest dropped first). Default 50 000. */
  maxCached?: number;
}

/** The default text of a tool for embedding, at most 2,000 characters. */
export function toolText(t: HostTool): string {
  const props = t.tool.inputSchema?.properties;
  const params = props && typeof props === 'object' ? Object.keys(props).join(', ') : '';
  const parts = [`${t.server}: ${t.tool.name}`, t.tool.title, t.tool.description, params && `Parameters: ${params}`];
  return parts.filter(Boolean).join('\n').slice(0, 2000);
}

const QUERY_CACHE = 256;

/** Ranks tools by the cosine similarity of their embedding to the query's. */
export class EmbeddingRanker implements ToolRanker {
  private readonly vectors = new Map<string, Promise<Float32Array>>();
  private readonly queries = new Map<string, Promise<Float32Array>>();
  private readonly text: (tool: HostTool) => string;
  private readonly max: number;

  constructor(
    private readonly embedder: Embedder,
    options: EmbeddingRankerOptions = {},
  ) {
    this.text = options.text ?? toolText;
    this.max = options.maxCached ?? 50_000;
  }

  async rank<T extends HostTool>(query: string, tools: readonly T[], limit: number, signal?: AbortSignal): Promise<readonly T[]> {
    const texts = tools.map((t) => this.text(t));
    const missing = [...new Set(texts.filter((x) => !this.vectors.has(x)))];
    if (missing.length > 0) {
      const batch = this.embedder.embed(missing, signal).then((vs) => vs.map(unit));
      missing.forEach((x, i) => {
        this.vectors.set(
          x,
          batch.then((vs) => vs[i] as Float32Array),
        );
      });
      // A failed batch is forgotten, so the next search asks again.
      batch.catch(() => {
        for (const x of missing) this.vectors.delete(x);
      });
    }
    // Taken before the cache is trimmed: this search uses every vector it asked for.
    const pending = texts.map((x) => this.vectors.get(x) as Promise<Float32Array>);
    while (this.vectors.size > this.max) this.vectors.delete(this.vectors.keys().next().value as string);
    let q = this.queries.get(query);
    if (!q) {
      q = this.embedder.embed([query], signal).then((vs) => unit(vs[0] as Float32Array));
      this.queries.set(query, q);
      q.catch(() => this.queries.delete(query));
      if (this.queries.size > QUERY_CACHE) this.queries.delete(this.queries.keys().next().value as string);
    }
    const [qv, vs] = await Promise.all([q, Promise.all(pending)]);
    const scored = tools.map((tool, i) => ({ tool, i, score: dot(qv, vs[i] as Float32Array) }));
    return scored
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, limit)
      .map((s) => s.tool);
  }
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += (v[i] as number) * (v[i] as number);
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / n;
  return v;
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new EmbeddingsError(`Embedding sizes differ (${a.length} and ${b.length}): did the model change?`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}
