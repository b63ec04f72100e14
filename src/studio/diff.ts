// Differences, for a person to read: between two JSON values (as paths: what was added, removed,
// changed), between two capability sets (tools added, removed, and changed with their schema
// changes; the same for prompts, resources and templates), and between two sessions (their calls
// paired by what they name, in order, with the differences of their arguments and answers).
// Pure: the page computes every diff (ui/sessions.tsx); tests call these directly too.
import { callKey, type Answer, type Catalog, type PlannedCall } from './recording.js';

export interface JsonChange {
  /** `inputSchema.properties.units.enum[2]`; empty for the value itself. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** The most changes reported for one pair of values (a huge diff is not read whole). */
export const MAX_CHANGES = 500;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A child's path, as changes name it: `a.b`, `a[0]`, `a["odd key"]`. */
export function pathJoin(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Where `before` and `after` differ, as paths (objects by key, arrays by position). */
export function jsonDiff(before: unknown, after: unknown, path = '', out: JsonChange[] = []): JsonChange[] {
  if (out.length >= MAX_CHANGES || Object.is(before, after)) return out;
  if (isObject(before) && isObject(after)) {
    for (const k of Object.keys(before)) {
      if (!(k in after)) out.push({ path: pathJoin(path, k), kind: 'removed', before: before[k] });
      else jsonDiff(before[k], after[k], pathJoin(path, k), out);
    }
    for (const k of Object.keys(after)) if (!(k in before)) out.push({ path: pathJoin(path, k), kind: 'added', after: after[k] });
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n && out.length < MAX_CHANGES; i++) {
      if (i >= after.length) out.push({ path: pathJoin(path, i), kind: 'removed', before: before[i] });
      else if (i >= before.length) out.push({ path: pathJoin(path, i), kind: 'added', after: after[i] });
      else jsonDiff(before[i], after[i], pathJoin(path, i), out);
    }
    return out;
  }
  out.push({ path, kind: 'changed', before, after });
  return out;
}

export type CatalogKind = 'tools' | 'prompts' | 'resources' | 'templates';
export const CATALOG_KINDS: readonly CatalogKind[] = ['tools', 'prompts', 'resources', 'templates'];

/** What names an item of each list. */
const KEY: Record<CatalogKind, string> = { tools: 'name', prompts: 'name', resources: 'uri', templates: 'uriTemplate' };

export interface ItemChange {
  key: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  changes: JsonChange[];
}

export interface ListDiff {
  added: Array<Record<string, unknown>>;
  removed: Array<Record<string, unknown>>;
  changed: ItemChange[];
  unchanged: number;
}

export interface CatalogDiff {
  /** A list only in both sets is compared; the others are named in `notCompared`. */
  lists: Partial<Record<CatalogKind, ListDiff>>;
  notCompared: CatalogKind[];
  /** No list compared shows a difference. */
  same: boolean;
}

function byKey(items: Array<Record<string, unknown>>, key: string): Map<string, Record<string, unknown>> {
  const m = new Map<string, Record<string, unknown>>();
  for (const it of items) m.set(String(it[key]), it);
  return m;
}

export function listDiff(kind: CatalogKind, before: Array<Record<string, unknown>>, after: Array<Record<string, unknown>>): ListDiff {
  const key = KEY[kind];
  const a = byKey(before, key);
  const b = byKey(after, key);
  const out: ListDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const [k, item] of a) {
    const other = b.get(k);
    if (!other) {
      out.removed.push(item);
      continue;
    }
    const changes = jsonDiff(item, other);
    if (changes.length > 0) out.changed.push({ key: k, before: item, after: other, changes });
    else out.unchanged++;
  }
  for (const [k, item] of b) if (!a.has(k)) out.added.push(item);
  return out;
}

/** Two capability sets compared list by list: added, removed, changed (with each change's path). */
export function catalogDiff(before: Catalog, after: Catalog): CatalogDiff {
  const lists: CatalogDiff['lists'] = {};
  const notCompared: CatalogKind[] = [];
  let same = true;
  for (const kind of CATALOG_KINDS) {
    const a = before[kind];
    const b = after[kind];
    if (!a || !b) {
      if (a || b) notCompared.push(kind);
      continue;
    }
    const d = listDiff(kind, a, b);
    lists[kind] = d;
    if (d.added.length + d.removed.length + d.changed.length > 0) same = false;
  }
  return { lists, notCompared, same };
}

/** Fields of an answer that differ by transport or era rather than by what the server said. */
export const IGNORED_IN_ANSWERS = ['_meta', 'resultType', 'ttlMs', 'cacheScope'];

/** An answer as compared: its result without the ignored fields, or its error's code and message. */
export function comparable(a: Answer | undefined): unknown {
  if (a === undefined) return undefined;
  if ('error' in a) return { error: { code: a.error.code, message: a.error.message, ...(a.error.data !== undefined ? { data: a.error.data } : {}) } };
  const r = a.result;
  if (!isObject(r)) return r;
  return Object.fromEntries(Object.entries(r).filter(([k]) => !IGNORED_IN_ANSWERS.includes(k)));
}

/** The differences between two answers (none: they say the same). */
export function answerDiff(a: Answer | undefined, b: Answer | undefined): JsonChange[] {
  return jsonDiff(comparable(a), comparable(b));
}

export interface PairedCall {
  a?: PlannedCall;
  b?: PlannedCall;
  /** What changed in the params (the arguments), A → B. */
  params: JsonChange[];
  /** What changed in the answer, A → B. */
  answer: JsonChange[];
}

/**
 * Two sessions' calls paired: in order, each call of A with the next unpaired call of B that names
 * the same thing (method and tool, prompt or resource). Calls only one side made stay alone.
 */
export function pairCalls(a: readonly PlannedCall[], b: readonly PlannedCall[]): PairedCall[] {
  const out: PairedCall[] = [];
  let from = 0;
  for (const x of a) {
    const key = callKey(x);
    const j = b.findIndex((y, i) => i >= from && callKey(y) === key);
    if (j < 0) {
      out.push({ a: x, params: [], answer: [] });
      continue;
    }
    // B's calls skipped over on the way are B's alone.
    for (let i = from; i < j; i++) out.push({ b: b[i], params: [], answer: [] });
    const y = b[j];
    out.push({ a: x, b: y, params: jsonDiff(withoutMeta(x.params), withoutMeta(y.params)), answer: answerDiff(x.recorded, y.recorded) });
    from = j + 1;
  }
  for (let i = from; i < b.length; i++) out.push({ b: b[i], params: [], answer: [] });
  return out;
}

function withoutMeta(p: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!p) return p;
  const { _meta: _, ...rest } = p;
  return rest;
}

/** A value in one short line, for a change's before and after. */
export function brief(v: unknown, max = 120): string {
  if (v === undefined) return '(nothing)';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
