// The public surface, entry by entry: the runtime names each package entry exports
// (exports.json) and its type-only names (types.json, read by the TypeScript compiler:
// scripts/entry-names.mjs). A change here is a change to mcpkit's API, so it has to show up as a
// deliberate diff of a pinned list; removing a name breaks someone's code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './graph.js';
import { entryNames } from '../../scripts/entry-names.mjs';

const expected = JSON.parse(readFileSync(join(ROOT, 'test/entries/exports.json'), 'utf8')) as Record<string, string[]>;
const expectedTypes = JSON.parse(readFileSync(join(ROOT, 'test/entries/types.json'), 'utf8')) as Record<string, string[]>;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };

test('every package entry is listed here, and every subpath of package.json has an entry file', () => {
  const files = readdirSync(join(ROOT, 'src/entries'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
  assert.deepEqual(files, Object.keys(expected).sort());
  const subpaths = Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? 'index' : k.slice(2)))
    .sort();
  assert.deepEqual(subpaths, files);
  for (const [key, value] of Object.entries(pkg.exports)) {
    if (key === './package.json') continue;
    const name = key === '.' ? 'index' : key.slice(2);
    assert.deepEqual(value, { types: `./dist/entries/${name}.d.ts`, default: `./dist/entries/${name}.js` });
  }
});

for (const name of Object.keys(expected)) {
  test(`${name === 'index' ? 'mcpkit' : `mcpkit/${name}`} exports exactly the names in exports.json`, async () => {
    const mod = (await import(`../../src/entries/${name}.js`)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(mod).sort(), [...expected[name]].sort());
  });
}

test('every entry exports exactly the type names in types.json, and the compiler sees the runtime names exports.json pins', () => {
  const names = entryNames(ROOT);
  assert.deepEqual(Object.keys(names).sort(), Object.keys(expectedTypes).sort(), 'types.json has one list per entry');
  const differences: string[] = [];
  for (const [entry, { values, types }] of Object.entries(names)) {
    const pinned = new Set(expectedTypes[entry]);
    const now = new Set(types);
    const added = types.filter((n) => !pinned.has(n));
    const removed = [...pinned].filter((n) => !now.has(n));
    if (added.length) differences.push(`${entry}: new type(s) ${added.join(', ')}`);
    if (removed.length) differences.push(`${entry}: type(s) no longer exported ${removed.join(', ')} (a breaking change)`);
    // The classifier is checked against the runtime: a value it took for a type (or the reverse)
    // would put a name in the wrong list.
    assert.deepEqual(values, [...expected[entry]!].sort(), `${entry}: the compiler's runtime names are exports.json's`);
  }
  assert.deepEqual(differences, [], 'if the change is meant, `node scripts/entry-names.mjs --write` rewrites types.json');
});

test('the type lists are not hollow: the protocol surface reaches the entries that speak the protocol', () => {
  // One curated module names the MCP wire types; mcpkit, mcpkit/server and mcpkit/client offer all of
  // them, and a type the surface leaves out (an engine internal) is in none of the three by accident.
  for (const entry of ['index', 'server', 'client']) {
    for (const name of ['CallToolResult', 'JsonRpcMessage', 'ElicitRequestedSchema', 'InputRequiredResult', 'ClientRequestMap', 'DetailedTask', 'AppToolUi'])
      assert.ok(expectedTypes[entry]!.includes(name), `${entry} exports the type ${name}`);
  }
  assert.ok(!expectedTypes['index']!.includes('ResourceContentsBase'), 'an unexported helper type stays inside');
});

test("no `export *` in src, but an entry's `export type *` of the protocol surface: every entry lists what it offers", () => {
  const offenders: string[] = [];
  const surfaceStar = /^export type \* from '\.\.\/protocol\/surface\.js';$/;
  const visit = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) visit(p);
      else if (p.endsWith('.ts'))
        for (const line of readFileSync(p, 'utf8').match(/^\s*export\s+(?:type\s+)?\*.*$/gm) ?? [])
          if (!(p.startsWith(join(ROOT, 'src/entries/')) && surfaceStar.test(line.trim()))) offenders.push(`${p.slice(ROOT.length + 1)}: ${line.trim()}`);
    }
  };
  visit(join(ROOT, 'src'));
  assert.deepEqual(offenders, []);
});
