// How the studio's forms read JSON Schemas (src/studio/ui/schema.ts, plain functions): local $refs,
// every spelling of nullable (the nullable-enum case that broke another inspector's forms), unions
// and the branch a value belongs to, and the values fields start with.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { branchFor, branchLabel, deref, initialValue, splitNull, typesOf, unionOf } from '../../src/studio/ui/schema.js';

describe('studio form schemas', () => {
  test('local $refs are followed, with the referring keywords kept', () => {
    const root = { $defs: { Point: { type: 'object', properties: { x: { type: 'number' } } } }, definitions: { 'a/b': { type: 'string' } } };
    assert.deepEqual(deref({ $ref: '#/$defs/Point', description: 'where' }, root), {
      type: 'object',
      properties: { x: { type: 'number' } },
      description: 'where',
    });
    assert.deepEqual(deref({ $ref: '#/definitions/a~1b' }, root), { type: 'string' });
    // A cycle ends, a remote $ref is named rather than fetched.
    const loop = { $defs: { A: { $ref: '#/$defs/A' } } };
    assert.doesNotThrow(() => deref({ $ref: '#/$defs/A' }, loop));
    assert.match(String(deref({ $ref: 'https://example.com/s.json' }, {}).description), /remote \$ref/);
  });

  test('nullable, however spelled', () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ type: ['string', 'null'] }, { type: 'string' }],
      [
        { type: ['string', 'null'], enum: ['a', 'b', null] },
        { type: 'string', enum: ['a', 'b'] },
      ],
      [{ enum: ['a', null] }, { enum: ['a'] }],
      [{ type: 'integer', nullable: true }, { type: 'integer' }],
      [
        { anyOf: [{ type: 'string', enum: ['x', 'y'] }, { type: 'null' }], description: 'd' },
        { type: 'string', enum: ['x', 'y'], description: 'd' },
      ],
      [{ oneOf: [{ $ref: '#/$defs/N' }, { const: null }] }, { type: 'number' }],
    ];
    for (const [schema, base] of cases) {
      const r = splitNull(schema, { $defs: { N: { type: 'number' } } });
      assert.equal(r.nullable, true, JSON.stringify(schema));
      assert.deepEqual(r.base, base, JSON.stringify(schema));
    }
    assert.equal(splitNull({ type: 'string' }, {}).nullable, false);
    // A union of two non-null branches and null stays a union.
    const u = splitNull({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] }, {});
    assert.equal(u.nullable, true);
    assert.equal(unionOf(u.base)?.branches.length, 2);
  });

  test('types, from type or from the other keywords', () => {
    assert.deepEqual(typesOf({ type: ['integer', 'string'] }), ['integer', 'string']);
    assert.deepEqual(typesOf({ properties: {} }), ['object']);
    assert.deepEqual(typesOf({ items: {} }), ['array']);
    assert.deepEqual(typesOf({ enum: [1, 2.5] }), ['integer', 'number']);
    assert.deepEqual(typesOf({ const: true }), ['boolean']);
    assert.deepEqual(typesOf({}), []);
  });

  test('the branch a value belongs to, and branch names', () => {
    const branches = [
      { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      { type: 'string' },
    ];
    assert.equal(branchFor({ name: 'x' }, branches, {}), 1);
    assert.equal(branchFor({ id: 1 }, branches, {}), 0);
    assert.equal(branchFor('s', branches, {}), 2);
    assert.equal(branchFor(undefined, branches, {}), 0);
    assert.equal(branchLabel(branches[1], {}, 1), '{ name }');
    assert.equal(branchLabel({ title: 'By id' }, {}, 0), 'By id');
    assert.equal(branchLabel({ const: 'on' }, {}, 0), '"on"');
  });

  test('what fields start with: defaults, consts, required values; optional ones left out', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'integer', default: 3 },
        c: { type: 'object', properties: { d: { type: 'boolean' } }, required: ['d'] },
        e: { type: ['string', 'null'] },
        f: { type: 'string', enum: ['x', 'y'] },
        g: { type: 'string' },
        h: { const: 'fixed' },
      },
      required: ['a', 'c', 'e', 'f'],
    };
    assert.deepEqual(initialValue(schema, schema, true), { a: '', b: 3, c: { d: false }, e: null, f: 'x', h: 'fixed' });
    assert.equal(initialValue({ type: 'string' }, {}, false), undefined);
    // A default is copied, not shared.
    const withList = { type: 'array', default: [1] };
    const v = initialValue(withList, withList, true) as number[];
    v.push(2);
    assert.deepEqual(withList.default, [1]);
  });
});
