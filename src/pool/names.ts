// Model-facing names for things that many servers offer under names of their own (tools here;
// prompts and resource URIs in the gateway). Providers accept a narrow alphabet and a length
// limit (OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`), servers do not, and two servers may
// offer the same name. Pure functions: the same entries and options always give the same names,
// whatever order the servers connected in, so a name a model saw once keeps meaning the same tool.

/** One named thing of one server. */
export interface NameEntry {
  server: string;
  name: string;
}

/**
 * When the server's name goes in front: `always`, `never`, or `on-clash` (only when another
 * server offers the same name; the default).
 */
export type PrefixPolicy = 'always' | 'on-clash' | 'never';

export interface NameOptions {
  /**
   * The names the consumer accepts, as the providers state them: `^[class]{1,N}$` (the class and
   * the length are read from it). Default `^[a-zA-Z0-9_-]{1,64}$`. For another shape of pattern
   * give `charset` and `maxLength` too; the pattern is still checked at the end.
   */
  pattern?: RegExp;
  /** One allowed character (overrides what `pattern` says). */
  charset?: RegExp;
  /** Longest allowed name (overrides what `pattern` says). */
  maxLength?: number;
  /** Joins server and name when prefixing. Default `_`. */
  separator?: string;
  /** The policy for entries whose server has none in `prefixOf`. Default `on-clash`. */
  prefix?: PrefixPolicy;
  /** A server's own policy (a config entry's `prefix`). */
  prefixOf?: (server: string) => PrefixPolicy | undefined;
}

export const DEFAULT_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Any name a server may write, kept as it is (with `prefix: 'never'`, names pass through
 * unchanged: a bridge in front of one server). Only an empty name is still given a hash.
 */
export const VERBATIM_NAME_PATTERN = /^[\s\S]{1,65536}$/u;

/** The key an entry is known by in maps: server and name, unambiguous for any strings. */
export function entryKey(e: NameEntry): string {
  return `${e.server}\u0000${e.name}`;
}

interface Rules {
  pattern: RegExp;
  allowed: RegExp;
  max: number;
  separator: string;
}

/** Reads `[class]` and `{m,n}` from a `^[class]{m,n}$` pattern. */
function rulesOf(o: NameOptions): Rules {
  const pattern = o.pattern ?? DEFAULT_NAME_PATTERN;
  const m = /^\^(\[[^\]]+\])\{\d*,?(\d+)\}\$$/.exec(pattern.source);
  const allowed = o.charset ?? (m ? new RegExp(`^${m[1]}$`, pattern.flags.replace(/[gy]/g, '')) : undefined);
  const max = o.maxLength ?? (m ? Number(m[2]) : undefined);
  if (!allowed || max === undefined) {
    throw new TypeError(`Cannot read the allowed characters and length from ${pattern}: give charset and maxLength`);
  }
  if (max < 12) throw new TypeError(`maxLength ${max} leaves no room for a distinguishing hash (12 at least)`);
  return { pattern, allowed, max, separator: o.separator ?? '_' };
}

/**
 * A short hash of the entry (and a salt, for the rare second round): 8 base-36 characters of two
 * FNV-1a passes over the UTF-16 code units. Not cryptographic; only needs to spread.
 */
export function shortHash(e: NameEntry, salt = 0): string {
  const text = `${salt}\u0000${entryKey(e)}`;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ salt;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (a >>> 7), 0x5bd1e995) >>> 0;
  }
  return ((a >>> 0).toString(36).padStart(7, '0').slice(-4) + (b >>> 0).toString(36).padStart(7, '0').slice(-4)).toLowerCase();
}

/** Replaces every character the consumer does not accept with `_` (by code point: no half emoji). */
export function sanitizeName(text: string, allowed: RegExp): string {
  let out = '';
  for (const ch of text) out += allowed.test(ch) ? ch : '_';
  return out;
}

/** The name before any clash is settled: prefixed or not, sanitised, and whether it had to change. */
function natural(e: NameEntry, prefixed: boolean, r: Rules): { name: string; changed: boolean } {
  const raw = prefixed ? `${e.server}${r.separator}${e.name}` : e.name;
  const name = sanitizeName(raw, r.allowed);
  return { name, changed: name !== raw || name.length === 0 || name.length > r.max };
}

/** `base` cut to leave room for `_` + hash, then the hash. */
function hashed(base: string, e: NameEntry, salt: number, r: Rules): string {
  const suffix = `${r.separator}${shortHash(e, salt)}`;
  // Code points, so a cut never leaves half a surrogate pair (sanitised text has none, but a
  // permissive charset may let them through).
  const kept = Array.from(base)
    .slice(0, r.max - suffix.length)
    .join('');
  return (kept + suffix).slice(0, r.max);
}

/**
 * Model-facing names for every entry, as a map from {@link entryKey} to name: unique, within the
 * pattern, and a function of the set of entries alone (not their order). A name stays as the
 * server wrote it (prefixed per the policy) when that is allowed and unique; otherwise it is
 * shortened and given a hash of its server and name: when sanitising changed it, it was too
 * long, or it collides with another entry's.
 */
export function assignNames(entries: readonly NameEntry[], options: NameOptions = {}): Map<string, string> {
  const r = rulesOf(options);
  const unique = new Map<string, NameEntry>();
  for (const e of entries) unique.set(entryKey(e), { server: e.server, name: e.name });
  // Sorted by key: every decision below is then independent of the order entries came in.
  const sorted = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const servers = new Map<string, Set<string>>();
  for (const [, e] of sorted) {
    let s = servers.get(e.name);
    if (!s) servers.set(e.name, (s = new Set()));
    s.add(e.server);
  }
  const policy = (server: string) => options.prefixOf?.(server) ?? options.prefix ?? 'on-clash';
  const first = sorted.map(([key, e]) => {
    const p = policy(e.server);
    const prefixed = p === 'always' || (p === 'on-clash' && (servers.get(e.name)?.size ?? 0) > 1);
    return { key, e, ...natural(e, prefixed, r) };
  });
  // Names kept as written, counted: two of them alike are both hashed (neither has a better claim).
  const plain = new Map<string, number>();
  for (const c of first) if (!c.changed) plain.set(c.name, (plain.get(c.name) ?? 0) + 1);
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const c of first) {
    if (!c.changed && plain.get(c.name) === 1) {
      out.set(c.key, c.name);
      taken.add(c.name);
    }
  }
  for (const c of first) {
    if (out.has(c.key)) continue;
    let salt = 0;
    let name = hashed(c.name, c.e, salt, r);
    // A hash colliding with another name: the next salt, in sorted order, so still deterministic.
    while (taken.has(name)) name = hashed(c.name, c.e, ++salt, r);
    out.set(c.key, name);
    taken.add(name);
  }
  for (const [key, name] of out) {
    if (!r.pattern.test(name)) {
      const e = unique.get(key)!;
      throw new TypeError(`Cannot make a name matching ${r.pattern} for "${e.name}" of server "${e.server}" (got "${name}"): check charset and maxLength`);
    }
  }
  return out;
}

/**
 * The names of a changing set of entries, and their way back. `update` assigns names to the new
 * set; an entry that had a name before (in any earlier set) keeps it (a conversation that used
 * it is not broken), unless that name now belongs to another entry. Fresh registries given the same set
 * agree with each other.
 */
export class NameRegistry<T extends NameEntry = NameEntry> {
  private byName = new Map<string, T>();
  private byKey = new Map<string, string>();
  /** Every name ever given, by entry: an entry that comes back (its server reconnected) gets its old one. */
  private readonly given = new Map<string, string>();

  constructor(private readonly options: NameOptions = {}) {}

  /** Replaces the entries; returns them with their names, sorted by name. */
  update(entries: readonly T[]): Array<{ name: string; entry: T }> {
    const fresh = assignNames(entries, this.options);
    const items = new Map<string, T>();
    for (const e of entries) items.set(entryKey(e), e);
    const names = new Map<string, string>();
    const used = new Set(fresh.values());
    // The previous name wins when nobody's fresh name is it; otherwise the fresh one.
    for (const [key, name] of fresh) {
      const before = this.given.get(key);
      if (before !== undefined && before !== name && !used.has(before)) {
        names.set(key, before);
        used.add(before);
      } else names.set(key, name);
    }
    // The fresh name of an entry that kept its old one is now unused: fine. Make sure no two
    // entries ended on one name (a kept name equal to another's fresh one is excluded above).
    this.byName = new Map();
    this.byKey = new Map();
    for (const [key, name] of names) {
      this.byKey.set(key, name);
      this.given.set(key, name);
      this.byName.set(name, items.get(key)!);
    }
    return [...this.byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, entry]) => ({ name, entry }));
  }

  /** The entry behind a name. */
  resolve(name: string): T | undefined {
    return this.byName.get(name);
  }

  /** The name of an entry, if it has one. */
  nameOf(entry: NameEntry): string | undefined {
    return this.byKey.get(entryKey(entry));
  }
}
