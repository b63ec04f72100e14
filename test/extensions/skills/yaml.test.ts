// The YAML subset SKILL.md frontmatter is read with: the values a YAML 1.2 core-schema parser
// gives, and a clear refusal for what it does not read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frontmatterBlock, parseYamlMapping, YamlSubsetError } from '../../../src/extensions/skills/yaml.js';

test('scalars: plain, quoted, core-schema numbers, booleans and nulls', () => {
  const doc = [
    'name: pdf-processing',
    'description: Extract, fill, and assemble # a comment',
    'url: http://example.com/a#b',
    "single: 'it''s # not a comment'",
    'double: "tab\\there \\u00e9 \\"q\\""',
    'int: 42',
    'neg: -7',
    'float: 1.50',
    'exp: 1e3',
    'hex: 0x1F',
    'oct: 0o17',
    'yes: true',
    'no: False',
    'tilde: ~',
    'empty:',
    'version: "1.0"',
    'date: 2026-01-01',
    'multi: first line',
    '  second line',
    '',
    '  after a blank',
  ].join('\n');
  assert.deepEqual(parseYamlMapping(doc), {
    name: 'pdf-processing',
    description: 'Extract, fill, and assemble',
    url: 'http://example.com/a#b',
    single: "it's # not a comment",
    double: 'tab\there é "q"',
    int: 42,
    neg: -7,
    float: 1.5,
    exp: 1000,
    hex: 31,
    oct: 15,
    yes: true,
    no: false,
    tilde: null,
    empty: null,
    version: '1.0',
    date: '2026-01-01',
    multi: 'first line second line\nafter a blank',
  });
});

test('block scalars: literal and folded, with each chomping indicator', () => {
  const doc = ['lit: |', '  a', '    b', '  c', 'strip: |-', '  x', '', 'keep: |+', '  y', '', '', 'fold: >', '  one', '  two', '', '  three', 'end: 1'].join(
    '\n',
  );
  assert.deepEqual(parseYamlMapping(doc), { lit: 'a\n  b\nc\n', strip: 'x', keep: 'y\n\n\n', fold: 'one two\nthree\n', end: 1 });
});

test('collections: nested mappings, block and flow sequences, sequences of mappings', () => {
  const doc = [
    'metadata:',
    '  author: acme',
    '  nested:',
    '    deep: true',
    'tools:',
    '- Read',
    '- Bash # comment',
    'flow: [a, "b, c", 3, {k: v}]',
    'map: {x: 1, y: [2]}',
    'items:',
    '  - name: one',
    '    size: 1',
    '  - - inner',
  ].join('\n');
  assert.deepEqual(parseYamlMapping(doc), {
    metadata: { author: 'acme', nested: { deep: true } },
    tools: ['Read', 'Bash'],
    flow: ['a', 'b, c', 3, { k: 'v' }],
    map: { x: 1, y: [2] },
    items: [{ name: 'one', size: 1 }, ['inner']],
  });
});

test('what it does not read is refused with the line, never guessed', () => {
  const refuse = (doc: string, text: RegExp) =>
    assert.throws(
      () => parseYamlMapping(doc),
      (e: unknown) => e instanceof YamlSubsetError && text.test(e.message),
    );
  refuse('a: &anchor 1', /line 1: "&" \(anchors/);
  refuse('a: 1\nb: *anchor', /line 2: "\*"/);
  refuse('a: !!str 1', /"!"/);
  refuse('? complex\n: key', /complex keys/);
  refuse('a: 1\na: 2', /line 2: the key "a" appears twice/);
  refuse('a: [1, 2', /unclosed flow/);
  refuse('a: "open', /unclosed quoted/);
  refuse('- a\n- b', /not a mapping/);
  refuse('description: Use it: always', /line 1: a ": " inside a plain value/);
  refuse('a:\n\tb: 1', /line 2: a tab/);
});

test('__proto__ is an ordinary key', () => {
  const v = parseYamlMapping('__proto__: x\nname: n');
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ['__proto__', 'name']);
});

test('frontmatterBlock: between the leading --- lines, a BOM and CRLF allowed', () => {
  assert.equal(frontmatterBlock('---\nname: a\n---\nbody'), 'name: a');
  assert.equal(frontmatterBlock('\ufeff---\r\nname: a\r\n---\r\n'), 'name: a');
  assert.equal(frontmatterBlock('# no frontmatter\n---\nname: a\n---\n'), undefined);
});
