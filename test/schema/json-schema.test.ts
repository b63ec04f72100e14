import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compileSchema, EMPTY_OBJECT_SCHEMA } from '../../src/schema/compile.js';
import type { ValidationResult } from '../../src/schema/format.js';
// Imported for its own sake too: with json-schema.ts loaded, raw JSON Schemas compile (and fail) synchronously.
import '../../src/schema/json-schema.js';
import { detectDialect } from '../../src/schema/dialect.js';

function sync(result: ValidationResult | Promise<ValidationResult>): ValidationResult {
  assert.ok(!(result instanceof Promise), 'JSON Schema validation must be synchronous');
  return result;
}

function searchSchema(): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      keyword: { type: 'string', minLength: 1 },
      page: { type: 'integer', maximum: 10 },
      color: { enum: ['red', 'green'] },
      email: { type: 'string', format: 'email' },
    },
    required: ['keyword'],
    additionalProperties: false,
  };
}

test('2020-12 by default: valid input passes through unchanged', () => {
  const schema = searchSchema();
  const compiled = compileSchema(schema);
  assert.equal(compiled.jsonSchema, schema);
  const value = { keyword: 'mcp', page: 2, email: 'a@example.com' };
  assert.deepEqual(sync(compiled.validate(value)), { ok: true, value });
});

test('2020-12: every problem is reported in one readable message', () => {
  const result = sync(compileSchema(searchSchema()).validate({ page: 20, color: 'blue', email: 'nope', zzz: 1 }));
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.match(result.message, /^Invalid arguments: /);
  for (const part of [
    '"page" must be <= 10',
    '"keyword" is required',
    '"color" must be one of "red", "green"',
    '"email" must match format "email"',
    '"zzz" is not an allowed property',
  ]) {
    assert.ok(result.message.includes(part), `missing ${part} in ${result.message}`);
  }
});

test('2020-12: omitted arguments are checked as {} and non-objects are rejected', () => {
  const compiled = compileSchema(searchSchema());
  assert.deepEqual(sync(compiled.validate(undefined)), { ok: false, message: 'Invalid arguments: "keyword" is required' });
  assert.deepEqual(sync(compiled.validate('x')), { ok: false, message: 'Invalid arguments: value must be object' });
});

test('local $defs + $ref (including recursion and $id-based refs) work', () => {
  const compiled = compileSchema({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.test/tree',
    type: 'object',
    properties: {
      root: { $ref: '#/$defs/node' },
      label: { $ref: 'https://example.test/tree#/$defs/label' },
    },
    $defs: {
      label: { type: 'string' },
      node: {
        type: 'object',
        properties: { name: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/$defs/node' } } },
        required: ['name'],
      },
    },
  });
  assert.equal(sync(compiled.validate({ root: { name: 'a', kids: [{ name: 'b' }] }, label: 'x' })).ok, true);
  const bad = sync(compiled.validate({ root: { name: 'a', kids: [{}] }, label: 1 }));
  assert.deepEqual(bad, {
    ok: false,
    message: 'Invalid arguments: "root.kids[0].name" is required; "label" must be string',
  });
});

test('two different schemas may share an $id', () => {
  const a = compileSchema({ $id: 'urn:example:same', type: 'object', properties: { n: { type: 'string' } } });
  const b = compileSchema({ $id: 'urn:example:same', type: 'object', properties: { n: { type: 'number' } } });
  assert.equal(sync(a.validate({ n: 'x' })).ok, true);
  assert.equal(sync(b.validate({ n: 1 })).ok, true);
  assert.equal(sync(b.validate({ n: 'x' })).ok, false);
});

test('external and dangling $refs are rejected at compile time, never fetched', () => {
  const remote = { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } };
  assert.throws(() => compileSchema(remote), {
    name: 'TypeError',
    message: /can't resolve reference https:\/\/example\.com\/a\.json.*never fetched/,
  });
  const dangling = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
  assert.throws(() => compileSchema(dangling), /Invalid JSON Schema: .*#\/\$defs\/missing/);
});

test('invalid schemas are rejected at compile time', () => {
  assert.throws(() => compileSchema({ type: 'object', properties: { a: { type: 'strin' } } }), /Invalid JSON Schema/);
});

test('draft-07 is used when $schema names it', () => {
  for (const $schema of ['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft-07/schema']) {
    const compiled = compileSchema({
      $schema,
      type: 'object',
      properties: { a: { type: 'string' }, list: { type: 'array', items: [{ type: 'string' }] } },
      dependencies: { a: ['b'] },
      definitions: { n: { type: 'number' } },
    });
    assert.equal(compiled.jsonSchema.$schema, $schema);
    assert.equal(sync(compiled.validate({ a: 'x', b: 1, list: ['s', 1] })).ok, true);
    assert.deepEqual(sync(compiled.validate({ a: 'x', list: [1] })), {
      ok: false,
      message: 'Invalid arguments: "b" is required when "a" is present; "list[0]" must be string',
    });
  }
  assert.equal(detectDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }), 'draft-07');
  assert.equal(detectDialect({}), 'draft-2020-12');
});

test('unknown dialects are rejected at compile time', () => {
  for (const $schema of ['http://json-schema.org/draft-04/schema#', 'https://example.com/my-dialect', 42]) {
    assert.throws(() => compileSchema({ $schema, type: 'object' }), { name: 'TypeError', message: /dialect|\$schema/ });
  }
});

test('input schemas must be type "object"; output schemas need not be', () => {
  assert.throws(() => compileSchema({ type: 'string' }), /type "object"/);
  assert.throws(() => compileSchema({ anyOf: [{ type: 'object' }] }), /"anyOf" without a top-level type/);
  const output = compileSchema({ type: 'array', items: { type: 'number' } }, { role: 'output' });
  assert.deepEqual(sync(output.validate('x')), { ok: false, message: 'Invalid output: value must be array' });
});

test('no schema (or {}) means an object with anything in it', () => {
  for (const compiled of [compileSchema(undefined), compileSchema({})]) {
    assert.equal(compiled.jsonSchema, EMPTY_OBJECT_SCHEMA);
    assert.deepEqual(sync(compiled.validate(undefined)), { ok: true, value: {} });
    assert.deepEqual(sync(compiled.validate({ x: 1 })), { ok: true, value: { x: 1 } });
    assert.equal(sync(compiled.validate([])).ok, false);
    assert.equal(sync(compiled.validate(null)).ok, false);
  }
  assert.deepEqual(EMPTY_OBJECT_SCHEMA, { type: 'object' });
  assert.ok(Object.isFrozen(EMPTY_OBJECT_SCHEMA));
});

test('ajv compiles once per schema, never per validation', (t) => {
  const compile2020 = t.mock.method(Ajv2020.prototype, 'compile');
  const compile07 = t.mock.method(Ajv.prototype, 'compile');
  const schema = searchSchema();
  const first = compileSchema(schema);
  assert.equal(compile2020.mock.callCount(), 1);
  for (let i = 0; i < 500; i++) sync(first.validate({ keyword: String(i), page: i % 11 }));
  assert.equal(compile2020.mock.callCount(), 1);
  // Registering the same schema object again (e.g. shared by two tools) reuses it.
  const second = compileSchema(schema);
  assert.equal(compile2020.mock.callCount(), 1);
  assert.deepEqual(sync(second.validate({ page: 11 })), sync(first.validate({ page: 11 })));
  compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' });
  assert.equal(compile07.mock.callCount(), 1);
  assert.equal(compile2020.mock.callCount(), 1);
});

test('validation errors are capped so the message stays short', () => {
  const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: 'string' }]));
  const compiled = compileSchema({ type: 'object', properties, required: Object.keys(properties) });
  const result = sync(compiled.validate({}));
  assert.equal(result.ok, false);
  if (!result.ok) assert.match(result.message, /"f7" is required \(and 12 more\)$/);
});

test('a runtime that refuses generated code (workerd inside a request): a plain message that names the way out, and no ajv dump', async () => {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  // The schema of a tool, compiled while the process forbids code generation, as workerd does in a request.
  const script = `
    import { compileSchema } from './src/schema/compile.ts';
    import './src/schema/json-schema.ts';
    try {
      compileSchema({ type: 'object', properties: { a: { type: 'number' } } });
      console.log('compiled');
    } catch (e) {
      console.log(JSON.stringify({ name: e.name, message: e.message, cause: e.cause?.name }));
    }`;
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: root },
  );
  const reported = JSON.parse(stdout);
  assert.equal(reported.name, 'Error');
  assert.equal(reported.cause, 'EvalError');
  assert.match(reported.message, /^Cannot validate a plain JSON Schema here: this runtime refuses to generate code/);
  assert.match(reported.message, /Standard Schema \(zod, valibot, arktype\)/);
  assert.match(reported.message, /at the top level/);
  assert.doesNotMatch(stderr, /function code|validate\d/, 'ajv does not dump the generated function');
});
