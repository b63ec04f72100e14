// Model-facing names (src/pool/names.ts): within the provider's pattern, unique, reversible,
// and a function of the set of entries alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignNames, DEFAULT_NAME_PATTERN, entryKey, NameRegistry, sanitizeName, shortHash, type NameEntry } from '../../src/pool/names.js';
import { globToRegExp, toolFilter } from '../../src/pool/tool-filter.js';

const names = (entries: NameEntry[], o = {}) => {
  const m = assignNames(entries, o);
  return entries.map((e) => m.get(entryKey(e)));
};

function checkAll(entries: NameEntry[], o = {}) {
  const m = assignNames(entries, o);
  const all = [...m.values()];
  assert.equal(new Set(all).size, all.length, `unique: ${all}`);
  for (const n of all) assert.match(n, DEFAULT_NAME_PATTERN);
  return m;
}

test('plain names stay as the server wrote them; on-clash prefixes only the clashing ones', () => {
  assert.deepEqual(
    names([
      { server: 'fs', name: 'read' },
      { server: 'web', name: 'search' },
      { server: 'db', name: 'search' },
    ]),
    ['read', 'web_search', 'db_search'],
  );
});

test('prefix always and never', () => {
  assert.deepEqual(names([{ server: 'fs', name: 'read' }], { prefix: 'always' }), ['fs_read']);
  // never: a clash is still settled, by hashing both (neither has a better claim)
  const [a, b] = names(
    [
      { server: 'a', name: 'x' },
      { server: 'b', name: 'x' },
    ],
    { prefix: 'never' },
  );
  assert.match(a!, /^x_[a-z0-9]{8}$/);
  assert.match(b!, /^x_[a-z0-9]{8}$/);
  assert.notEqual(a, b);
});

test('a per-server policy overrides the default', () => {
  assert.deepEqual(
    names(
      [
        { server: 'fs', name: 'read' },
        { server: 'gh', name: 'issues' },
      ],
      { prefixOf: (s: string) => (s === 'gh' ? 'always' : undefined) },
    ),
    ['read', 'gh_issues'],
  );
});

test('dots, spaces and unicode are replaced, and the name gets a hash of the original', () => {
  const [dotted, spaced, greek, emoji] = names([
    { server: 's', name: 'files.read' },
    { server: 's', name: 'make report' },
    { server: 's', name: 'λόγος' },
    { server: 's', name: '🚀launch' },
  ]);
  assert.match(dotted!, /^files_read_[a-z0-9]{8}$/);
  assert.match(spaced!, /^make_report_[a-z0-9]{8}$/);
  assert.match(greek!, /^_{5}_[a-z0-9]{8}$/);
  // One underscore per code point: an emoji (two UTF-16 units) is one character replaced.
  assert.match(emoji!, /^_launch_[a-z0-9]{8}$/);
  assert.equal(sanitizeName('a.b/c', /^[a-z]$/), 'a_b_c');
});

test('collisions after sanitising: the unchanged name keeps it, the changed one is hashed', () => {
  const m = checkAll([
    { server: 's', name: 'a_b' },
    { server: 's', name: 'a.b' },
    { server: 's', name: 'a b' },
  ]);
  assert.equal(m.get(entryKey({ server: 's', name: 'a_b' })), 'a_b');
  assert.notEqual(m.get(entryKey({ server: 's', name: 'a.b' })), m.get(entryKey({ server: 's', name: 'a b' })));
});

test('prefixed names that collide (server a_b tool c, server a tool b_c) are both hashed', () => {
  const m = checkAll(
    [
      { server: 'a_b', name: 'c' },
      { server: 'a', name: 'b_c' },
    ],
    { prefix: 'always' },
  );
  for (const n of m.values()) assert.match(n, /^a_b_c_[a-z0-9]{8}$/);
});

test('200-character names are cut to 64 with a hash; two that share the first 64 differ', () => {
  const long = 'x'.repeat(200);
  const m = checkAll([
    { server: 's', name: `${long}1` },
    { server: 's', name: `${long}2` },
    { server: 't', name: 'y'.repeat(64) },
    { server: 't', name: 'z'.repeat(65) },
  ]);
  const [a, b, y, z] = [`${long}1`, `${long}2`, 'y'.repeat(64), 'z'.repeat(65)].map((n, i) => m.get(entryKey({ server: i < 2 ? 's' : 't', name: n }))!);
  assert.equal(a.length, 64);
  assert.equal(b.length, 64);
  assert.notEqual(a, b);
  assert.equal(y, 'y'.repeat(64), 'exactly 64 is allowed as is');
  assert.equal(z.length, 64);
  assert.match(z, /^z{55}_[a-z0-9]{8}$/);
});

test('the same set gives the same names in any order', () => {
  const entries: NameEntry[] = [];
  for (const server of ['alpha', 'beta', 'gamma.io', 'δ']) {
    for (const name of ['search', 'read', 'write.file', 'x'.repeat(70), 'λ']) entries.push({ server, name });
  }
  const reference = checkAll(entries);
  let seed = 7;
  for (let round = 0; round < 20; round++) {
    const shuffled = [...entries];
    for (let i = shuffled.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const j = seed % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    assert.deepEqual(new Map([...assignNames(shuffled)].sort()), new Map([...reference].sort()));
  }
});

test('hashes differ for different entries and are stable', () => {
  assert.equal(shortHash({ server: 'a', name: 'b' }), shortHash({ server: 'a', name: 'b' }));
  assert.notEqual(shortHash({ server: 'a', name: 'b' }), shortHash({ server: 'b', name: 'a' }));
  // The key separator keeps server/name boundaries apart.
  assert.notEqual(shortHash({ server: 'ab', name: 'c' }), shortHash({ server: 'a', name: 'bc' }));
  const seen = new Set<string>();
  for (let i = 0; i < 5000; i++) seen.add(shortHash({ server: 's', name: `tool${i}` }));
  assert.equal(seen.size, 5000);
});

test('other patterns: the class and length are read from ^[class]{m,n}$; others need charset and maxLength', () => {
  const [n] = names([{ server: 's', name: 'Get-Thing' }], { pattern: /^[a-z0-9_]{1,32}$/ });
  assert.match(n!, /^_et__hing_[a-z0-9]{8}$/);
  assert.throws(() => assignNames([{ server: 's', name: 'x' }], { pattern: /^\w+$/ }), /give charset and maxLength/);
  const [m] = names([{ server: 's', name: 'a.b' }], { pattern: /^\w+$/, charset: /^\w$/, maxLength: 20 });
  assert.match(m!, /^a_b_[a-z0-9]{8}$/);
});

test('an empty name still gets a valid one', () => {
  const [n] = names([{ server: 's', name: '' }]);
  assert.match(n!, /^_[a-z0-9]{8}$/);
});

test('NameRegistry: resolve maps back; a name already used stays when a clash appears later', () => {
  const r = new NameRegistry();
  r.update([{ server: 'web', name: 'search' }]);
  assert.equal(r.nameOf({ server: 'web', name: 'search' }), 'search');
  assert.deepEqual(r.resolve('search'), { server: 'web', name: 'search' });
  // A second server offers `search` too: the first keeps its name, the newcomer is prefixed.
  const after = r.update([
    { server: 'web', name: 'search' },
    { server: 'db', name: 'search' },
  ]);
  assert.deepEqual(
    after.map((x) => x.name),
    ['db_search', 'search'],
  );
  assert.equal(r.resolve('search')?.server, 'web');
  assert.equal(r.resolve('db_search')?.server, 'db');
  // A fresh registry given the same set agrees with assignNames.
  const fresh = new NameRegistry();
  fresh.update([
    { server: 'db', name: 'search' },
    { server: 'web', name: 'search' },
  ]);
  assert.equal(fresh.nameOf({ server: 'web', name: 'search' }), 'web_search');
  // An entry that leaves and comes back gets its old name.
  r.update([{ server: 'db', name: 'search' }]);
  assert.equal(r.nameOf({ server: 'db', name: 'search' }), 'db_search');
  r.update([
    { server: 'db', name: 'search' },
    { server: 'web', name: 'search' },
  ]);
  assert.equal(r.nameOf({ server: 'web', name: 'search' }), 'search');
  assert.equal(r.resolve('nope'), undefined);
});

test('tool filters: exact names, globs, deny wins', () => {
  const f = toolFilter(['read_*', 'list', 'get?'], ['read_secret*']);
  assert.equal(f('read_file'), true);
  assert.equal(f('list'), true);
  assert.equal(f('list2'), false);
  assert.equal(f('getx'), true);
  assert.equal(f('getxy'), false);
  assert.equal(f('read_secret_key'), false);
  assert.equal(toolFilter(undefined, ['rm'])('ls'), true);
  assert.equal(toolFilter(undefined, ['rm'])('rm'), false);
  // Regex characters in a name match themselves.
  assert.equal(globToRegExp('a.b').test('axb'), false);
  assert.equal(globToRegExp('a.b').test('a.b'), true);
});
