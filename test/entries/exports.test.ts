// The public surface, entry by entry: the runtime names each package entry exports. A change
// here is a change to mcpkit's API, so it has to show up as a deliberate diff of exports.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './graph.js';

const expected = JSON.parse(readFileSync(join(ROOT, 'test/entries/exports.json'), 'utf8')) as Record<string, string[]>;
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
    const mod = (await import(`../../src/entries/${name}.ts`)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(mod).sort(), [...expected[name]].sort());
  });
}

test('no `export *` anywhere in src: every entry lists what it offers', () => {
  const offenders: string[] = [];
  const visit = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) visit(p);
      else if (p.endsWith('.ts') && /^\s*export\s+\*/m.test(readFileSync(p, 'utf8'))) offenders.push(p.slice(ROOT.length + 1));
    }
  };
  visit(join(ROOT, 'src'));
  assert.deepEqual(offenders, []);
});
