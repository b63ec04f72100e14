// The structural facts of src/ (scripts/structure.mjs): no import cycle of more than two files,
// no folder importing a folder above it, no file over 500 lines, no `export *` (but an entry's
// `export type *` of a curated surface). Known violations are listed in the script's ALLOWED lists.
// Also: the layer list the docs show is the script's, and no comment or doc names a missing file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, violations, layerTree, withLayerTree, LAYER_DOCS, LAYERS, LAYER_NOTES, type Allowed } from '../../scripts/structure.mjs';
import { stalePaths } from '../../scripts/stale-paths.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('src/: no import cycle of more than two files, no upward import between layers, no file over 500 lines, no export *', () => {
  const report = analyze(root);
  assert.ok(report.files.length > 100, `read ${report.files.length} files`);
  assert.deepEqual(violations(report), []);
});

test('the checker finds cycles (type-only and import() included), upward imports, long files, export * and unplaced folders', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-structure-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  // A three-file cycle through a type-only import and an import() type; a permitted two-file cycle.
  write('src/protocol/x.ts', "import type { Y } from './y.js';\nexport type X = Y;\n");
  write('src/protocol/y.ts', "export { z } from './z.js';\nexport type Y = 1;\n");
  write('src/protocol/z.ts', "export const z = 1;\nexport type Back = import('./x.js').X;\n");
  write('src/protocol/p.ts', "import { q } from './q.js';\nexport const p = q;\n");
  write('src/protocol/q.ts', "import type { p } from './p.js';\nexport const q = 1;\n// import { nothing } from './z.js' (a comment, not an edge)\n");
  // jsonrpc sits below protocol.
  write('src/jsonrpc/codec.ts', "import { p } from '../protocol/p.js';\nexport const codec = p;\n");
  write('src/jsonrpc/long.ts', 'export const a = 1;\n'.repeat(501));
  write('src/misc/m.ts', 'export const m = 1;\n');
  write('src/index.ts', "export { codec } from './jsonrpc/codec.js';\nexport * from './protocol/p.js';\n");
  // The one star allowed: an entry's `export type *` of a surface module; not a value star of it,
  // not `export type *` of anything else, not a surface re-exported from outside entries/.
  write('src/protocol/surface.ts', "export type { X } from './x.js';\n");
  write('src/entries/ok.ts', "export type * from '../protocol/surface.js';\n");
  write('src/entries/value-star.ts', "export * from '../protocol/surface.js';\n");
  write('src/entries/other.ts', "export type * from '../protocol/p.js';\n");
  write('src/server/inner.ts', "export type * from '../protocol/surface.js';\n");

  const none: Allowed = { cycles: [], upward: [], long: [], exportStar: [] };
  const report = analyze(dir, { allowed: none });
  assert.equal(report.files.length, 14);
  assert.deepEqual(
    report.cycles.map((c) => c.files),
    [['src/protocol/x.ts', 'src/protocol/y.ts', 'src/protocol/z.ts']],
  );
  assert.deepEqual(report.pairs, [['src/protocol/p.ts', 'src/protocol/q.ts']]);
  const found = violations(report);
  assert.equal(found.length, 8, found.join('\n'));
  assert.match(found[0], /^import cycle of 3 files: src\/protocol\/\w\.ts -> src\/protocol\/\w\.ts -> src\/protocol\/\w\.ts -> /);
  assert.equal(found[1], 'jsonrpc imports protocol, a layer above it: src/jsonrpc/codec.ts -> src/protocol/p.ts');
  assert.equal(found[2], 'src/jsonrpc/long.ts has 501 lines (limit 500)');
  const stars = found.slice(3, 7).map((f) => f.split(' ')[0]);
  assert.deepEqual(stars.sort(), ['src/entries/other.ts', 'src/entries/value-star.ts', 'src/index.ts', 'src/server/inner.ts']);
  for (const f of found.slice(3, 7)) assert.match(f, / uses export \* \(name the re-exported bindings/);
  assert.match(found[7], /^src\/misc is not in the layer order/);

  // The allow-list covers a known cycle (or any part of it) and a known upward import.
  const allowed: Allowed = {
    cycles: [['src/protocol/x.ts', 'src/protocol/y.ts', 'src/protocol/z.ts', 'src/protocol/w.ts']],
    upward: [{ from: 'src/jsonrpc/codec.ts', to: 'protocol' }],
    long: ['src/jsonrpc/long.ts'],
    exportStar: ['src/index.ts', 'src/entries/other.ts', 'src/entries/value-star.ts', 'src/server/inner.ts'],
  };
  assert.deepEqual(violations(analyze(dir, { allowed })), [found[7]]);
});

test('CONTRIBUTING.md and docs/architecture.md show the layer list of scripts/structure.mjs, one line per layer', () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  assert.deepEqual(
    LAYER_NOTES.map(([name]) => name),
    [...LAYERS],
  );
  for (const [name, note] of LAYER_NOTES) assert.ok(note.length > 10 && !note.includes('\n'), `${name} has a one-line description`);
  const tree = layerTree();
  for (const doc of LAYER_DOCS) {
    const text = readFileSync(join(root, doc), 'utf8');
    const expected = withLayerTree(text, tree);
    assert.ok(expected !== undefined, `${doc} has the layer list marker`);
    assert.equal(text, expected, `${doc}'s layer list differs from scripts/structure.mjs: node scripts/structure.mjs --write-docs`);
  }
  // Not hollow: a doc with an old list would be rewritten.
  const doc = readFileSync(join(root, LAYER_DOCS[0]!), 'utf8');
  assert.notEqual(withLayerTree(doc, 'src/\n  jsonrpc/ 1 old\n'), doc);
});

test('no comment or doc names a file that does not exist', () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const stale = stalePaths(root).map((s) => `${s.file}:${s.line}: ${s.path}`);
  assert.deepEqual(stale, [], 'fix the path, or say it without one (node scripts/stale-paths.mjs lists them)');
});

test("the stale path finder sees moved files in comments and docs, and leaves globs, URLs and readers' files alone", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-paths-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  write('src/pool/tool-source.ts', '// the tool source (names.ts, next to it) and the loop (host/loop/code.ts)\nexport const a = 1;\n');
  write('src/pool/names.ts', "// moved from host/tool-source.ts; see ./missing.js\nexport const s = './nowhere.js'; // a string is not a comment\n");
  write('src/host/loop/code.ts', '/* the pool: pool/tool-source.ts (from src/), loop/code.ts (from src/host) */\nexport const c = /\\/ host\\/gone.ts/;\n');
  write('src/host/model.ts', '// the loop (loop.ts) and https://example.com/src/gone.ts and examples/{a,b}-server.ts\n');
  write('docs/guide.md', 'See `http/stateless.ts` in serving, `src/host/tool-source.ts`, `./.mcp.json`, `examples/email.md`, `docs/gone.md`.\n');
  write('src/serving/http/stateless.ts', 'export const x = 1;\n');
  write('CHANGELOG.md', '## Unreleased\n- moved src/host/tool-source.ts\n');
  const found = stalePaths(dir).map((s) => `${s.file}:${s.line}: ${s.path}`);
  assert.deepEqual(found.sort(), [
    'docs/guide.md:1: docs/gone.md',
    'docs/guide.md:1: src/host/tool-source.ts',
    'src/host/model.ts:1: loop.ts',
    'src/pool/names.ts:1: ./missing.js',
    'src/pool/names.ts:1: host/tool-source.ts',
  ]);
});
