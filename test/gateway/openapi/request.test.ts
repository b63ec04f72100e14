// Arguments back into requests, for the parameter styles the specs above do not use: the
// serialisations of OpenAPI 3's style/explode table, cookies, JSON-in-query and name clashes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOperations } from '../../../src/gateway/openapi/operations.js';
import { buildRequest } from '../../../src/gateway/openapi/request.js';

const p = (name: string, where: string, extra: Record<string, unknown> = {}) => ({ name, in: where, schema: { type: 'string' }, ...extra });

const spec = {
  openapi: '3.1.0',
  info: { title: 'styles', version: '1' },
  paths: {
    '/items/{id}/{label}/{matrix}': {
      parameters: [p('id', 'path', { required: true })],
      get: {
        operationId: 'styles',
        parameters: [
          p('label', 'path', { style: 'label', required: true }),
          p('matrix', 'path', { style: 'matrix', explode: true, required: true }),
          p('id', 'query'),
          p('tags', 'query', { style: 'form', explode: false }),
          p('pipes', 'query', { style: 'pipeDelimited' }),
          p('spaces', 'query', { style: 'spaceDelimited' }),
          p('filter', 'query', { style: 'deepObject', explode: true }),
          { name: 'where', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
          p('X-Trace', 'header'),
          p('session', 'cookie'),
          p('Authorization', 'header'),
        ],
      },
    },
  },
};

test('style and explode, cookies, JSON in a query, clashing names', () => {
  const [op] = parseOperations(spec).operations;
  assert.deepEqual(
    op.parameters.map((x) => x.arg),
    ['id_path', 'label', 'matrix', 'id_query', 'tags', 'pipes', 'spaces', 'filter', 'where', 'X-Trace', 'session'],
    'Authorization as a header parameter is ignored, as the spec says',
  );
  const req = buildRequest(op, 'http://api.test/v1/', {
    id_path: 'a/b',
    label: ['x', 'y'],
    matrix: ['m', 'n'],
    id_query: '7',
    tags: ['a', 'b c'],
    pipes: ['1', '2'],
    spaces: ['3', '4'],
    filter: { color: 'red', size: 'L' },
    where: { n: 1 },
    'X-Trace': 't-1',
    session: 's=1',
  });
  assert.equal(
    req.url,
    'http://api.test/v1/items/a%2Fb/.x,y/;matrix=m;matrix=n?id=7&tags=a,b%20c&pipes=1|2&spaces=3%204&filter%5Bcolor%5D=red&filter%5Bsize%5D=L&where=%7B%22n%22%3A1%7D',
  );
  assert.deepEqual(req.headers, { 'X-Trace': 't-1', cookie: 'session=s%3D1' });
  const schema = op.inputSchema() as { required: string[] };
  assert.deepEqual(schema.required, ['id_path', 'label', 'matrix']);
});

test('path values: refused when they would be a dot segment or empty; a name the spec does not declare stays as written', () => {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'p', version: '1' },
    paths: {
      '/a/{id}/{undeclared}': { get: { operationId: 'a', parameters: [p('id', 'path', { required: true, style: 'matrix' })] } },
      '/b/{x}{y}': { get: { operationId: 'b', parameters: [p('x', 'path', { required: true }), p('y', 'path', { required: true })] } },
    },
  };
  const [a, b] = parseOperations(doc).operations;
  // matrix style: ";id=.." is not a dot segment.
  assert.equal(buildRequest(a, 'http://api.test/v1/', { id: '..' }).url, 'http://api.test/v1/a/;id=../%7Bundeclared%7D');
  // Two values that together make "..".
  assert.throws(() => buildRequest(b, 'http://api.test', { x: '.', y: '.' }), /the path parameters "x" and "y" cannot be "\." or "\.\."/);
  assert.equal(buildRequest(b, 'http://api.test', { x: '.', y: 'z' }).url, 'http://api.test/b/.z');
  assert.throws(() => buildRequest(b, 'http://api.test', { x: '', y: '' }), /the path parameters "x" and "y" are empty/);
});
