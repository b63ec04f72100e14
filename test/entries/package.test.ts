// What `npm pack` ships (issue 13, item 11): the built entries, no type declarations for the CLI's
// internals, and source maps that carry their sources (src/ is not in the package). Reads the
// dist/ that `npm run build` made, as CI does before the tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, posix } from 'node:path';

/** The paths `npm pack` would put in the package. */
function packed(): string[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
}

test('the package carries its licence: a LICENSE with the MIT text that package.json names', () => {
  const files = packed();
  assert.ok(files.includes('LICENSE'), 'LICENSE is in the package');
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string };
  assert.equal(pkg.license, 'MIT');
  const text = readFileSync('LICENSE', 'utf8');
  assert.match(text, /^MIT License\n\nCopyright \(c\) \d{4} the mcpkit authors\n/);
  assert.match(text, /Permission is hereby granted, free of charge, to any person obtaining a copy/);
  assert.match(text, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
});

test('every relative link of the markdown the package ships points at a file it ships', () => {
  const files = packed();
  const shipped = new Set(files);
  const broken: string[] = [];
  for (const doc of files.filter((f) => f.endsWith('.md'))) {
    // Links outside fenced code: [text](target), not URLs or in-page anchors.
    const text = readFileSync(doc, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z][a-z+.-]*:/i.test(link) || link.startsWith('#')) continue;
      const path = posix.normalize(posix.join(dirname(doc), link.split('#')[0]!));
      if (!shipped.has(path) && !files.some((f) => f.startsWith(`${path}/`))) broken.push(`${doc}: ${link}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the package: entries built, no CLI .d.ts, no src/, every source map self-contained', () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const files: string[] = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, { default?: string; types?: string } | string> };
  for (const [sub, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    for (const f of [target.default, target.types]) if (f) assert.ok(files.includes(f.replace(/^\.\//, '')), `${sub}: ${f} is in the package`);
  }
  assert.deepEqual(
    files.filter((f) => f.startsWith('dist/cli/') && f.endsWith('.d.ts')),
    [],
    'no declarations for CLI internals',
  );
  assert.deepEqual(
    files.filter((f) => f.startsWith('src/')),
    [],
    'src/ is not shipped',
  );
  const maps = files.filter((f) => f.endsWith('.js.map'));
  assert.ok(maps.length > 50);
  for (const m of maps) {
    const map = JSON.parse(readFileSync(m, 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
    assert.equal(map.sourcesContent?.length, map.sources.length, `${m} carries its sources`);
  }
});
