import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { compileSchema } from '../../src/schema/compile.js';
import type { ValidationResult } from '../../src/schema/format.js';
// Loaded up front, as mcpkit does on first use: raw JSON Schemas (the round trip below) then compile synchronously.
import '../../src/schema/json-schema.js';

// A Standard Schema with no JSON Schema converter, as older libraries ship.
function handmade(check: (v: unknown) => boolean, async = false): StandardSchemaV1 {
  const run = (value: unknown): StandardSchemaV1.Result<unknown> => (check(value) ? { value } : { issues: [{ message: 'rejected by handmade check' }] });
  return {
    '~standard': {
      version: 1,
      vendor: 'handmade',
      validate: (value) => (async ? Promise.resolve(run(value)) : run(value)),
    },
  };
}

function sync(result: ValidationResult | Promise<ValidationResult>): ValidationResult {
  assert.ok(!(result instanceof Promise), 'expected a synchronous result');
  return result;
}

const search = z.object({
  keyword: z.string().min(1),
  page: z.number().int().max(10).default(1),
  tags: z.array(z.string()).optional(),
});

test('zod object: JSON Schema comes from ~standard.jsonSchema without $schema', () => {
  const compiled = compileSchema(search);
  assert.equal(compiled.jsonSchema.type, 'object');
  assert.equal('$schema' in compiled.jsonSchema, false);
  assert.deepEqual(compiled.jsonSchema.required, ['keyword']);
  const props = compiled.jsonSchema.properties as Record<string, Record<string, unknown>>;
  assert.equal(props.page.default, 1);
  assert.equal(props.page.maximum, 10);
});

test('zod object: valid input returns the transformed value with defaults', () => {
  const result = sync(compileSchema(search).validate({ keyword: 'mcp' }));
  assert.deepEqual(result, { ok: true, value: { keyword: 'mcp', page: 1 } });
});

test('zod object: invalid input gives one readable message', () => {
  const result = sync(compileSchema(search).validate({ page: 20, tags: ['a', 2] }));
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.match(result.message, /^Invalid arguments: /);
  assert.match(result.message, /"keyword" is required/);
  assert.match(result.message, /"page": .*<=\s?10/);
  assert.match(result.message, /"tags\[1\]": /);
});

test('input role treats omitted arguments as an empty object', () => {
  const optionalOnly = compileSchema(z.object({ verbose: z.boolean().default(false) }));
  assert.deepEqual(sync(optionalOnly.validate(undefined)), { ok: true, value: { verbose: false } });
  const result = sync(compileSchema(search).validate(undefined));
  assert.deepEqual(result, { ok: false, message: 'Invalid arguments: "keyword" is required' });
});

test('output role describes the output side and labels failures as output', () => {
  const compiled = compileSchema(search, { role: 'output' });
  assert.deepEqual(compiled.jsonSchema.required, ['keyword', 'page']);
  const result = sync(compiled.validate({ keyword: 3 }));
  assert.equal(result.ok, false);
  if (!result.ok) assert.match(result.message, /^Invalid output: "keyword": /);
});

test('shape shortcut: optional and defaulted members are not required', () => {
  const compiled = compileSchema({
    keyword: z.string(),
    page: z.number().max(10).optional(),
    sort: z.enum(['asc', 'desc']).default('asc'),
  });
  assert.equal(compiled.jsonSchema.type, 'object');
  assert.deepEqual(compiled.jsonSchema.required, ['keyword']);
  assert.deepEqual(Object.keys(compiled.jsonSchema.properties as object), ['keyword', 'page', 'sort']);

  assert.deepEqual(sync(compiled.validate({ keyword: 'x', extra: true })), {
    ok: true,
    value: { keyword: 'x', sort: 'asc' },
  });
  const bad = sync(compiled.validate({ page: 11 }));
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.match(bad.message, /"keyword" is required/);
    assert.match(bad.message, /"page": .*10/);
  }
  assert.equal(sync(compiled.validate([1])).ok, false);
});

test('shape shortcut: recursive member refs are re-rooted and still validate', () => {
  type Node = { name: string; kids?: Node[] };
  const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), kids: z.array(node).optional() }));
  const compiled = compileSchema({ tree: node });
  assert.match(JSON.stringify(compiled.jsonSchema), /"#\/properties\/tree"/);
  // The advertised schema must itself be usable by a JSON Schema validator.
  const roundTrip = compileSchema(compiled.jsonSchema);
  assert.equal(sync(roundTrip.validate({ tree: { name: 'a', kids: [{ name: 'b' }] } })).ok, true);
  assert.equal(sync(roundTrip.validate({ tree: { name: 'a', kids: [{ name: 1 }] } })).ok, false);
});

test('shape values must all be Standard Schemas', () => {
  assert.throws(() => compileSchema({ a: z.string(), b: { type: 'string' } }), /only Standard Schemas/);
});

test('non-object input schemas are rejected at compile time', () => {
  assert.throws(() => compileSchema(z.string()), { name: 'TypeError', message: /type "object".*type "string"/ });
  assert.throws(() => compileSchema(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])), /"anyOf" without a top-level type/);
  // Outputs are not restricted to objects here; the caller decides.
  assert.equal(compileSchema(z.string(), { role: 'output' }).jsonSchema.type, 'string');
});

test('a schema without a JSON Schema converter needs one passed alongside', () => {
  const schema = handmade((v) => typeof v === 'object');
  assert.throws(() => compileSchema(schema), { name: 'TypeError', message: /handmade.*jsonSchema/ });
  const compiled = compileSchema(schema, { jsonSchema: { type: 'object' } });
  assert.deepEqual(compiled.jsonSchema, { type: 'object' });
  assert.equal(sync(compiled.validate({})).ok, true);
});

test('unrepresentable zod types fail at compile time with a clear message', () => {
  assert.throws(() => compileSchema(z.object({ when: z.date() })), /Cannot convert this zod schema.*jsonSchema/);
});

test('async Standard Schemas return a Promise; sync ones never do', async () => {
  const schema = handmade((v) => typeof v === 'object' && v !== null && 'a' in v, true);
  const compiled = compileSchema(schema, { jsonSchema: { type: 'object' } });
  const pending = compiled.validate({ a: 1 });
  assert.ok(pending instanceof Promise);
  assert.deepEqual(await pending, { ok: true, value: { a: 1 } });
  assert.deepEqual(await compiled.validate({}), { ok: false, message: 'Invalid arguments: rejected by handmade check' });

  const refined = compileSchema(z.object({ code: z.string().refine(async (v) => v.length === 4, 'must have 4 characters') }));
  assert.deepEqual(await refined.validate({ code: 'abc' }), {
    ok: false,
    message: 'Invalid arguments: "code": must have 4 characters',
  });
  const shape = compileSchema({ a: schema }, { jsonSchema: { type: 'object' } });
  assert.ok(shape.validate({ a: { a: 1 } }) instanceof Promise);
});

test('validation runs many times without recompiling or leaking state between calls', () => {
  const compiled = compileSchema(search);
  for (let i = 0; i < 1000; i++) {
    const ok = sync(compiled.validate({ keyword: `k${i}`, page: i % 10 }));
    assert.equal(ok.ok, true);
  }
  assert.equal(sync(compiled.validate({ keyword: '' })).ok, false);
});
