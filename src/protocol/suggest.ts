// "Did you mean ...?" for names a person typed: commands, options, operation names, config keys.
// Here, low in the layers, because the CLI, the gateway's config and the OpenAPI tools all use it.

/** Edit distance (insertions, deletions, substitutions; a swap of neighbours counts once). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate closest to `word` (any case), when it is close enough to be the one meant: at
 * most a third of its length away (two edits for short names), its beginning, or its ending.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const l = c.toLowerCase();
    if (l === w) return c;
    // A beginning typed (`--verb`), or one name inside the other (`--openapi-base-url` for `--base-url`).
    const d = (l.startsWith(w) && w.length >= 3) || (Math.min(l.length, w.length) >= 4 && (l.endsWith(w) || w.endsWith(l))) ? 1 : distance(w, l);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** ` (did you mean "x"?)`, or '' when nothing is close: to end a message with. */
export function didYouMean(word: string, candidates: Iterable<string>, quote = (s: string) => `"${s}"`): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : ` (did you mean ${quote(c)}?)`;
}
