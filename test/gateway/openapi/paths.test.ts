// Path parameters as the attack: values that a URL parser or a server would read as `.` or `..`
// (or that would empty a segment) must not move a call to another resource. A recording server
// sees every request target exactly as it arrives; a refused call sends nothing at all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { addOpenApiTools } from '../../../src/gateway/openapi/tools.js';
import { createTestPair, type TestPair } from '../../../src/testing/index.js';
import { apiServer, json, textOf, type ApiServer } from './helpers.js';

const str = { type: 'string' };
const spec = {
  openapi: '3.1.0',
  info: { title: 'paths', version: '1' },
  paths: {
    '/items': { get: { operationId: 'listItems' }, delete: { operationId: 'deleteAllItems' } },
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: str }],
      get: { operationId: 'getItem' },
      delete: { operationId: 'deleteItem' },
    },
    '/repos/{owner}/{repo}': {
      get: {
        operationId: 'getRepo',
        parameters: [
          { name: 'owner', in: 'path', required: true, schema: str },
          { name: 'repo', in: 'path', required: true, schema: str },
        ],
      },
    },
    '/files/{name}.json': { get: { operationId: 'getFile', parameters: [{ name: 'name', in: 'path', required: true, schema: str }] } },
    '/tags/{tags}': {
      get: { operationId: 'getTags', parameters: [{ name: 'tags', in: 'path', required: true, style: 'label', schema: { type: 'array', items: str } }] },
    },
  },
};

describe('OpenAPI path parameters stay in their segment', () => {
  let api: ApiServer;
  let pair: TestPair;
  before(async () => {
    api = await apiServer((req, res) => json(res, 200, { target: req.target }));
    const server = new McpServer({ name: 'p', version: '1' });
    await addOpenApiTools(server, spec, { baseUrl: `${api.url}/api/v1` });
    pair = await createTestPair(server);
  });
  after(async () => {
    await pair.close();
    await api.close();
  });

  /** Calls the tool and returns the request target the API saw, or the refusal's text when nothing was sent. */
  async function call(tool: string, args: Record<string, unknown>): Promise<{ target?: string; refused?: string }> {
    const before = api.requests.length;
    const r = await pair.client.callTool(tool, args);
    const sent = api.requests.slice(before);
    if (r.isError) {
      assert.deepEqual(sent, [], `${tool} ${JSON.stringify(args)}: refused, yet sent`);
      return { refused: textOf(r) };
    }
    assert.equal(sent.length, 1, textOf(r));
    return { target: sent[0].target };
  }

  test("the issue's examples: .. does not reach the base, two .. do not climb above it, DELETE . does not hit the collection", async () => {
    const up = await call('getItem', { id: '..' });
    assert.match(up.refused ?? '', /^Invalid arguments for getItem: the path parameter "id" cannot be "\." or "\.\."/);
    const climb = await call('getRepo', { owner: '..', repo: '..' });
    assert.match(climb.refused ?? '', /^Invalid arguments for getRepo: the path parameter "owner" cannot be/);
    const collection = await call('deleteItem', { id: '.' });
    assert.match(collection.refused ?? '', /^Invalid arguments for deleteItem: the path parameter "id" cannot be "\." or "\.\.".*; nothing was sent$/);
    assert.ok(!api.requests.some((r) => r.method === 'DELETE'), 'no DELETE reached the API');
  });

  test('dot segments in every spelling are refused, for each operation', async () => {
    const dotted = ['.', '..', '%2e', '%2E', '%2e%2e', '%2E%2E', '.%2e', '%2e.', 'a/../..', '../../x', '../', '..\\..', 'x/.', '%2e%2e/admin'];
    for (const id of dotted) {
      for (const tool of ['getItem', 'deleteItem']) {
        const r = await call(tool, { id });
        assert.ok(r.refused, `${tool} ${JSON.stringify(id)} was sent as ${r.target}`);
        assert.match(r.refused, /the path parameter "id" cannot be "\." or "\.\."/);
      }
      const repo = await call('getRepo', { owner: 'me', repo: id });
      assert.ok(repo.refused, `getRepo repo=${JSON.stringify(id)} was sent as ${repo.target}`);
    }
    const empty = await call('deleteItem', { id: '' });
    assert.match(empty.refused ?? '', /the path parameter "id" is empty/);
    // label style puts a "." in front: an empty array would make the segment "." itself.
    const label = await call('getTags', { tags: [] });
    assert.match(label.refused ?? '', /the path parameter "tags" cannot be/);
  });

  test('any other value is one encoded segment under the base path, and reaches it as such', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['getItem', { id: 'a/b' }, '/api/v1/items/a%2Fb'],
      ['getItem', { id: 'x?admin=1' }, '/api/v1/items/x%3Fadmin%3D1'],
      ['getItem', { id: 'x#top' }, '/api/v1/items/x%23top'],
      ['getItem', { id: '...' }, '/api/v1/items/...'],
      ['getItem', { id: 'a..b' }, '/api/v1/items/a..b'],
      ['getItem', { id: '.hidden' }, '/api/v1/items/.hidden'],
      ['getItem', { id: '100%' }, '/api/v1/items/100%25'],
      ['getItem', { id: 'é ü' }, '/api/v1/items/%C3%A9%20%C3%BC'],
      ['deleteItem', { id: 'a b/c' }, '/api/v1/items/a%20b%2Fc'],
      ['getRepo', { owner: 'octo', repo: 'hello.js' }, '/api/v1/repos/octo/hello.js'],
      // "." + ".json" makes the segment "..json", not a dot segment: the template keeps them apart.
      ['getFile', { name: '.' }, '/api/v1/files/..json'],
      ['getTags', { tags: ['a', 'b'] }, '/api/v1/tags/.a,b'],
    ];
    for (const [tool, args, target] of cases) {
      const r = await call(tool, args);
      assert.equal(r.target, target, `${tool} ${JSON.stringify(args)}: ${r.refused}`);
    }
    // Nothing ever landed outside the base path or on the collection.
    for (const r of api.requests) {
      assert.ok(r.target.startsWith('/api/v1/') && !/^\/api\/v1\/items\/?$/.test(r.target), r.target);
    }
  });
});
