// A baseline row of the retrieval benchmark: code mode's `search_api` ranker as it was before it
// used ToolIndex (src/codemode/rank.ts at commit e90353d), kept here verbatim in JavaScript (types
// taken out) so the comparison stays reproducible. Plain BM25 over the words of each function's
// namespace, name (twice), title, description and parameter names and descriptions.

const K1 = 1.2;
const B = 0.75;

/** Words of a text: camelCase and snake_case split, lower case. */
export function words(text) {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

function documentOf(f) {
  const parts = [f.namespace, f.server, f.name, f.name, f.tool.title ?? '', f.tool.description ?? ''];
  const props = f.tool.inputSchema?.properties;
  if (props && typeof props === 'object') {
    for (const [name, schema] of Object.entries(props)) {
      parts.push(name);
      const about = schema?.description;
      if (typeof about === 'string') parts.push(about);
    }
  }
  return words(parts.join(' '));
}

/** A BM25 ranker over `functions`; ties keep the functions' order, and no match is left out. */
export function rankFunctions(functions) {
  const docs = functions.map((fn) => {
    const list = documentOf(fn);
    const tf = new Map();
    for (const w of list) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { fn, tf, length: list.length };
  });
  const df = new Map();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const avg = docs.reduce((n, d) => n + d.length, 0) / Math.max(1, docs.length);
  const n = docs.length;
  return (query, limit) => {
    const terms = [...new Set(words(query))];
    const scored = [];
    docs.forEach((d, i) => {
      let score = 0;
      for (const w of terms) {
        const f = d.tf.get(w);
        if (!f) continue;
        const k = df.get(w) ?? 0;
        score += (Math.log(1 + (n - k + 0.5) / (k + 0.5)) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / avg));
      }
      if (score > 0) scored.push({ i, score });
    });
    return scored
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, Math.max(0, limit))
      .map((s) => docs[s.i].fn);
  };
}
