// Paths named in comments and docs that no longer exist: `node scripts/stale-paths.mjs` lists
// them, and the structure tests fail on any. A comment or a doc that sends a reader to a file
// that moved or went away (the host's tool source, now in src/pool) is noticed by nothing else.
//
// What is read: the comments of every .ts/.tsx/.mts/.mjs file under src/, test/, scripts/,
// examples/, bench/ and conformance/, and README.md, CONTRIBUTING.md, SECURITY.md and docs/*.md
// (CHANGELOG.md is history: it names files as they were). What counts as a path: a word with a
// slash and a source or data extension whose first folder is one of the repository's (a top
// folder, or a folder name found under src/, test/ or bench/), or a `./` or `../` path in a
// comment. Markdown files are checked only under docs/ or at the top (a doc's `examples/email.md`
// is a file in a reader's skill, not ours). A path is there when it resolves from the repository
// root, from src/ or test/, from the folder of the file that names it or a folder above it, or, in
// docs, from a folder directly under src/ (docs/architecture.md names the `http/` files in its
// serving section by their path inside that layer). An import specifier's `.js` finds its `.ts`. Globs, brace lists and URLs are
// not paths here. A bare file name in a comment under src/ (`(names.ts)`) must name a file of the
// same layer folder.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const CODE_DIRS = ['src', 'test', 'scripts', 'examples', 'bench', 'conformance'];
const DOCS = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md'];
const PATH = /(?<![\w/.:@~<>-])((?:\.{1,2}\/)*[\w.-]+(?:\/[\w.-]+)+\.(?:ts|tsx|mts|mjs|js|md|json|yml))(?![\w/{*-])/g;

const BARE = /(?<![\w/.@{},*-])(\w[\w-]*\.tsx?)\b/g;

function listFiles(root, dir, out = []) {
  let names;
  try {
    names = readdirSync(join(root, dir));
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) listFiles(root, rel, out);
    else out.push(rel);
  }
  return out;
}

function listDirs(root, dir, out = new Set()) {
  let names;
  try {
    names = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const d of names) {
    if (!d.isDirectory() || d.name === 'node_modules' || d.name.startsWith('.')) continue;
    out.add(d.name);
    listDirs(root, `${dir}/${d.name}`, out);
  }
  return out;
}

/** The comments of a source file, each with the line it starts on. */
function comments(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const out = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      const start = scanner.getTokenStart();
      out.push({ text: scanner.getTokenText(), line: text.slice(0, start).split('\n').length });
    }
    // A `/` that begins a regular expression would otherwise be read as division and the
    // pattern's text as code; a `}` may close a template literal's substitution.
    if (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) scanner.reScanSlashToken();
    if (kind === ts.SyntaxKind.CloseBraceToken) scanner.reScanTemplateToken(false);
  }
  return out;
}

/** Every path named in a comment or doc that resolves to no file: { file, line, path }. */
export function stalePaths(root) {
  const texts = [];
  for (const dir of CODE_DIRS)
    for (const file of listFiles(root, dir)) {
      if (!/\.(?:ts|tsx|mts|mjs)$/.test(file) || file.endsWith('.d.ts')) continue;
      for (const c of comments(readFileSync(join(root, file), 'utf8'))) texts.push({ file, line: c.line, text: c.text, doc: false });
    }
  for (const file of [...DOCS, ...listFiles(root, 'docs').filter((f) => f.endsWith('.md'))]) {
    if (!existsSync(join(root, file))) continue;
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    for (const [i, text] of lines.entries()) texts.push({ file, line: i + 1, text, doc: true });
  }
  const top = readdirSync(root, { withFileTypes: true }).filter(
    (d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules' && d.name !== 'dist',
  );
  const known = new Set(top.map((d) => d.name));
  for (const dir of ['src', 'test', 'bench']) for (const name of listDirs(root, dir)) known.add(name);
  const layers = readdirSync(join(root, 'src'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(root, 'src', d.name));
  const layerFiles = new Map();
  for (const f of listFiles(root, 'src')) {
    const layer = f.split('/')[1];
    if (!layerFiles.has(layer)) layerFiles.set(layer, new Set());
    layerFiles.get(layer).add(f.split('/').pop());
  }
  const out = [];
  for (const { file, line, text, doc } of texts) {
    if (!doc && file.startsWith('src/') && file.split('/').length > 2) {
      const mine = layerFiles.get(file.split('/')[1]);
      for (const m of text.matchAll(BARE)) if (!mine.has(m[1])) out.push({ file, line: line + text.slice(0, m.index).split('\n').length - 1, path: m[1] });
    }
    for (const m of text.matchAll(PATH)) {
      const path = m[1];
      const relative = path.startsWith('./') || path.startsWith('../');
      if (relative ? doc : !known.has(path.split('/')[0])) continue;
      if (path.endsWith('.md') && !path.startsWith('docs/') && path.split('/').length > 1 && !relative) continue;
      const bases = [root, join(root, 'src'), join(root, 'test')];
      for (let dir = dirname(file); dir !== '.' && dir !== ''; dir = dirname(dir)) bases.push(join(root, dir));
      if (doc) bases.push(...layers);
      const names = /\.js$/.test(path) ? [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')] : [path];
      if (bases.some((b) => names.some((n) => existsSync(join(b, n))))) continue;
      out.push({ file, line: line + text.slice(0, m.index).split('\n').length - 1, path });
    }
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const stale = stalePaths(root);
  for (const s of stale) console.log(`${s.file}:${s.line}: ${s.path} does not exist`);
  console.log(stale.length ? `${stale.length} stale path(s)` : 'stale paths: none');
  process.exitCode = stale.length ? 1 : 0;
}
