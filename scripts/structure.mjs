// Structural facts about src/, checked by test/structure/structure.test.ts and printed by
// `npm run structure`:
//   - no import cycle of more than two files (type-only imports and `import()` types count);
//   - no folder imports a folder above it in the layer order (docs/architecture.md, CONTRIBUTING.md);
//   - no file over MAX_LINES lines;
//   - no `export * from` (a module names what it re-exports), except an entry's `export type * from`
//     a curated surface module (SURFACES) that names every export itself.
// It also owns the layer list with a line on each layer (LAYER_NOTES), which CONTRIBUTING.md and
// docs/architecture.md show: `--write-docs` writes it there.
// Imports are read with TypeScript's own pre-processor (no regex over comments and strings).
import { readdirSync, readFileSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Folders under src/, bottom to top, each with what it holds: a folder may import only itself and
 * folders below it. CONTRIBUTING.md and docs/architecture.md show this list as it is rendered by
 * layerTree() (`node scripts/structure.mjs --write-docs` writes it there; test/structure checks it).
 */
export const LAYER_NOTES = [
  ['jsonrpc', 'JSON-RPC messages, the frame codec (parse, limits, batches), error codes, McpError / LocalError'],
  ['protocol', 'MCP wire types of every revision (surface.ts: the public list), versions and the feature table, the era'],
  ['schema', 'Standard Schema and JSON Schema (ajv), compiled once'],
  ['engine', 'Peer (ids, timeouts, progress, cancellation, middleware) and the Transport contract it consumes'],
  ['state', 'session, event and task store interfaces, in-memory stores, the message bus; redis/'],
  ['transports', 'message movers only: memory/, stdio/, the HTTP clients (http/client/), the SSE codec'],
  ['server', 'Server, sessions, request contexts, the 2026-07-28 era, MRTR, McpServer and its registries, the extension seam'],
  ['extensions', 'features behind the seam: tasks/, skills/, apps/ (MCP Apps), otel/ (OpenTelemetry)'],
  ['client', 'McpClient: connect and era negotiation, typed calls, handlers, list cache, OAuth (auth/)'],
  [
    'serving',
    'the HTTP server core (http/), node:http and fetch adapters, the HTTP/1.1 front of serve() (h1/), the OAuth resource and authorization servers, stdio',
  ],
  ['pool', 'many servers as one: TARGETs and mcpServers configs, links kept connected, one tool name space, the tool search index (search/)'],
  ['codemode', 'code mode: tools as a typed API, its search, the QuickJS/WebAssembly sandbox programs run in'],
  ['host', 'the AI application over a pool: model providers, the agent loop, skills, the connection doctor'],
  ['gateway', 'the relay core under the gateway, mount() and the bridges; policies; REST APIs as tools (openapi/)'],
  ['testing', 'createTestPair and the wire recorder (mcpkit/testing)'],
  ['studio', 'the web studio behind `mcpkit studio`: its guarded HTTP API, the timeline; ui/ is the page, bundled at build'],
  ['cli', 'the mcpkit command'],
  ['entries', 'the package entry points (what package.json "exports" names; docs/architecture.md says what each is for)'],
];
export const LAYERS = LAYER_NOTES.map(([name]) => name);

/**
 * Modules an entry may re-export whole, with `export type * from` (no other star re-export is
 * allowed): each names every export itself, holds types only, and test/entries/types.json pins
 * what reaches each entry through it.
 */
export const SURFACES = ['src/protocol/surface.ts'];

/** The layer list as CONTRIBUTING.md and docs/architecture.md show it (the body of a fenced block). */
export function layerTree() {
  const width = Math.max(...LAYERS.map((l) => l.length)) + 2;
  const lines = ['src/'];
  for (const [i, [name, note]] of LAYER_NOTES.entries()) lines.push(`  ${`${name}/`.padEnd(width)}${String(i + 1).padStart(2)}  ${note}`);
  lines.push(`  ${'*.ts'.padEnd(width)}    files directly in src/ sit above every folder`);
  return `${lines.join('\n')}\n`;
}

/** The line that introduces the generated layer list in a doc; the fenced block after it is the list. */
export const LAYER_MARKER = '<!-- the layers: generated from scripts/structure.mjs (node scripts/structure.mjs --write-docs) -->';
export const LAYER_DOCS = ['CONTRIBUTING.md', 'docs/architecture.md'];

/** The doc's text with the block after the marker replaced by `tree`; undefined when it has no marker. */
export function withLayerTree(text, tree = layerTree()) {
  const at = text.indexOf(LAYER_MARKER);
  if (at < 0) return undefined;
  const open = text.indexOf('```\n', at);
  const close = text.indexOf('\n```', open + 3);
  if (open < 0 || close < 0) return undefined;
  return `${text.slice(0, open + 4)}${tree}${text.slice(close + 1)}`;
}

/** Files directly in src/ sit above every folder. */
export const TOP = '(src)';
export const MAX_LINES = 500;

// Known violations, each with its reason; empty: the tree holds every rule. Add an entry only with a
// reason and the issue that removes it. A cycle is allowed when all its files are listed in one
// entry (a cycle that shrinks stays allowed, one that grows fails); an upward import when its
// importing file and imported folder match.
export const ALLOWED = {
  cycles: [],
  upward: [],
  long: [],
  exportStar: [],
};

/** Every .ts file under dir (declaration files excluded), as paths relative to root with '/'. */
function listSources(root, dir, out = []) {
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) listSources(root, rel, out);
    else if ((name.endsWith('.ts') && !name.endsWith('.d.ts')) || name.endsWith('.tsx')) out.push(rel);
  }
  return out;
}

/** The src file a relative specifier names (`./x.js` is ./x.ts, `./dir` may be ./dir/index.ts), or undefined. */
function resolveSpecifier(root, from, spec) {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return undefined;
  const base = join(dirname(join(root, from)), spec);
  const candidates = spec.endsWith('.js') ? [base.slice(0, -3) + '.ts', base.slice(0, -3) + '.tsx'] : [base + '.ts', join(base, 'index.ts')];
  if (spec.endsWith('.mjs')) candidates.unshift(base.slice(0, -4) + '.mts');
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return relative(root, c).split(sep).join('/');
  return undefined;
}

/** The layer a src file belongs to: its first folder under src/, or TOP for src/*.ts. */
export function layerOf(file) {
  const parts = file.split('/');
  return parts.length <= 2 ? TOP : parts[1];
}

function rank(layer) {
  return layer === TOP ? LAYERS.length : LAYERS.indexOf(layer);
}

/** Strongly connected components of the graph (Tarjan, iterative), each sorted. */
function components(nodes, edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const out = [];
  for (const start of nodes) {
    if (idx.has(start)) continue;
    const work = [[start, 0]];
    idx.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, i] = frame;
      const next = [...(edges.get(v) ?? [])];
      if (i < next.length) {
        frame[1]++;
        const w = next[i];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u), low.get(v)));
      }
      if (low.get(v) === idx.get(v)) {
        const comp = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        out.push(comp.sort());
      }
    }
  }
  return out;
}

/** One shortest cycle through the component (breadth-first from each member), for the message. */
function exampleCycle(comp, edges) {
  const members = new Set(comp);
  let best;
  for (const start of comp) {
    const prev = new Map([[start, undefined]]);
    const queue = [start];
    let found;
    while (queue.length && !found) {
      const v = queue.shift();
      for (const w of edges.get(v) ?? []) {
        if (!members.has(w)) continue;
        if (w === start) {
          found = v;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    if (found === undefined) continue;
    const path = [];
    for (let v = found; v !== undefined; v = prev.get(v)) path.unshift(v);
    if (path.length > 2 && (!best || path.length < best.length)) best = path;
  }
  return best ?? comp;
}

/**
 * Reads the tree under root (src/ by default) and returns the facts and the violations, each
 * marked `allowed` when an ALLOWED entry covers it.
 */
export function analyze(root, { srcDir = 'src', allowed = ALLOWED, maxLines = MAX_LINES, surfaces = SURFACES } = {}) {
  const files = listSources(root, srcDir);
  const edges = new Map();
  const lines = new Map();
  const unresolved = [];
  const exportStar = [];
  let edgeCount = 0;
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    lines.set(file, text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length);
    // import/export ... from, import type, import '...', and import('...') in code and in types.
    const info = ts.preProcessFile(text, true, true);
    const targets = new Set();
    for (const ref of info.importedFiles) {
      const target = resolveSpecifier(root, file, ref.fileName);
      if (target !== undefined) targets.add(target);
      else if (ref.fileName.startsWith('.')) unresolved.push(`${file} -> ${ref.fileName}`);
    }
    targets.delete(file);
    for (const m of text.matchAll(/^\s*export\s+(type\s+)?\*\s*(as\s+[\w$]+\s+)?from\s*['"]([^'"]+)['"]/gm)) {
      // `export type * from` a curated surface module is the one star allowed (SURFACES).
      const surface = m[1] && !m[2] && surfaces.includes(resolveSpecifier(root, file, m[3]) ?? '') && layerOf(file) === 'entries';
      if (!surface) exportStar.push({ file, allowed: (allowed.exportStar ?? []).includes(file) });
    }
    edges.set(file, targets);
    edgeCount += targets.size;
  }

  const folders = new Set(files.map(layerOf));
  const folderEdges = new Map([...folders].map((f) => [f, new Set()]));
  const upward = [];
  const unknownFolders = [...folders].filter((f) => f !== TOP && !LAYERS.includes(f)).sort();
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const a = layerOf(from);
      const b = layerOf(to);
      if (a !== b) folderEdges.get(a).add(b);
      if (rank(b) > rank(a) && rank(a) >= 0) {
        const ok = allowed.upward.some((e) => (e.from.endsWith('/') ? from.startsWith(e.from) : from === e.from) && e.to === b);
        upward.push({ from, to, fromLayer: a, toLayer: b, allowed: ok });
      }
    }
  }

  const comps = components(files, edges);
  const pairs = comps.filter((c) => c.length === 2);
  const cycles = comps
    .filter((c) => c.length > 2)
    .map((files) => ({ files, example: exampleCycle(files, edges), allowed: allowed.cycles.some((a) => files.every((f) => a.includes(f))) }));

  const long = files.filter((f) => lines.get(f) > maxLines).map((file) => ({ file, lines: lines.get(file), allowed: allowed.long.includes(file) }));

  return {
    files,
    folders: [...folders].sort((x, y) => rank(x) - rank(y)),
    edgeCount,
    folderEdges,
    pairs,
    cycles,
    upward,
    long,
    exportStar,
    unknownFolders,
    unresolved,
  };
}

/** Allow-list entries that no longer match anything: done, and ready to be deleted from ALLOWED. */
export function staleEntries(report, allowed = ALLOWED) {
  const out = [];
  for (const a of allowed.cycles) if (!report.cycles.some((c) => c.files.every((f) => a.includes(f)))) out.push(`cycle [${a.join(', ')}]`);
  for (const e of allowed.upward) {
    const hit = report.upward.some((u) => (e.from.endsWith('/') ? u.from.startsWith(e.from) : u.from === e.from) && e.to === u.toLayer);
    if (!hit) out.push(`upward ${e.from} -> ${e.to}`);
  }
  for (const f of allowed.long) if (!report.long.some((l) => l.file === f)) out.push(`long ${f}`);
  for (const f of allowed.exportStar ?? []) if (!report.exportStar.some((e) => e.file === f)) out.push(`export * ${f}`);
  return out;
}

/** Human-readable lines for each violation not covered by the allow-list (empty when all is well). */
export function violations(report) {
  const out = [];
  for (const c of report.cycles)
    if (!c.allowed)
      out.push(`import cycle of ${c.files.length} files: ${c.example.join(' -> ')} -> ${c.example[0]}\n  (all in the cycle: ${c.files.join(', ')})`);
  for (const u of report.upward) if (!u.allowed) out.push(`${u.fromLayer} imports ${u.toLayer}, a layer above it: ${u.from} -> ${u.to}`);
  for (const l of report.long) if (!l.allowed) out.push(`${l.file} has ${l.lines} lines (limit ${MAX_LINES})`);
  for (const e of report.exportStar)
    if (!e.allowed) out.push(`${e.file} uses export * (name the re-exported bindings; only an entry may re-export a SURFACES module, with export type *)`);
  for (const f of report.unknownFolders) out.push(`src/${f} is not in the layer order (scripts/structure.mjs LAYERS): place it`);
  for (const u of report.unresolved) out.push(`unresolved relative import: ${u}`);
  return out;
}

function print(report) {
  const allowedCount = [report.cycles, report.upward, report.long, report.exportStar].reduce((n, list) => n + list.filter((v) => v.allowed).length, 0);
  console.log(`src/: ${report.files.length} files in ${report.folders.length} folders, ${report.edgeCount} import edges`);
  console.log('folders, bottom to top, and the folders each imports:');
  for (const f of report.folders) {
    const deps = [...report.folderEdges.get(f)].sort((x, y) => rank(x) - rank(y));
    const marked = deps.map((d) => (rank(d) > rank(f) ? `${d} (UP)` : d));
    console.log(`  ${f.padEnd(11)} -> ${marked.join(', ') || '-'}`);
  }
  console.log(`cycles: ${report.cycles.length} of more than two files, ${report.pairs.length} of two files`);
  for (const c of report.cycles) console.log(`  ${c.allowed ? '[allowed] ' : ''}${c.files.length} files: ${c.example.join(' -> ')} -> ${c.example[0]}`);
  for (const p of report.pairs) console.log(`  [two files, permitted] ${p.join(' <-> ')}`);
  console.log(`upward imports: ${report.upward.length}`);
  for (const u of report.upward) console.log(`  ${u.allowed ? '[allowed] ' : ''}${u.from} -> ${u.to}`);
  console.log(`files over ${MAX_LINES} lines: ${report.long.length}`);
  for (const l of report.long) console.log(`  ${l.allowed ? '[allowed] ' : ''}${l.file}: ${l.lines}`);
  console.log(`export *: ${report.exportStar.length}`);
  for (const e of report.exportStar) console.log(`  ${e.allowed ? '[allowed] ' : ''}${e.file}`);
  const stale = staleEntries(report);
  if (stale.length) console.log(`allow-list entries that match nothing any more (delete them): ${stale.join('; ')}`);
  const bad = violations(report);
  if (allowedCount) console.log(`${allowedCount} known violation(s) allowed by the list in scripts/structure.mjs (to be removed by issue 12 work)`);
  if (bad.length) {
    console.log(`\n${bad.length} violation(s):`);
    for (const b of bad) console.log(`  ${b}`);
  } else console.log('structure: ok');
  return bad.length;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  if (process.argv.includes('--write-docs')) {
    for (const doc of LAYER_DOCS) {
      const text = readFileSync(join(root, doc), 'utf8');
      const next = withLayerTree(text);
      if (next === undefined) throw new Error(`${doc} has no layer list marker (${LAYER_MARKER})`);
      if (next !== text) writeFileSync(join(root, doc), next);
      console.log(`${doc}: ${next === text ? 'up to date' : 'layer list written'}`);
    }
  } else process.exitCode = print(analyze(root)) ? 1 : 0;
}
