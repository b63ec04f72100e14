// What README.md and docs/architecture.md say about the package, against the package: the
// entry-point table (in docs/architecture.md since issue 28) has one row per package.json export,
// every name a row shows is exported by that entry, and the root row names exactly the entries
// whose exports the root lacks; the README names every entry and links to the table; the
// README's two commands are ones .ci/run runs. The quick starts are run from the packed tarball by
// tarball.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './graph.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
const runtime = JSON.parse(readFileSync(join(ROOT, 'test/entries/exports.json'), 'utf8')) as Record<string, string[]>;

/** `mcpkit` -> `index`, `mcpkit/x` -> `x`: the file in src/entries/ and the key of exports.json. */
function entryFile(specifier: string): string {
  return specifier === pkg.name ? 'index' : specifier.slice(pkg.name.length + 1);
}

/** The text of a markdown file's section under `## heading`. */
function section(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = text.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(found, `${file} has a "## ${heading}" section`);
  return found;
}

/** Every package entry, as users import it (`mcpkit`, `mcpkit/server`, ...). */
const ENTRIES = Object.keys(pkg.exports)
  .filter((k) => k !== './package.json')
  .map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));

/** The rows of docs/architecture.md's entry table: the import and the backticked names of "what". */
function tableRows(): Array<{ entry: string; names: string[] }> {
  const rows = section('docs/architecture.md', 'The entry points')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  return rows.map(([, entry, what]) => ({
    entry: entry!.replace(/`/g, ''),
    names: [...what!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
  }));
}

const types = JSON.parse(readFileSync(join(ROOT, 'test/entries/types.json'), 'utf8')) as Record<string, string[]>;

/**
 * Every name src/entries/<file>.ts exports, types included: the two pinned lists, which
 * exports.test.ts holds to the entries (the runtime names by importing them, the types through the
 * TypeScript compiler, `export type *` of the protocol surface included).
 */
function exportedNames(file: string): Set<string> {
  return new Set([...(runtime[file] ?? []), ...(types[file] ?? [])]);
}

test('the entry table lists every package entry point, once, and nothing else', () => {
  const listed = tableRows().map((r) => r.entry);
  assert.deepEqual([...listed].sort(), [...ENTRIES].sort());
  assert.equal(new Set(listed).size, listed.length, 'an entry is listed twice');
});

test('the README names every entry point, and links to the table', () => {
  const text = section('README.md', 'Entry points');
  const named = new Set([...text.matchAll(/`(mcpkit(?:\/[\w-]+)?)`/g)].map((m) => m[1]!));
  assert.deepEqual([...named].sort(), [...ENTRIES].sort());
  assert.match(text, /\(docs\/architecture\.md#the-entry-points\)/);
});

test("the README's set-up and test commands are the ones .ci/run runs", () => {
  const block = /```sh\n([\s\S]*?)```/.exec(section('README.md', 'Set up and test (source checkout)'))?.[1];
  assert.ok(block, 'the section has a sh block');
  const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  const commands = block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .flatMap((l) => l.split('&&').map((c) => c.trim()));
  assert.deepEqual(commands, ['npm ci', 'npm run build', 'npm test', 'npm run test:e2e']);
  // `npm ci` runs with flags there; every other command is a line of its own.
  for (const c of commands)
    assert.ok(
      ci.some((l) => l === c || l.startsWith(`${c} `)),
      `.ci/run runs ${c}`,
    );
});

test('every name a row shows is exported by that entry; entries it mentions exist', () => {
  const entries = new Set(tableRows().map((r) => r.entry));
  const wrong: string[] = [];
  for (const { entry, names } of tableRows()) {
    const offered = exportedNames(entryFile(entry));
    for (const name of names) {
      if (name === pkg.name || name.startsWith(`${pkg.name}/`)) {
        if (!entries.has(name)) wrong.push(`${entry}: mentions ${name}, which is not an entry`);
      } else if (/^[A-Za-z_$][\w$]*$/.test(name)) {
        if (!offered.has(name)) wrong.push(`${entry}: \`${name}\` is not exported there`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('the root row names exactly the entries whose exports the root lacks', () => {
  const rootNames = new Set(runtime['index']);
  const lacking = Object.entries(runtime)
    .filter(([file, names]) => file !== 'index' && names.some((n) => !rootNames.has(n)))
    .map(([file]) => `${pkg.name}/${file}`)
    .sort();
  // The positive control: the root really leaves some entries out, so the row has something to say.
  assert.ok(lacking.length > 0);
  const rootRow = tableRows().find((r) => r.entry === pkg.name);
  assert.ok(rootRow, 'the table has a row for the root');
  const mentioned = rootRow.names.filter((n) => n.startsWith(`${pkg.name}/`)).sort();
  assert.deepEqual(mentioned, lacking);
});

test('the names checked include type-only, renamed and surface exports (they must, or the check above is hollow)', () => {
  const stdio = exportedNames('stdio');
  assert.ok(stdio.has('connect'), '`connectStdio as connect` is exported as connect');
  assert.ok(!stdio.has('connectStdio'));
  assert.ok(stdio.has('ServeStdioOptions'), 'a `type` export is seen');
  assert.ok(exportedNames('server').has('RequestContext'), 'an `export type { ... }` block is seen');
  assert.ok(exportedNames('client').has('CallToolResult'), 'a protocol type, re-exported from the surface, is seen');
});
