import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UriTemplate, type UriVariables } from '../../src/server/uri-template.js';

// Variable values used by the RFC 6570 examples (sections 1.2 and 3.2). `undef` is left
// out on purpose: an absent key is how an undefined variable is spelled here.
const RFC: UriVariables = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_list: [],
};

function expands(cases: Array<[string, string]>, vars: UriVariables = RFC): void {
  for (const [template, expected] of cases) {
    assert.equal(new UriTemplate(template).expand(vars), expected, template);
  }
}

test('expand: RFC 6570 level 1 (simple string expansion)', () => {
  expands([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{half}', '50%25'],
    ['O{empty}X', 'OX'],
    ['O{undef}X', 'OX'],
  ]);
});

test('expand: RFC 6570 level 2 (reserved and fragment expansion)', () => {
  expands([
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+half}', '50%25'],
    ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
    ['{+base}index', 'http://example.com/home/index'],
    ['O{+empty}X', 'OX'],
    ['O{+undef}X', 'OX'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['up{+path}{var}/here', 'up/foo/barvalue/here'],
    ['X{#var}', 'X#value'],
    ['X{#hello}', 'X#Hello%20World!'],
    ['{#half}', '#50%25'],
    ['foo{#empty}', 'foo#'],
    ['foo{#undef}', 'foo'],
  ]);
});

test('expand: RFC 6570 level 3 (multiple variables, label, path, matrix, query)', () => {
  expands([
    ['map?{x,y}', 'map?1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['?{x,empty}', '?1024,'],
    ['?{x,undef}', '?1024'],
    ['?{undef,y}', '?768'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{.who}', '.fred'],
    ['{.who,who}', '.fred.fred'],
    ['{.half,who}', '.50%25.fred'],
    ['X{.empty}', 'X.'],
    ['X{.undef}', 'X'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{/who,who}', '/fred/fred'],
    ['{/half,who}', '/50%25/fred'],
    ['{/who,dub}', '/fred/me%2Ftoo'],
    ['{/var,empty}', '/value/'],
    ['{/var,undef}', '/value'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{;x,y,undef}', ';x=1024;y=768'],
    ['{;who}', ';who=fred'],
    ['{;half}', ';half=50%25'],
    ['{;empty}', ';empty'],
    ['{;v,empty,who}', ';v=6;empty;who=fred'],
    ['{;v,bar,who}', ';v=6;who=fred'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['{?x,y,undef}', '?x=1024&y=768'],
    ['{?who}', '?who=fred'],
    ['{?half}', '?half=50%25'],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{&who}', '&who=fred'],
    ['{&half}', '&half=50%25'],
  ]);
});

test('expand: RFC 6570 level 4 (prefix and explode modifiers)', () => {
  expands([
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    ['{count}', 'one,two,three'],
    ['{count*}', 'one,two,three'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{+list}', 'red,green,blue'],
    ['{+list*}', 'red,green,blue'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['{#list}', '#red,green,blue'],
    ['{#list*}', '#red,green,blue'],
    ['X{.var:3}', 'X.val'],
    ['X{.list}', 'X.red,green,blue'],
    ['X{.list*}', 'X.red.green.blue'],
    ['www{.dom*}', 'www.example.com'],
    ['{/var:1,var}', '/v/value'],
    ['{/list}', '/red,green,blue'],
    ['{/list*}', '/red/green/blue'],
    ['{/count}', '/one,two,three'],
    ['{/count*}', '/one/two/three'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    ['{;hello:5}', ';hello=Hello'],
    ['{;list}', ';list=red,green,blue'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    ['{;count*}', ';count=one;count=two;count=three'],
    ['{?var:3}', '?var=val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['{?count*}', '?count=one&count=two&count=three'],
    ['{&var:3}', '&var=val'],
    ['{&list}', '&list=red,green,blue'],
    ['{&list*}', '&list=red&list=green&list=blue'],
    ['{&count*}', '&count=one&count=two&count=three'],
  ]);
});

test('expand: empty lists are undefined, empty list items still expand', () => {
  expands(
    [
      ['X{empty_list}Y', 'XY'],
      ['X{?empty_list*}', 'X'],
      ['{;l*}', ';l;l=a'],
      ['{?l*}', '?l=&l=a'],
    ],
    { empty_list: [], l: ['', 'a'] },
  );
});

test('expand: encoding of non-ASCII, percent triplets, literals and prefixes', () => {
  expands(
    [
      ['{s}', '%C3%A9t%C3%A9%20%F0%9F%98%80'],
      ['{s:2}', '%C3%A9t'],
      ['{e:1}', '%F0%9F%98%80'], // the prefix counts code points, never splits a surrogate pair
      ['{+pct}', '%41%252z'], // valid triplets pass through reserved expansion, a bare % does not
      ['{pct}', '%2541%252z'],
      ['{+r}', ":/?#[]@!$&'()*+,;="],
      ['{r}', '%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D'],
      ['{lone}', '%EF%BF%BD'], // a lone surrogate cannot be UTF-8 encoded; U+FFFD instead of a throw
      ['caf\u00e9 docs/{x}', 'caf%C3%A9%20docs/1'],
    ],
    { s: 'été 😀', e: '😀x', pct: '%41%2z', r: ":/?#[]@!$&'()*+,;=", lone: '\ud800', x: '1' },
  );
});

test('expand: only own properties count as variables', () => {
  assert.equal(new UriTemplate('a{constructor}b{toString}c').expand({}), 'abc');
  const vars = JSON.parse('{"__proto__":"p"}') as UriVariables;
  assert.equal(new UriTemplate('{__proto__}').expand(vars), 'p');
});

function matches(template: string, cases: Array<[string, UriVariables | undefined]>): void {
  const t = new UriTemplate(template);
  for (const [uri, expected] of cases) assert.deepEqual(t.match(uri), expected, `${template} ~ ${uri}`);
}

test('match: simple variables match exactly one non-empty path segment', () => {
  matches('file:///docs/{name}', [
    ['file:///docs/readme.md', { name: 'readme.md' }],
    ['file:///docs/a%20b%2Fc', { name: 'a b/c' }],
    ['file:///docs/caf%C3%A9', { name: 'café' }],
    ['file:///docs/a,b', { name: 'a,b' }],
    ['file:///docs/', undefined],
    ['file:///docs/a/b', undefined],
    ['file:///docs/a?b=1', undefined],
    ['file:///docs/a#top', undefined],
    ['file:///other/a', undefined],
    ['file:///docs', undefined],
    ['', undefined],
  ]);
  matches('users://{id}/profile', [
    ['users://42/profile', { id: '42' }],
    ['users://42/profile/x', undefined],
  ]);
});

test('match: multiple path variables and greedy ambiguity resolution', () => {
  matches('repo://{owner}/{repo}/blob/{ref}', [['repo://acme/widgets/blob/main', { owner: 'acme', repo: 'widgets', ref: 'main' }]]);
  // Like a backtracking matcher, the leftmost variable takes the longest value that still fits.
  matches('{name}.{ext}', [
    ['archive.tar.gz', { name: 'archive.tar', ext: 'gz' }],
    ['noext', undefined],
  ]);
  matches('{a}{b}', [
    ['xyz', { a: 'xy', b: 'z' }],
    ['x', undefined],
  ]);
  matches('{x,y}', [
    ['1024,768', { x: '1024', y: '768' }],
    ['1024', { x: '1024' }],
    ['1,2,3', { x: '1', y: '2,3' }],
  ]);
});

test('match: reserved and fragment expansion may contain reserved characters', () => {
  matches('file:///{+path}', [
    ['file:///a/b/c.txt', { path: 'a/b/c.txt' }],
    ['file:///a%20b/c', { path: 'a b/c' }],
    ['file:///', undefined],
  ]);
  matches('{+base}{?q}', [['http://x/y?q=1', { base: 'http://x/y', q: '1' }]]);
  matches('page{#section}', [
    ['page#intro/part?x', { section: 'intro/part?x' }],
    ['page#', { section: '' }],
    ['page', {}],
  ]);
  matches('{#path,x}/here', [['#/foo/bar,1024/here', { path: '/foo/bar', x: '1024' }]]);
});

test('match: label and path-segment expressions', () => {
  matches('data{.fmt}', [
    ['data.json', { fmt: 'json' }],
    ['data', {}],
    ['data.', { fmt: '' }],
    ['data.tar.gz', undefined], // a single label has no dots
  ]);
  matches('www{.dom*}', [['www.example.com', { dom: ['example', 'com'] }]]);
  matches('repo://{owner}/{repo}/tree{/path*}', [
    ['repo://acme/widgets/tree/src/lib/x.ts', { owner: 'acme', repo: 'widgets', path: ['src', 'lib', 'x.ts'] }],
    ['repo://acme/widgets/tree', { owner: 'acme', repo: 'widgets' }],
    ['repo://acme/widgets/tree/a%2Fb/c', { owner: 'acme', repo: 'widgets', path: ['a/b', 'c'] }],
    ['repo://acme/widgets/blob/x', undefined],
  ]);
  matches('{/var,x}/here', [['/value/1024/here', { var: 'value', x: '1024' }]]);
  matches('{/list*,path:4}', [['/red/green/blue/%2Ffoo', { list: ['red', 'green', 'blue'], path: '/foo' }]]);
  matches('{/id}', [
    ['/a', { id: 'a' }],
    ['/a/b', undefined],
  ]);
});

test('match: matrix parameters are found by name', () => {
  matches('/map{;x,y}', [
    ['/map;x=1024;y=768', { x: '1024', y: '768' }],
    ['/map;y=768;x=1024', { x: '1024', y: '768' }],
    ['/map;x', { x: '' }],
    ['/map', {}],
  ]);
  matches('{;list*}', [[';list=red;list=green;list=blue', { list: ['red', 'green', 'blue'] }]]);
});

test('match: query variables may be absent, reordered or mixed with extras', () => {
  matches('users://{id}/posts{?page,limit}', [
    ['users://42/posts', { id: '42' }],
    ['users://42/posts?page=2', { id: '42', page: '2' }],
    ['users://42/posts?limit=10&page=2', { id: '42', page: '2', limit: '10' }],
    ['users://42/posts?utm=x&limit=10&flag', { id: '42', limit: '10' }],
    ['users://42/posts?page=a%26b%3Dc', { id: '42', page: 'a&b=c' }],
    ['users://42/posts?page=1&page=2', { id: '42', page: '1' }],
    ['users://42/posts?page=1#frag', undefined],
    ['users://42/comments?page=1', undefined],
  ]);
  matches('search{?tags*}', [
    ['search?tags=a&tags=b%20c', { tags: ['a', 'b c'] }],
    ['search?tags=x', { tags: ['x'] }],
    ['search', {}],
  ]);
  matches('search{?list}', [['search?list=red,green', { list: 'red,green' }]]);
  matches('search{?q}{&lang}', [
    ['search?q=mcp&lang=en', { q: 'mcp', lang: 'en' }],
    ['search?lang=en&q=mcp', { q: 'mcp', lang: 'en' }],
  ]);
  matches('?fixed=yes{&x}', [
    ['?fixed=yes&x=1024', { x: '1024' }],
    ['?fixed=yes', {}],
  ]);
});

test('match: literals that expansion would encode match raw or encoded', () => {
  matches('file:///my docs/{name}', [
    ['file:///my docs/a', { name: 'a' }],
    ['file:///my%20docs/a', { name: 'a' }],
    ['file:///my+docs/a', undefined],
  ]);
  matches('file:///fixed', [
    ['file:///fixed', {}],
    ['file:///fixed2', undefined],
  ]);
});

test('match: malformed percent-encoding is a non-match, not a throw', () => {
  matches('file:///docs/{name}', [
    ['file:///docs/%E0%A4%A', undefined],
    ['file:///docs/%ZZ', undefined],
    ['file:///docs/100%', undefined],
  ]);
});

test('match: a variable named __proto__ becomes data, not a prototype', () => {
  const got = new UriTemplate('x://{__proto__}').match('x://polluted');
  assert.ok(got);
  assert.equal(Object.getPrototypeOf(got), Object.prototype);
  assert.deepEqual(Object.keys(got), ['__proto__']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('match(expand(vars)) round-trips for every operator', () => {
  const cases: Array<[string, UriVariables]> = [
    ['file:///docs/{name}', { name: 'a b/c?d#e&f=g,h%é😀' }],
    ['file:///{+path}', { path: 'dir/sub dir/file:1@x' }],
    ['page{#frag}', { frag: 'a/b?c,d' }],
    ['data{.fmt}', { fmt: 'js on/x' }],
    ['www{.dom*}', { dom: ['exa mple', 'com'] }],
    ['repo://{owner}/{repo}/tree{/path*}', { owner: 'o', repo: 'r', path: ['a b', 'c/d', 'é'] }],
    ['{/a,b}', { a: 'x', b: 'y/z' }],
    ['/m{;x,y}', { x: '1;2', y: 'a=b' }],
    ['/m{;list*}', { list: ['1', '2'] }],
    ['users://{id}/posts{?page,limit}', { id: '7', page: 'a&b=c', limit: '10' }],
    ['search{?q,tags*}', { q: 'x y', tags: ['t 1', 't&2'] }],
    ['search?fixed=1{&a,b}', { a: '1', b: '' }],
  ];
  for (const [template, vars] of cases) {
    const t = new UriTemplate(template);
    const uri = t.expand(vars);
    assert.deepEqual(t.match(uri), vars, `${template} -> ${uri}`);
  }
});

test('constructor rejects malformed templates with a TypeError', () => {
  const bad: Array<[string, RegExp]> = [
    ['file:///{name', /unclosed "\{"/],
    ['{', /unclosed/],
    ['a{b{c}}', /unclosed/],
    ['a}b', /unmatched "\}"/],
    ['{a}}', /unmatched/],
    ['{}', /empty expression/],
    ['x{+}', /empty expression/],
    ['{a,}', /bad variable name ""/],
    ['{,a}', /reserved operator ","/],
    ['{a b}', /bad variable name "a b"/],
    ['{a-b}', /bad variable name/],
    ['{.a.}', /bad variable name/],
    ['{a..b}', /bad variable name/],
    ['{%zz}', /bad variable name/],
    ['{a*b}', /bad variable name/],
    ['{=a}', /reserved operator "="/],
    ['{|a}', /reserved operator/],
    ['{a:0}', /bad prefix modifier/],
    ['{a:10000}', /bad prefix modifier/],
    ['{a:x}', /bad prefix modifier/],
    ['{a:}', /bad prefix modifier/],
  ];
  for (const [template, message] of bad) {
    assert.throws(
      () => new UriTemplate(template),
      (err: unknown) => {
        assert.ok(err instanceof TypeError, template);
        assert.match(err.message, /^Invalid URI template/);
        assert.match(err.message, message);
        return true;
      },
    );
  }
  for (const ok of ['{a.b}', '{a%20b}', '{_x9}', '{a:9999}', '{A,b*,c:2}', 'no-expressions', '']) {
    assert.doesNotThrow(() => new UriTemplate(ok), ok);
  }
});

test('variableNames, template, toString and isTemplate', () => {
  const t = new UriTemplate('repo://{owner}/{repo}/tree{/path*}{?ref,depth:2}{&ref}');
  assert.deepEqual(t.variableNames, ['owner', 'repo', 'path', 'ref', 'depth']);
  assert.equal(t.template, 'repo://{owner}/{repo}/tree{/path*}{?ref,depth:2}{&ref}');
  assert.equal(String(t), t.template);
  assert.deepEqual(new UriTemplate('file:///x').variableNames, []);
  for (const s of ['file:///{x}', '{+x}', 'a{b}c{d}', '}{x}']) assert.equal(UriTemplate.isTemplate(s), true, s);
  for (const s of ['file:///x', '', '{}', '}{', 'a{b', 'a}b{']) assert.equal(UriTemplate.isTemplate(s), false, s);
});

test('ReDoS guard: pathological inputs match in linear time', () => {
  const cases: Array<[string, string, boolean]> = [
    // Adjacent variables with a failing literal in the middle: the classic polynomial blow-up.
    ['x://{a}{b}{c}{d}{e}/{f}', 'x://' + 'a'.repeat(50_000), false],
    ['x://{a}{b}{c}{d}{e}{f}', 'x://' + 'a'.repeat(50_000), true],
    ['{+a}{+b}{+c}{+d}{#e}', '/a'.repeat(25_000) + '?', false],
    ['{/p*}{/q*}{.r}{;s}x', '/;.'.repeat(17_000) + '?x', false],
    ['s{?a,b,c}{&d}{&e}', 's?' + 'a=&'.repeat(16_000), true],
    ['{name}.{ext}.{x}', 'a.'.repeat(25_000) + '/', false],
  ];
  for (const [template, uri, shouldMatch] of cases) {
    const t = new UriTemplate(template);
    const start = performance.now();
    const got = t.match(uri);
    const elapsed = performance.now() - start;
    assert.equal(got !== undefined, shouldMatch, template);
    // A backtracking matcher needs minutes on these inputs; a linear one needs a few ms. The bound
    // is generous so that a busy CI machine cannot turn it into a flaky test.
    assert.ok(elapsed < 1500, `${template} took ${elapsed.toFixed(1)} ms on ${uri.length} chars`);
  }
});

test('ReDoS guard: uri and template length caps', () => {
  const t = new UriTemplate('{+a}');
  assert.deepEqual(t.match('a'.repeat(64 * 1024)), { a: 'a'.repeat(64 * 1024) });
  assert.equal(t.match('a'.repeat(64 * 1024 + 1)), undefined);
  assert.doesNotThrow(() => new UriTemplate('x'.repeat(8 * 1024)));
  assert.throws(() => new UriTemplate('x'.repeat(8 * 1024 + 1)), TypeError);
  assert.throws(() => new UriTemplate('{a}'.repeat(3000)), /longer than 8192/);
});
