// What a tool is made of, for search: its fields, each tokenised on its own, as sorted
// (term, field, count) triples plus the length of each field. A tool's analysis depends only on
// the tool as its server listed it, so it is made once per listing and reused when the index is
// rebuilt after another server's list_changed; the server's name and instructions are analysed
// once per server.
import type { Tool } from '../../protocol/types.js';
import { tokenize } from './tokenize.js';

export const FIELDS = ['name', 'title', 'description', 'parameters', 'parameterDescriptions', 'server', 'instructions'] as const;
export type ToolField = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;

/** A tool's terms: `terms[i]` occurs `counts[i]` times in field `fields[i]`; sorted by term. */
export interface Analysis {
  readonly terms: readonly string[];
  readonly fields: Uint8Array;
  readonly counts: Uint16Array;
  /** Terms per field. */
  readonly lengths: Float64Array;
}

const MAX_DEPTH = 3;

/** Parameter names, and the descriptions, titles and enum values of parameters, nested ones included. */
function walkSchema(schema: unknown, names: string[], texts: string[], depth: number): void {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (props && typeof props === 'object') {
    for (const [name, sub] of Object.entries(props as Record<string, unknown>)) {
      names.push(name);
      if (sub && typeof sub === 'object') {
        const p = sub as Record<string, unknown>;
        if (typeof p.description === 'string') texts.push(p.description);
        if (typeof p.title === 'string') texts.push(p.title);
        if (Array.isArray(p.enum)) for (const v of p.enum) if (typeof v === 'string') texts.push(v);
      }
      walkSchema(sub, names, texts, depth + 1);
    }
  }
  if (s.items) walkSchema(s.items, names, texts, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) for (const sub of list) walkSchema(sub, names, texts, depth + 1);
  }
}

/** The text of each field of a tool as its server listed it (server name and instructions: `serverTexts`). */
export function fieldTexts(t: Tool): string[] {
  const names: string[] = [];
  const texts: string[] = [];
  walkSchema(t.inputSchema, names, texts, 0);
  return [t.name, t.title ?? '', t.description ?? '', names.join(' '), texts.join(' '), '', ''];
}

/** The fields every tool of a server shares: its name and instructions, analysed once per server. */
export function serverTexts(server: string, instructions: string | undefined): string[] {
  return ['', '', '', '', '', server, instructions ?? ''];
}

/** Names and parameter names keep every part: `get`, `to`, `by` say something there. */
const KEEP_STOPWORDS = new Set<number>([FIELDS.indexOf('name'), FIELDS.indexOf('parameters'), FIELDS.indexOf('server')]);

/** Analyses the given field texts (an empty text adds nothing). */
export function analyse(texts: readonly string[]): Analysis {
  const perField: Array<Map<string, number> | undefined> = [];
  const lengths = new Float64Array(FIELD_COUNT);
  const all = new Set<string>();
  let n = 0;
  texts.forEach((text, f) => {
    if (!text) return;
    const words = tokenize(text, KEEP_STOPWORDS.has(f));
    lengths[f] = words.length;
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    for (const w of counts.keys()) all.add(w);
    n += counts.size;
    perField[f] = counts;
  });
  const sorted = [...all].sort();
  const terms: string[] = [];
  const fields = new Uint8Array(n);
  const counts = new Uint16Array(n);
  for (const term of sorted) {
    for (let f = 0; f < FIELD_COUNT; f++) {
      const c = perField[f]?.get(term);
      if (c === undefined) continue;
      fields[terms.length] = f;
      counts[terms.length] = Math.min(65_535, c);
      terms.push(term);
    }
  }
  return { terms, fields, counts, lengths };
}
