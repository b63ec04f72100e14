import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyElicitationDefaults, validateElicitationSchema, type ElicitationRequestedSchema } from '../../src/schema/elicitation.js';

function form(): ElicitationRequestedSchema {
  return {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 1, maxLength: 50, default: 'Ada' },
      email: { type: 'string', format: 'email' },
      zip: { type: 'string', pattern: '^[0-9]{5}$' },
      age: { type: 'integer', minimum: 0, maximum: 150, default: 36 },
      ratio: { type: 'number', default: 0.5 },
      subscribe: { type: 'boolean', default: false },
      plan: { type: 'string', enum: ['free', 'pro'], default: 'free' },
      region: {
        type: 'string',
        oneOf: [
          { const: 'eu', title: 'Europe' },
          { const: 'us', title: 'United States' },
        ],
        default: 'eu',
      },
      legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['Option A', 'Option B'] },
      topics: { type: 'array', minItems: 1, items: { type: 'string', enum: ['ai', 'db', 'web'] }, default: ['ai'] },
      langs: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'ts', title: 'TypeScript' },
            { const: 'py', title: 'Python' },
          ],
        },
        default: ['ts', 'py'],
      },
    },
    required: ['name', 'email'],
  };
}

test('defaults fill every missing field of every kind', () => {
  const filled = applyElicitationDefaults(form(), { email: 'a@b.c' });
  assert.deepEqual(filled, {
    email: 'a@b.c',
    name: 'Ada',
    age: 36,
    ratio: 0.5,
    subscribe: false,
    plan: 'free',
    region: 'eu',
    topics: ['ai'],
    langs: ['ts', 'py'],
  });
});

test('defaults never override provided values, even falsy ones', () => {
  const filled = applyElicitationDefaults(form(), { name: '', age: 0, subscribe: true, topics: [] });
  assert.equal(filled.name, '');
  assert.equal(filled.age, 0);
  assert.equal(filled.subscribe, true);
  assert.deepEqual(filled.topics, []);
  assert.equal(filled.plan, 'free');
});

test('defaults work without content and do not alias or mutate inputs', () => {
  const schema = form();
  const content = { email: 'x@y.z' };
  const filled = applyElicitationDefaults(schema, content);
  assert.deepEqual(content, { email: 'x@y.z' });
  (filled.topics as string[]).push('db');
  assert.deepEqual(schema.properties.topics.default, ['ai']);
  assert.equal(applyElicitationDefaults(schema, undefined).name, 'Ada');
  assert.deepEqual(applyElicitationDefaults({ type: 'object' }, undefined), {});
});

test('a valid form (every primitive kind) passes', () => {
  assert.equal(validateElicitationSchema(form()), undefined);
  assert.equal(validateElicitationSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} }), undefined);
});

test('invalid forms are described in one sentence', () => {
  const withProperty = (property: unknown) => ({ type: 'object', properties: { field: property } });
  const cases: Array<[unknown, RegExp]> = [
    ['nope', /must be a JSON Schema object/],
    [{ type: 'array' }, /type "object"/],
    [{ type: 'object' }, /"properties" object/],
    [{ type: 'object', properties: {}, $defs: {} }, /flat object.*"\$defs"/],
    [{ type: 'object', properties: {}, required: ['ghost'] }, /requires "ghost"/],
    [withProperty({ type: 'object', properties: {} }), /"field" must be a primitive field.*type "object"/],
    [withProperty({ $ref: '#/$defs/x' }), /"field" must be a primitive field.*no type/],
    [withProperty({ type: 'string', format: 'hostname' }), /"format" must be one of/],
    [withProperty({ type: 'string', pattern: '(' }), /valid regular expression/],
    [withProperty({ type: 'string', minLength: -1 }), /"minLength" must be a non-negative integer/],
    [withProperty({ type: 'string', minLength: 5, maxLength: 2 }), /"minLength" greater than "maxLength"/],
    [withProperty({ type: 'string', default: 3 }), /"default" must be a string/],
    [withProperty({ type: 'string', anyOf: [{ type: 'string' }] }), /unsupported keyword "anyOf"/],
    [withProperty({ type: 'string', enum: [] }), /"enum" must be a non-empty array/],
    [withProperty({ type: 'string', enum: ['a'], default: 'b' }), /"default" must be one of its options/],
    [withProperty({ type: 'string', enum: ['a', 'b'], enumNames: ['A'] }), /"enumNames" must be strings, one per/],
    [withProperty({ type: 'string', oneOf: [{ const: 'a' }] }), /"oneOf" entries must be/],
    [withProperty({ type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] }), /either "enum" or "oneOf"/],
    [withProperty({ type: 'integer', default: 1.5 }), /"default" must be an integer/],
    [withProperty({ type: 'number', minimum: 'low' }), /"minimum" must be a finite number/],
    [withProperty({ type: 'boolean', default: 'yes' }), /"default" must be a boolean/],
    [withProperty({ type: 'array', items: { type: 'number' } }), /unsupported keyword|type "string"/],
    [withProperty({ type: 'array', items: { type: 'object', properties: {} } }), /unsupported keyword "properties"/],
    [withProperty({ type: 'array' }), /multi-select/],
    [withProperty({ type: 'array', items: { enum: ['a'] }, default: ['b'] }), /"default" must be an array of its options/],
    [withProperty({ type: 'array', items: { anyOf: [{ const: 1, title: 'one' }] } }), /"anyOf" entries must be/],
    [withProperty({ type: 'string', title: 7 }), /"title" must be a string/],
  ];
  for (const [schema, expected] of cases) {
    const message = validateElicitationSchema(schema);
    assert.ok(message !== undefined, `expected an error for ${JSON.stringify(schema)}`);
    assert.match(message, expected, JSON.stringify(schema));
    assert.match(message, /\.$/);
  }
});
