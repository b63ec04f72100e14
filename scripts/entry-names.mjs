// The names each package entry (src/entries/*.ts) exports, as the TypeScript compiler sees them:
// `values` (what exists at runtime) and `types` (type-only names: interfaces, type aliases, and
// anything re-exported with `export type`). test/entries/exports.test.ts compares the types with
// test/entries/types.json, as it compares the runtime names with exports.json: a change to either
// is a change to mcpkit's API and shows up as a diff of a pinned list.
//
//   node scripts/entry-names.mjs           prints the names, entry by entry
//   node scripts/entry-names.mjs --write   rewrites test/entries/types.json
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Whether an exported symbol is a type only: re-exported with `type`, or naming no value. */
function typeOnly(checker, symbol) {
  let current = symbol;
  while (current && current.flags & ts.SymbolFlags.Alias) {
    for (const d of current.declarations ?? []) {
      if (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) return true;
      if (ts.isImportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) return true;
      if (ts.isImportClause(d) && d.isTypeOnly) return true;
    }
    current = checker.getImmediateAliasedSymbol(current);
  }
  return !current || (current.flags & ts.SymbolFlags.Value) === 0;
}

/** { entry: { values, types } } for every file in src/entries, names sorted. */
export function entryNames(root) {
  const dir = join(root, 'src/entries');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => join(dir, f));
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const out = {};
  for (const file of files) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file}: not a module`);
    const values = [];
    const types = [];
    // A star re-export (`export type * from`) marks its names type-only on the star itself.
    const typeStars = new Set(
      source.statements
        .filter((s) => ts.isExportDeclaration(s) && s.isTypeOnly && !s.exportClause && s.moduleSpecifier)
        .map((s) => checker.getSymbolAtLocation(s.moduleSpecifier)),
    );
    const starred = new Set([...typeStars].flatMap((m) => (m ? checker.getExportsOfModule(m).map((e) => e.name) : [])));
    for (const symbol of checker.getExportsOfModule(module)) {
      const local = source.locals?.get(symbol.escapedName) ?? module.exports?.get(symbol.escapedName);
      const viaStar = !local && starred.has(symbol.name);
      (viaStar || typeOnly(checker, symbol) ? types : values).push(symbol.name);
    }
    out[file.slice(dir.length + 1).replace(/\.ts$/, '')] = { values: values.sort(), types: types.sort() };
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const names = entryNames(root);
  if (process.argv.includes('--write')) {
    const path = join(root, 'test/entries/types.json');
    // In exports.json's order, so the two pinned lists read side by side.
    const order = Object.keys(JSON.parse(readFileSync(join(root, 'test/entries/exports.json'), 'utf8')));
    const keys = [...order.filter((k) => k in names), ...Object.keys(names).filter((k) => !order.includes(k))];
    const types = Object.fromEntries(keys.map((entry) => [entry, names[entry].types]));
    const before = (() => {
      try {
        return JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        return {};
      }
    })();
    for (const [entry, list] of Object.entries(types)) {
      const was = new Set(before[entry] ?? []);
      const now = new Set(list);
      const added = list.filter((n) => !was.has(n));
      const removed = [...was].filter((n) => !now.has(n));
      if (added.length || removed.length) console.log(`${entry}: +${added.join(' +') || '-'}  -${removed.join(' -') || '-'}`);
    }
    writeFileSync(path, `${JSON.stringify(types, null, 2)}\n`);
    console.log(`wrote ${path}`);
  } else console.log(JSON.stringify(names, null, 2));
}
