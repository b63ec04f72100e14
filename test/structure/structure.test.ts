// The structural facts of src/ (scripts/structure.mjs): no import cycle of more than two files,
// no folder importing a folder above it, no file over 500 lines, no `export *`. Known violations are listed in
// the script's ALLOWED lists while issue 12 removes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyze, violations, type Allowed } from '../../scripts/structure.mjs';

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

  const none: Allowed = { cycles: [], upward: [], long: [], exportStar: [] };
  const report = analyze(dir, { allowed: none });
  assert.equal(report.files.length, 9);
  assert.deepEqual(
    report.cycles.map((c) => c.files),
    [['src/protocol/x.ts', 'src/protocol/y.ts', 'src/protocol/z.ts']],
  );
  assert.deepEqual(report.pairs, [['src/protocol/p.ts', 'src/protocol/q.ts']]);
  const found = violations(report);
  assert.equal(found.length, 5, found.join('\n'));
  assert.match(found[0], /^import cycle of 3 files: src\/protocol\/\w\.ts -> src\/protocol\/\w\.ts -> src\/protocol\/\w\.ts -> /);
  assert.equal(found[1], 'jsonrpc imports protocol, a layer above it: src/jsonrpc/codec.ts -> src/protocol/p.ts');
  assert.equal(found[2], 'src/jsonrpc/long.ts has 501 lines (limit 500)');
  assert.equal(found[3], 'src/index.ts uses export * (name the re-exported bindings)');
  assert.match(found[4], /^src\/misc is not in the layer order/);

  // The allow-list covers a known cycle (or any part of it) and a known upward import.
  const allowed: Allowed = {
    cycles: [['src/protocol/x.ts', 'src/protocol/y.ts', 'src/protocol/z.ts', 'src/protocol/w.ts']],
    upward: [{ from: 'src/jsonrpc/codec.ts', to: 'protocol' }],
    long: ['src/jsonrpc/long.ts'],
    exportStar: ['src/index.ts'],
  };
  assert.deepEqual(violations(analyze(dir, { allowed })), [found[4]]);
});
