// Tool schema sanitising per provider: each rule of docs/host.md, and every result still a valid
// JSON Schema (ajv compiles it) that accepts the arguments the original accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  dropNullOptionals,
  isStrictCompatible,
  restoreStrictArguments,
  sanitizeForAnthropic,
  sanitizeForGemini,
  sanitizeForOpenAI,
  sanitizeForOpenAIStrict,
} from '../../../src/host/providers/index.js';

// `nullable` is OpenAPI's, which ajv knows only outside strict mode: compile with strict off, but
// every result must still compile (no broken $ref, no wrong keyword value).
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The JSON Schema results (all but Gemini's) also pass ajv's strict mode: no unknown keyword.
const strictAjv = new Ajv2020({ strict: true, strictTypes: true, logger: false });
addFormatsModule.default(strictAjv);
function valid(schema: Record<string, unknown>, data: unknown): boolean {
  return ajv.compile(schema)(data) as boolean;
}

/** A realistic MCP inputSchema (what zod-to-json-schema and hand-written servers produce). */
const weather = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1, description: 'City name' },
    units: { type: 'string', enum: ['metric', 'imperial'], default: 'metric' },
    days: { type: 'integer', minimum: 1, maximum: 14 },
    when: { type: 'string', format: 'date-time' },
    contact: { type: 'string', format: 'uri' },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    location: { $ref: '#/$defs/point' },
  },
  required: ['city'],
  additionalProperties: false,
  $defs: { point: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] } },
};

test('schema: every provider drops $schema and keeps an object root with properties', () => {
  for (const fn of [sanitizeForAnthropic, sanitizeForOpenAI, sanitizeForOpenAIStrict, sanitizeForGemini]) {
    const out = fn(weather);
    assert.equal(out.$schema, undefined, fn.name);
    assert.equal(out.type, 'object', fn.name);
    assert.equal(typeof out.properties, 'object', fn.name);
    const strictNulls = { units: null, days: null, when: null, contact: null, tags: null, location: null };
    assert.ok(valid(out, { city: 'Paris', ...(fn === sanitizeForOpenAIStrict ? strictNulls : {}) }), `${fn.name} accepts the minimal arguments`);
  }
  for (const fn of [sanitizeForAnthropic, sanitizeForOpenAI, sanitizeForOpenAIStrict]) strictAjv.compile(fn(weather));
  // The input is not modified.
  assert.equal(weather.$schema, 'https://json-schema.org/draft/2020-12/schema');
});

test('schema: a root without type, an empty schema and a non-object root', () => {
  assert.deepEqual(sanitizeForAnthropic({}), { type: 'object', properties: {} });
  assert.deepEqual(sanitizeForOpenAI({ properties: { a: { type: 'string' } } }), { properties: { a: { type: 'string' } }, type: 'object' });
  const wrapped = sanitizeForAnthropic({ type: 'string', maxLength: 5 });
  assert.deepEqual(wrapped.properties, { input: { type: 'string', maxLength: 5 } });
  assert.deepEqual(wrapped.required, ['input']);
  assert.match(String(wrapped.description), /non-object/);
  assert.ok(valid(wrapped, { input: 'abc' }));
  assert.ok(!valid(wrapped, { input: 'abcdef' }));
});

test('schema: a root $ref (zod-to-json-schema named schemas) is replaced by its target', () => {
  const named = {
    $ref: '#/definitions/Args',
    definitions: { Args: { type: 'object', properties: { p: { $ref: '#/definitions/P' } }, required: ['p'] }, P: { type: 'string' } },
    $schema: 'http://json-schema.org/draft-07/schema#',
  };
  for (const fn of [sanitizeForAnthropic, sanitizeForOpenAIStrict]) {
    const out = fn(named);
    assert.equal(out.type, 'object', fn.name);
    assert.equal(out.$ref, undefined);
    assert.ok(valid(out, { p: 'x' }) && !valid(out, { p: 1 }), fn.name);
  }
  assert.ok(isStrictCompatible(sanitizeForOpenAIStrict(named)));
  assert.deepEqual(sanitizeForGemini(named).properties, { p: { type: 'string' } });
});

test('schema: a root anyOf/oneOf is merged into one object (refused at the top by OpenAI and Anthropic)', () => {
  const out = sanitizeForAnthropic({
    type: 'object',
    oneOf: [
      { properties: { id: { type: 'string' }, mode: { type: 'string' } }, required: ['id', 'mode'], description: 'by id' },
      { properties: { name: { type: 'string' }, mode: { type: 'string' } }, required: ['name', 'mode'], description: 'by name' },
    ],
  });
  assert.equal(out.oneOf, undefined);
  assert.deepEqual(Object.keys(out.properties as object), ['id', 'mode', 'name']);
  assert.deepEqual(out.required, ['mode']);
  assert.match(String(out.description), /by id; by name/);
  const all = sanitizeForAnthropic({
    allOf: [
      { properties: { a: { type: 'string' } }, required: ['a'] },
      { properties: { b: { type: 'number' } }, required: ['b'] },
    ],
  });
  assert.deepEqual(all.required, ['a', 'b']);
  assert.ok(valid(all, { a: 'x', b: 1 }) && !valid(all, { a: 'x' }));
});

test('schema: OpenAI strict closes every object, requires every property, makes optional ones nullable', () => {
  const out = sanitizeForOpenAIStrict(weather);
  assert.ok(isStrictCompatible(out));
  const props = out.properties as Record<string, Record<string, unknown>>;
  assert.equal(out.additionalProperties, false);
  assert.deepEqual(out.required, ['city', 'units', 'days', 'when', 'contact', 'tags', 'location']);
  assert.deepEqual(props.city.type, 'string', 'a required property stays as it is');
  assert.deepEqual(props.units.type, ['string', 'null']);
  assert.deepEqual(props.units.enum, ['metric', 'imperial', null]);
  assert.deepEqual(props.days, { type: ['integer', 'null'], minimum: 1, maximum: 14 });
  assert.equal(props.when.format, 'date-time', 'an allowed format is kept');
  assert.equal(props.contact.format, undefined, 'another format is dropped...');
  assert.match(String(props.contact.description), /format: uri/, '...and noted');
  assert.equal(props.city.minLength, undefined);
  assert.match(String(props.city.description), /^City name \(minLength: 1\)$/);
  assert.equal(props.units.default, undefined);
  assert.equal(props.tags.uniqueItems, undefined);
  assert.deepEqual(props.location, { anyOf: [{ $ref: '#/$defs/point' }, { type: 'null' }] });
  const point = (out.$defs as Record<string, Record<string, unknown>>).point;
  assert.equal(point.additionalProperties, false, '$defs are made strict too');
  // A valid JSON Schema, accepting what a strict model sends (nulls for absent optionals).
  const sent = { city: 'Paris', units: null, days: null, when: null, contact: null, tags: null, location: { lat: 1, lon: 2 } };
  assert.ok(valid(out, sent));
  assert.ok(!valid(out, { city: 'Paris' }), 'strict: every property is required');
  // The nulls are removed again before the server sees the arguments.
  assert.deepEqual(restoreStrictArguments(sent, out), { city: 'Paris', location: { lat: 1, lon: 2 } });
  assert.ok(valid(sanitizeForAnthropic(weather), restoreStrictArguments(sent, out)));
});

test('schema: OpenAI strict falls back to the plain schema when strict mode cannot express it', () => {
  const cases: Record<string, unknown>[] = [
    { type: 'object', properties: { headers: { type: 'object', additionalProperties: { type: 'string' } } } },
    { type: 'object', properties: { anything: { description: 'any JSON value' } } },
    { type: 'object', properties: { meta: { type: 'object' } } },
    { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } },
    { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
  ];
  for (const schema of cases) {
    const out = sanitizeForOpenAIStrict(schema);
    assert.equal(isStrictCompatible(out), false, JSON.stringify(schema));
    assert.deepEqual(out, sanitizeForOpenAI(schema));
    assert.deepEqual(restoreStrictArguments({ a: null }, out), { a: null }, 'no strict: arguments untouched');
  }
  assert.equal(isStrictCompatible(sanitizeForOpenAIStrict({ type: 'object', properties: {} })), true, 'no arguments at all is fine');
});

test('schema: OpenAI strict: oneOf becomes anyOf, a lone allOf is merged, recursion through $defs is kept', () => {
  const tree = {
    type: 'object',
    properties: {
      root: { $ref: '#/$defs/node' },
      shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      base: { allOf: [{ type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }] },
    },
    required: ['root', 'shape', 'base'],
    $defs: {
      node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['name'] },
    },
  };
  const out = sanitizeForOpenAIStrict(tree);
  assert.ok(isStrictCompatible(out));
  const props = out.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(props.shape, { anyOf: [{ type: 'string' }, { type: 'number' }] });
  assert.equal(props.base.allOf, undefined);
  assert.equal(props.base.additionalProperties, false);
  const sent = { root: { name: 'a', children: [{ name: 'b', children: null }] }, shape: 3, base: { x: 1 } };
  assert.ok(valid(out, sent));
  assert.deepEqual(restoreStrictArguments(sent, out), { root: { name: 'a', children: [{ name: 'b' }] }, shape: 3, base: { x: 1 } });
});

test('schema: dropNullOptionals keeps a null the original allows', () => {
  const schema = {
    type: 'object',
    properties: { a: { type: ['string', 'null'] }, b: { type: 'string' }, c: { anyOf: [{ type: 'null' }, { type: 'number' }] } },
  };
  assert.deepEqual(dropNullOptionals({ a: null, b: null, c: null, extra: null }, schema), { a: null, c: null, extra: null });
});

test('schema: Gemini inlines $ref, cuts recursion, drops what OpenAPI 3.0 lacks', () => {
  const out = sanitizeForGemini(weather);
  const props = out.properties as Record<string, Record<string, unknown>>;
  assert.equal(out.additionalProperties, undefined);
  assert.equal(out.$defs, undefined);
  assert.deepEqual(props.location, { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] });
  assert.deepEqual(props.units, { type: 'string', enum: ['metric', 'imperial'], description: 'default: metric' });
  assert.deepEqual(props.city, { type: 'string', description: 'City name (minLength: 1)' });
  assert.deepEqual(props.days, { type: 'integer', minimum: 1, maximum: 14 });
  assert.equal(props.when.format, 'date-time');
  assert.equal(props.contact.format, undefined);
  assert.ok(valid(out, { city: 'Paris', location: { lat: 1, lon: 2 } }));

  const recursive = sanitizeForGemini(
    {
      type: 'object',
      properties: { root: { $ref: '#/$defs/n' } },
      $defs: { n: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/n' } } } } },
    },
    { maxRefDepth: 2 },
  );
  const text = JSON.stringify(recursive);
  assert.ok(!text.includes('$ref'), text);
  const depth2 = ((recursive.properties as any).root.properties.kids.items as any).properties.kids.items as Record<string, unknown>;
  assert.equal(depth2.type, 'object');
  assert.equal(depth2.nullable, true);
  assert.match(String(depth2.description), /nested further/);
  assert.ok(valid(recursive, { root: { kids: [{ kids: [] }] } }));
});

test('schema: Gemini types: nullable, type lists, const, non-string enums, anyOf collapsed', () => {
  const out = sanitizeForGemini({
    type: 'object',
    properties: {
      maybe: { type: ['string', 'null'] },
      either: { type: ['string', 'number'] },
      fixed: { const: 'v1' },
      level: { type: 'integer', enum: [1, 2, 3] },
      opt: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }], description: 'optional' },
      mixed: { anyOf: [{ type: 'string' }, { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }] },
      list: { type: 'array' },
    },
    required: ['maybe', 'ghost'],
  });
  const p = out.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(p.maybe, { type: 'string', nullable: true });
  assert.deepEqual(p.either, { anyOf: [{ type: 'string' }, { type: 'number' }] });
  assert.deepEqual(p.fixed, { enum: ['v1'], type: 'string' });
  assert.deepEqual(p.level, { type: 'integer', description: 'one of: 1, 2, 3' });
  assert.deepEqual(p.opt, { description: 'optional', nullable: true, type: 'string' });
  assert.deepEqual(p.mixed, { anyOf: [{ type: 'string' }, { type: 'object', properties: { a: { type: 'string' } } }] });
  assert.deepEqual(p.list, { type: 'array', items: { type: 'string', description: 'any value' } });
  assert.deepEqual(out.required, ['maybe'], 'a required name without a property is dropped');
  ajv.compile(out);
});
