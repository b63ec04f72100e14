// Petstore (OpenAPI 3.0) as tools over an in-process client: the schema each tool shows, and
// every argument mapped back to the request a local stand-in of the API checks; error mapping.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { addOpenApiTools } from '../../../src/gateway/openapi/tools.js';
import { createTestPair, type TestPair } from '../../../src/testing/index.js';
import { ManualClock } from '../../support/index.js';
import { apiServer, fixture, json, textOf, type ApiServer } from './helpers.js';

const PET = { id: 7, name: 'doggie', photoUrls: [], status: 'available' };

describe('Petstore 3.0 as tools', () => {
  let api: ApiServer;
  let pair: TestPair;
  const clock = new ManualClock();
  before(async () => {
    api = await apiServer((req, res) => {
      if (req.path === '/v2/pet/7' && req.method === 'GET') return json(res, 200, PET);
      if (req.path === '/v2/pet/404') return json(res, 404, { code: 1, message: 'Pet not found' });
      if (req.path === '/v2/pet/500') return json(res, 500, { message: 'boom' });
      if (req.path === '/v2/pet/999') return; // never answers: the timeout ends it
      if (req.path === '/v2/user/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('x'.repeat(5000));
      }
      if (req.path === '/v2/user/image') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      }
      if (req.path === '/v2/pet/findByStatus') return json(res, 200, [PET]);
      json(res, 200, { ok: true });
    });
    const server = new McpServer({ name: 'petstore', version: '1' });
    const r = await addOpenApiTools(server, fixture('petstore-3.0.json'), { baseUrl: `${api.url}/v2`, clock, timeoutMs: 5000, maxResponseBytes: 1000 });
    assert.equal(r.mode, 'tools');
    assert.equal(r.version, 'openapi 3.0.0');
    pair = await createTestPair(server);
  });
  after(async () => {
    await pair.close();
    await api.close();
  });

  test('each operation is a tool with one input schema', async () => {
    const tools = await pair.client.listAllTools();
    assert.equal(tools.length, 20);
    const byName = new Map(tools.map((t) => [t.name, t]));
    const get = byName.get('getPetById')!;
    assert.equal(get.title, 'Find pet by ID');
    assert.match(get.description!, /Returns a single pet\n\nGET \/pet\/\{petId\}$/);
    assert.deepEqual(get.inputSchema.required, ['petId']);
    assert.deepEqual(get.annotations, { readOnlyHint: true, openWorldHint: true });
    const add = byName.get('addPet')!;
    const body = (add.inputSchema.properties as Record<string, { properties: Record<string, unknown>; required: string[] }>).body;
    assert.deepEqual(add.inputSchema.required, ['body']);
    // Pet.id is readOnly: a client does not send it. Category and Tag refs are inlined.
    assert.deepEqual(Object.keys(body.properties).sort(), ['category', 'name', 'photoUrls', 'status', 'tags']);
    assert.equal((body.properties.category as { type: string }).type, 'object');
    assert.equal(JSON.stringify(add.inputSchema).includes('$ref'), false);
    assert.equal(byName.get('deletePet')!.annotations?.destructiveHint, true);
  });

  test('path, query, header and bodies reach the API as the spec says', async () => {
    const got = await pair.client.callTool('getPetById', { petId: 7 });
    assert.equal(got.isError, undefined);
    assert.deepEqual(got.structuredContent, PET);
    assert.deepEqual(JSON.parse(textOf(got)), PET);
    assert.equal(api.requests.at(-1)!.method, 'GET');

    const found = await pair.client.callTool('findPetsByStatus', { status: ['available', 'pending'] });
    assert.equal(api.requests.at(-1)!.rawQuery, 'status=available&status=pending');
    assert.deepEqual(JSON.parse(textOf(found)), [PET]);
    assert.equal(found.structuredContent, undefined, 'an array is not structuredContent');

    await pair.client.callTool('loginUser', { username: 'a b&c', password: 'p/w' });
    assert.equal(api.requests.at(-1)!.rawQuery, 'username=a%20b%26c&password=p%2Fw');

    await pair.client.callTool('getUserByName', { username: 'x/y z' });
    assert.equal(api.requests.at(-1)!.path, '/v2/user/x%2Fy%20z');

    await pair.client.callTool('addPet', { body: { name: 'rex', photoUrls: ['u'], status: 'sold' } });
    let r = api.requests.at(-1)!;
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/v2/pet');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(r.body), { name: 'rex', photoUrls: ['u'], status: 'sold' });

    await pair.client.callTool('updatePetWithForm', { petId: 7, body: { name: 'rex', status: 'sold' } });
    r = api.requests.at(-1)!;
    assert.equal(r.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(r.body, 'name=rex&status=sold');

    await pair.client.callTool('deletePet', { petId: 7, api_key: 'k-1' });
    r = api.requests.at(-1)!;
    assert.equal(r.method, 'DELETE');
    assert.equal(r.headers.api_key, 'k-1');
  });

  test('bad arguments are tool errors, and nothing is sent', async () => {
    const before = api.requests.length;
    const r = await pair.client.callTool('getPetById', { petId: 'seven' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /petId/);
    const missing = await pair.client.callTool('addPet', {});
    assert.equal(missing.isError, true);
    assert.equal(api.requests.length, before);
  });

  test('HTTP errors are isError results with the status and the body', async () => {
    const nf = await pair.client.callTool('getPetById', { petId: 404 });
    assert.equal(nf.isError, true);
    assert.match(textOf(nf), /^GET http:\/\/127\.0\.0\.1:\d+\/v2\/pet\/404 failed: HTTP 404 Not Found\n\{"code":1,"message":"Pet not found"\}/);
    const boom = await pair.client.callTool('getPetById', { petId: 500 });
    assert.match(textOf(boom), /HTTP 500 Internal Server Error\n\{"message":"boom"\}/);
  });

  test('a call with no answer times out (on the injected clock)', async () => {
    const arrived = api.next();
    const call = pair.client.callTool('getPetById', { petId: 999 });
    await arrived;
    clock.advance(5000);
    const r = await call;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /timed out: no answer within 5000 ms/);
  });

  test('large text is cut, images come back as images', async () => {
    const big = await pair.client.callTool('getUserByName', { username: 'big' });
    assert.equal(textOf(big).length, 1000 + '\n[truncated: the response is larger than 1000 bytes]'.length);
    assert.match(textOf(big), /\[truncated: the response is larger than 1000 bytes\]$/);
    const img = await pair.client.callTool('getUserByName', { username: 'image' });
    assert.deepEqual(img.content[0], { type: 'image', mimeType: 'image/png', data: 'iVBORw==' });
  });

  test('an API that cannot be reached is a clear isError', async () => {
    const dead = await apiServer(() => {});
    await dead.close();
    const server = new McpServer({ name: 'p', version: '1' });
    await addOpenApiTools(server, fixture('petstore-3.0.json'), { baseUrl: dead.url, filter: { include: ['getPetById'] } });
    const p = await createTestPair(server);
    try {
      const r = await p.client.callTool('getPetById', { petId: 1 });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /GET http:\/\/127\.0\.0\.1:\d+\/pet\/1 failed: could not reach the API \(ECONNREFUSED/);
    } finally {
      await p.close();
    }
  });
});
