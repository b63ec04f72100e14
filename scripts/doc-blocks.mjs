// Typechecks every ```ts / ```typescript block of README.md and docs/*.md against mcpkit's own
// source: each block becomes one module in .doc-blocks/ (named after its doc and line), `mcpkit`
// and `mcpkit/*` map to the src/ files behind package.json "exports", and errors are reported at
// the doc's line ("docs/server.md:42:5").
//
// Conventions for the docs (CONTRIBUTING.md):
// - Blocks of one page read as one story: a later block may use `server`, `client`, `z` and the
//   other names that scripts/doc-blocks/prelude.d.ts declares, without repeating the setup.
// - A block that is not code on its own (an excerpt of an options object, say) gets
//   `<!-- typecheck: skip (why) -->` on the line before its fence. Use it sparingly.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, '.doc-blocks');
const FENCE = /^```(ts|typescript)\s*$/;
const SKIP = /^<!--\s*typecheck:\s*skip\b\s*(.*?)\s*-->\s*$/;

/** README.md and docs/*.md, as paths relative to the repository. */
function docs() {
  const out = ['README.md'];
  for (const name of readdirSync(join(root, 'docs')).sort()) if (name.endsWith('.md')) out.push(`docs/${name}`);
  return out.filter((f) => existsSync(join(root, f)));
}

/** The ts blocks of one markdown file: { doc, line (of the fence), code, skip }. */
export function extractBlocks(doc, text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i])) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const marker = start > 0 ? SKIP.exec(lines[start - 1]) : null;
    if (marker && !/^\(.+\)$/.test(marker[1])) throw new Error(`${doc}:${start}: a typecheck skip marker needs a reason: <!-- typecheck: skip (why) -->`);
    blocks.push({ doc, line: start + 1, code: body.join('\n'), skip: marker ? marker[1].slice(1, -1) : undefined });
  }
  return blocks;
}

/** The file an exports target gives types from: its `types` condition, else the first path in it. */
function typesOf(target) {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object') return undefined;
  if (typeof target.types === 'string') return target.types;
  for (const value of Object.values(target)) {
    const found = typesOf(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `mcpkit` and `mcpkit/x` -> the src/ file whose build output package.json exports for it. */
function pathsFromExports() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const build = ts.readConfigFile(join(root, 'tsconfig.build.json'), ts.sys.readFile).config?.compilerOptions ?? {};
  const rootDir = (build.rootDir ?? 'src').replace(/^\.\//, '');
  const out = (build.outDir ?? 'dist').replace(/^\.\//, '');
  const paths = {};
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    const types = typesOf(target);
    if (typeof types !== 'string' || !/\.d\.ts$|\.js$/.test(types)) continue; // ./package.json
    const rel = types.replace(/^\.\//, '');
    if (!rel.startsWith(`${out}/`)) throw new Error(`package.json exports["${key}"] points outside ${out}/: ${types}`);
    const source = `${rootDir}/${rel.slice(out.length + 1).replace(/\.d\.ts$|\.js$/, '.ts')}`;
    if (!existsSync(join(root, source))) throw new Error(`package.json exports["${key}"] (${types}) has no source at ${source}`);
    paths[key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`] = [join(root, source)];
  }
  return paths;
}

function fileName(block) {
  return `${block.doc.replace(/[/.]/g, '_')}_L${block.line}.ts`;
}

function main() {
  const blocks = docs().flatMap((doc) => extractBlocks(doc, readFileSync(join(root, doc), 'utf8')));
  const checked = blocks.filter((b) => b.skip === undefined);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const byFile = new Map();
  for (const b of checked) {
    const name = fileName(b);
    byFile.set(join(outDir, name), b);
    // `export {}` keeps each block a module of its own, so two blocks may both declare `server`.
    writeFileSync(join(outDir, name), `${b.code}\nexport {};\n`);
  }
  const config = {
    extends: relative(outDir, join(root, 'tsconfig.json')).split(sep).join('/'),
    compilerOptions: { noEmit: true, declaration: false, sourceMap: false, paths: pathsFromExports() },
    files: [
      relative(outDir, join(root, 'scripts', 'doc-blocks', 'prelude.d.ts'))
        .split(sep)
        .join('/'),
      ...[...byFile.keys()].map((f) => relative(outDir, f)),
    ],
    include: [],
  };
  writeFileSync(join(outDir, 'tsconfig.json'), `${JSON.stringify(config, null, 2)}\n`);

  const parsed = ts.getParsedCommandLineOfConfigFile(join(outDir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => report([d]) });
  if (!parsed) process.exit(1);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const errors = report(diagnostics);
  const skipped = blocks.filter((b) => b.skip !== undefined);
  console.log(
    `doc blocks: ${checked.length} typechecked, ${skipped.length} skipped (${skipped.map((b) => `${b.doc}:${b.line}`).join(', ') || 'none'}), ${errors} error(s)`,
  );
  process.exitCode = errors ? 1 : 0;

  /** Prints the errors at their doc line (like tsc, on stdout), in doc order; returns how many. */
  function report(list) {
    const lines = [];
    for (const d of list) {
      if (d.category !== ts.DiagnosticCategory.Error) continue;
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
      if (!d.file || d.start === undefined) {
        lines.push({ key: ['', 0, 0], text: `error TS${d.code}: ${message}` });
        continue;
      }
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      const block = byFile.get(resolve(d.file.fileName));
      const key = block ? [block.doc, block.line + 1 + line, character + 1] : [relative(root, d.file.fileName), line + 1, character + 1];
      lines.push({ key, text: `${key.join(':')} - error TS${d.code}: ${message}` });
    }
    lines.sort((a, b) => a.key[0].localeCompare(b.key[0]) || a.key[1] - b.key[1] || a.key[2] - b.key[2]);
    for (const l of lines) console.log(l.text);
    return lines.length;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
