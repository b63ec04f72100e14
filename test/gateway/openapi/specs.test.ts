// Real specs of public APIs: Kubernetes 1.13 (Swagger 2.0, ~1000 operations, circular
// JSONSchemaProps) in the two-tool mode and filtered to tools; Train Travel (3.1); USPTO (3.0,
// form body); names, filters, and the specs that are refused with a clear message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { McpServer } from '../../../src/server/mcp-server.js';
import { addOpenApiTools } from '../../../src/gateway/openapi/tools.js';
import { OpenApiError } from '../../../src/gateway/openapi/errors.js';
import { toolNames } from '../../../src/gateway/openapi/names.js';
import { createTestPair } from '../../../src/testing/index.js';
import { tempDir } from '../../support/index.js';
import { apiServer, fixture, json, textOf, type ApiServer } from './helpers.js';

let api: ApiServer;
before(async () => {
  api = await apiServer((req, res) => json(res, req.method === 'POST' ? 201 : 200, { kind: 'Status', path: req.path }));
});
after(() => api.close());

describe('Kubernetes 1.13 (Swagger 2.0, circular refs)', () => {
  const k8s = fixture('kubernetes-1.13-swagger-2.0.json.gz');

  test('loads in the two-tool mode; endpoints are searched and called', async () => {
    const server = new McpServer({ name: 'k8s', version: '1' });
    const r = await addOpenApiTools(server, k8s, { baseUrl: api.url });
    assert.equal(r.version, 'swagger 2.0 (converted)');
    assert.equal(r.mode, 'endpoints');
    assert.ok(r.operations.length > 1000);
    const pair = await createTestPair(server);
    try {
      const tools = await pair.client.listAllTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['call_endpoint', 'list_endpoints']);
      const found = await pair.client.callTool('list_endpoints', { query: 'create customresourcedefinition', method: 'POST' });
      const list = found.structuredContent as { total: number; endpoints: { operation: string; path: string; inputSchema: Record<string, unknown> }[] };
      assert.equal(list.total, 1);
      const [crd] = list.endpoints;
      assert.equal(crd.operation, 'createApiextensionsV1beta1CustomResourceDefinition');
      assert.equal(crd.path, '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions');
      // JSONSchemaProps refers to itself: expanded once, then cut with a note.
      assert.match(
        JSON.stringify(crd.inputSchema),
        /recursive reference to io\.k8s\.apiextensions-apiserver\.pkg\.apis\.apiextensions\.v1beta1\.JSONSchemaProps: not expanded further/,
      );
      const body = {
        apiVersion: 'apiextensions.k8s.io/v1beta1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'crontabs.example.com' },
        spec: {
          group: 'example.com',
          version: 'v1',
          scope: 'Namespaced',
          names: { plural: 'crontabs', kind: 'CronTab' },
          // JSONSchemaProps inside JSONSchemaProps: the part beyond the cut accepts anything.
          validation: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cron: { type: 'string' } } } } } },
        },
      };
      const called = await pair.client.callTool('call_endpoint', { operation: crd.operation, arguments: { body, dryRun: 'All' } });
      assert.equal(called.isError, undefined, textOf(called));
      const req = api.requests.at(-1)!;
      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions');
      assert.equal(req.rawQuery, 'dryRun=All');
      assert.deepEqual(JSON.parse(req.body), body);
      const bad = await pair.client.callTool('call_endpoint', { operation: crd.operation, arguments: {} });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /body/);
      const unknown = await pair.client.callTool('call_endpoint', { operation: 'nope' });
      assert.match(textOf(unknown), /No endpoint named "nope": find it with list_endpoints/);
    } finally {
      await pair.close();
    }
  });

  test('filtered to the CRD operations: tools with the circular schema list and validate', async () => {
    const server = new McpServer({ name: 'k8s', version: '1' });
    const r = await addOpenApiTools(server, k8s, { baseUrl: api.url, filter: { path: 'customresourcedefinitions', methods: ['GET', 'post'] } });
    assert.equal(r.mode, 'tools');
    const pair = await createTestPair(server);
    try {
      const tools = await pair.client.listAllTools();
      assert.ok(tools.every((t) => /^(GET|POST) /m.test(t.description!.split('\n').at(-1)!)));
      assert.ok(tools.some((t) => t.name === 'createApiextensionsV1beta1CustomResourceDefinition'));
      const list = await pair.client.callTool('listApiextensionsV1beta1CustomResourceDefinition', { labelSelector: 'a=b', limit: 5 });
      assert.equal(list.isError, undefined);
      assert.equal(api.requests.at(-1)!.rawQuery, 'labelSelector=a%3Db&limit=5');
    } finally {
      await pair.close();
    }
  });
});

describe('other real specs', () => {
  test('Train Travel (OpenAPI 3.1) loads and calls', async () => {
    const server = new McpServer({ name: 't', version: '1' });
    // Read from the dev dependency, not copied here: the spec's licence (CC BY-NC-SA 4.0) is not ours to redistribute.
    const r = await addOpenApiTools(
      server,
      JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@readme/oas-examples/3.1/json/train-travel.json'), 'utf8')),
      { baseUrl: api.url },
    );
    assert.equal(r.version, 'openapi 3.1.0');
    const pair = await createTestPair(server);
    try {
      const tools = await pair.client.listAllTools();
      assert.ok(tools.some((t) => t.name === 'get-stations'));
      const result = await pair.client.callTool('get-trips', {
        origin: 'efdbb9d1-02c2-4bc3-afb7-6788d8782b1e',
        destination: 'b2e783e1-c824-4d63-b37a-d8d698862f1d',
        date: '2024-02-01T09:00:00Z',
      });
      // Once seen under heavy load: the last request recorded was an earlier test's, so this
      // call never reached the API; its own error says why.
      assert.notEqual(result.isError, true, textOf(result));
      const req = api.requests.at(-1)!;
      assert.equal(req.path, '/trips');
      assert.equal(req.query.get('date'), '2024-02-01T09:00:00Z');
    } finally {
      await pair.close();
    }
  });

  test('USPTO (3.0): server variables and a form body', async () => {
    const server = new McpServer({ name: 'u', version: '1' });
    const r = await addOpenApiTools(server, fixture('uspto-3.0.json'), { baseUrl: api.url });
    assert.deepEqual(r.tools, ['list-data-sets', 'list-searchable-fields', 'perform-search']);
    const pair = await createTestPair(server);
    try {
      await pair.client.callTool('perform-search', { dataset: 'oa_citations', version: 'v1', body: { criteria: '*:*', start: 0, rows: 10 } });
      const req = api.requests.at(-1)!;
      assert.equal(req.path, '/oa_citations/v1/records');
      assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(req.body, 'criteria=*%3A*&start=0&rows=10');
    } finally {
      await pair.close();
    }
  });
});

describe('names, filters and refusals', () => {
  test('names: sanitised, at most 64 characters, collision-free and stable', () => {
    const long = `get /${'very-long-segment/'.repeat(6)}{id}`;
    const names = toolNames(['get /pets/{petId}', 'list.pets v2', 'dup', 'dup', long, long]);
    assert.equal(names[0], 'get_pets_petId');
    assert.equal(names[1], 'list_pets_v2');
    assert.equal(names[2], 'dup');
    assert.match(names[3], /^dup_[0-9a-z]{6}$/);
    assert.ok(names[4].length <= 64 && names[5].length <= 64);
    assert.notEqual(names[4], names[5]);
    assert.deepEqual(toolNames(['get /pets/{petId}', 'list.pets v2', 'dup', 'dup', long, long]), names);
    assert.equal(new Set(names).size, names.length);
  });

  test('filters: tags, include and exclude; an unknown name is an error', async () => {
    const spec = fixture('petstore-3.0.json');
    const tagged = await addOpenApiTools(new McpServer({ name: 'p', version: '1' }), spec, {
      baseUrl: api.url,
      filter: { tags: ['store'], exclude: ['deleteOrder'] },
    });
    assert.deepEqual(tagged.tools, ['getInventory', 'placeOrder', 'getOrderById']);
    const one = await addOpenApiTools(new McpServer({ name: 'p', version: '1' }), spec, {
      baseUrl: api.url,
      filter: { include: ['loginUser'] },
      prefix: 'pets_',
    });
    assert.deepEqual(one.tools, ['pets_loginUser']);
    await assert.rejects(
      addOpenApiTools(new McpServer({ name: 'p', version: '1' }), spec, { baseUrl: api.url, filter: { include: ['logn'] } }),
      /No operation named "logn" in the spec/,
    );
    // A near miss is named.
    await assert.rejects(
      addOpenApiTools(new McpServer({ name: 'p', version: '1' }), spec, { baseUrl: api.url, filter: { exclude: ['loginUsr'] } }),
      /No operation named "loginUsr" \(did you mean "loginUser"\?\) in the spec/,
    );
  });

  test('refused with a clear message: external refs, unknown versions, no base URL', async () => {
    const s = () => new McpServer({ name: 'x', version: '1' });
    const external = {
      openapi: '3.0.3',
      info: { title: 'x', version: '1' },
      paths: { '/a': { get: { responses: { 200: { $ref: 'other.yaml#/components/responses/Ok' } } } } },
    };
    await assert.rejects(
      addOpenApiTools(s(), external, { baseUrl: api.url }),
      (e: Error) => e instanceof OpenApiError && /external \$ref "other\.yaml#\/components\/responses\/Ok" is not supported/.test(e.message),
    );
    await assert.rejects(
      addOpenApiTools(s(), { swagger: '1.2', paths: {} }),
      /Not a supported OpenAPI document \(swagger 1\.2\): OpenAPI 3\.0 and 3\.1 are read, and Swagger 2\.0 is converted/,
    );
    await assert.rejects(
      addOpenApiTools(s(), fixture('petstore-3.0.json'), { filter: { include: ['getPetById'] } }).then(() =>
        addOpenApiTools(s(), { ...fixture('petstore-3.0.json'), servers: [{ url: '/v2' }] }),
      ),
      /relative and the spec was not loaded from a URL: give the API's base URL/,
    );
  });

  test('YAML specs load through the optional yaml package, or say how to get it', async () => {
    const { stringify } = await import('yaml');
    const dir = tempDir('openapi-yaml');
    const file = join(dir, 'petstore.yaml');
    writeFileSync(file, stringify(fixture('petstore-3.0.json')));
    const r = await addOpenApiTools(new McpServer({ name: 'y', version: '1' }), file, { baseUrl: api.url });
    assert.equal(r.tools.length, 20);
    await assert.rejects(
      addOpenApiTools(new McpServer({ name: 'y', version: '1' }), file, {
        baseUrl: api.url,
        importYaml: () => Promise.reject(new Error('Cannot find package')),
      }),
      /is YAML, and reading YAML needs the "yaml" package, which is not installed: run `npm i yaml`, or give the spec as JSON/,
    );
    await assert.rejects(
      addOpenApiTools(new McpServer({ name: 'y', version: '1' }), join(dir, 'missing.json')),
      /Could not read the OpenAPI spec .*missing\.json: no such file/,
    );
  });
});

test('a tool description says the summary once: not again when the description begins with it; the title carries it too', async () => {
  const spec = {
    openapi: '3.0.3',
    info: { title: 'Users', version: '1' },
    paths: {
      '/users/{id}': {
        get: {
          operationId: 'getUser',
          summary: 'Get a user',
          description: 'Get a user. Returns the user with this id, or 404.',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'the user' } },
        },
        delete: {
          operationId: 'deleteUser',
          summary: 'Delete a user',
          description: 'Removes the user for good.',
          responses: { '204': { description: 'gone' } },
        },
      },
    },
  };
  const server = new McpServer({ name: 'users', version: '1' });
  await addOpenApiTools(server, spec as never, { baseUrl: api.url });
  const pair = await createTestPair(server);
  try {
    const tools = Object.fromEntries((await pair.client.listAllTools()).map((t) => [t.name, t]));
    assert.equal(tools.getUser!.title, 'Get a user');
    assert.equal(tools.getUser!.description, 'Get a user. Returns the user with this id, or 404.\n\nGET /users/{id}');
    // A description that adds to the summary keeps both: a model reads only the description.
    assert.equal(tools.deleteUser!.description, 'Delete a user\n\nRemoves the user for good.\n\nDELETE /users/{id}');
  } finally {
    await pair.close();
  }
});
