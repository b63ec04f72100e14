// The baseline row of the retrieval benchmark: the host's `search_tools` index as it was before
// ToolIndex (src/host/loop/search.ts at commit 7f9217f), kept here verbatim in JavaScript so the
// comparison stays reproducible after the source moved on. Plain BM25 over one bag of words per
// tool (name twice, title, description, parameter names and descriptions), no field weights,
// no stemming, no CJK handling.
const K1 = 1.2;
const B = 0.75;

export function tokenize(text) {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

function documentOf(t) {
  const parts = [t.name, t.name, t.tool.name, t.tool.title ?? '', t.tool.description ?? ''];
  const props = t.tool.inputSchema?.properties;
  if (props && typeof props === 'object') {
    for (const [name, schema] of Object.entries(props)) {
      parts.push(name);
      if (schema && typeof schema === 'object' && typeof schema.description === 'string') parts.push(schema.description);
    }
  }
  return tokenize(parts.join(' '));
}

export class BaselineIndex {
  constructor(tools) {
    this.tools = tools;
    this.df = new Map();
    this.docs = tools.map((tool) => {
      const words = documentOf(tool);
      const tf = new Map();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      return { tool, tf, length: words.length };
    });
    this.avgLength = this.docs.reduce((n, d) => n + d.length, 0) / Math.max(1, this.docs.length);
  }

  search(query, limit = 5) {
    const words = [...new Set(tokenize(query))];
    const n = this.docs.length;
    const scored = this.docs.map((d, i) => {
      let score = 0;
      for (const w of words) {
        const f = d.tf.get(w);
        if (!f) continue;
        const df = this.df.get(w) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / this.avgLength));
      }
      return { i, score, tool: d.tool };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, limit)
      .map((s) => s.tool);
  }
}
