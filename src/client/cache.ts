import type { JsonObject } from '../jsonrpc/messages.js';

/** The methods this cache serves, and the notification that makes each one stale. */
const INVALIDATED_BY: Record<string, readonly string[]> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

const CACHED: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

interface Entry {
  method: string;
  uri: string | undefined;
  result: JsonObject;
  expires: number;
}

/**
 * Results kept as their 2026-07-28 cache hints allow (SEP-2549): an entry is fresh while
 * `now < received + ttlMs`, per method and per page (cursor) or per resource (uri).
 *
 * `private` entries are keyed by the credential in use (a digest, never the secret), so a client
 * whose token changes never serves one principal's results to another; `public` ones are shared.
 * A list_changed notification drops that list (every page); resources/updated drops that uri.
 */
export class ResultCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether this method's results are cached at all (with these params). */
  static accepts(method: string, params: JsonObject | undefined): boolean {
    // A retry carrying answers belongs to one exchange: never cached, never served from cache.
    return CACHED.has(method) && params?.inputResponses === undefined && params?.requestState === undefined;
  }

  /** A fresh copy of a cached result, or undefined. */
  get(method: string, params: JsonObject | undefined, credential: string | undefined): JsonObject | undefined {
    const what = keyOf(method, params);
    const now = this.now();
    for (const k of [`private:${credential ?? ''}\n${what}`, `public\n${what}`]) {
      const e = this.entries.get(k);
      if (!e) continue;
      if (now < e.expires) return structuredClone(e.result);
      this.entries.delete(k);
    }
    return undefined;
  }

  /** Keeps a complete result for as long as its hints say (nothing for ttlMs 0 or missing). */
  put(method: string, params: JsonObject | undefined, result: JsonObject, credential: string | undefined, received: number): void {
    const ttl = typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) ? result.ttlMs : 0;
    if (ttl <= 0 || (result.resultType !== undefined && result.resultType !== 'complete')) return;
    // An unknown or missing scope is treated as the stricter one.
    const scope = result.cacheScope === 'public' ? 'public' : `private:${credential ?? ''}`;
    const uri = method === 'resources/read' && typeof params?.uri === 'string' ? params.uri : undefined;
    this.entries.set(`${scope}\n${keyOf(method, params)}`, { method, uri, result: structuredClone(result), expires: received + ttl });
  }

  /** Drops every cached page of a method (e.g. after its cursor turned out invalid). */
  dropMethod(method: string): void {
    for (const [k, e] of this.entries) if (e.method === method) this.entries.delete(k);
  }

  /** Applies a server notification: list_changed drops the list, resources/updated the uri. */
  notify(method: string, params: JsonObject | undefined): void {
    const lists = INVALIDATED_BY[method];
    if (lists) for (const m of lists) this.dropMethod(m);
    if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      for (const [k, e] of this.entries) if (e.uri === params.uri) this.entries.delete(k);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Method plus the params that shape the result (cursor, uri...), without `_meta`. */
function keyOf(method: string, params: JsonObject | undefined): string {
  const { _meta: _m, ...rest } = params ?? {};
  const keys = Object.keys(rest).sort();
  return `${method}\n${JSON.stringify(keys.map((k) => [k, rest[k]]))}`;
}
