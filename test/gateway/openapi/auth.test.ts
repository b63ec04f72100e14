// Credentials for the API: a static header, a bearer token from the environment, OAuth2 client
// credentials against a local token endpoint (cached until expiry on an injected clock), and the
// MCP caller's own token passed through an HTTP server that checks API keys.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { addOpenApiTools } from '../../../src/gateway/openapi/tools.js';
import { serve } from '../../../src/serving/node.js';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import { connect } from '../../../src/client/connect.js';
import { createTestPair } from '../../../src/testing/index.js';
import { ManualClock } from '../../support/index.js';
import { apiServer, fixture, json, textOf, type ApiServer } from './helpers.js';

let api: ApiServer;
let tokens = 0;
let valid = new Set<string>();
before(async () => {
  api = await apiServer((req, res) => {
    if (req.path === '/token') {
      const form = new URLSearchParams(req.body);
      if (req.headers.authorization !== `Basic ${Buffer.from('cid:s%26cret').toString('base64')}` || form.get('grant_type') !== 'client_credentials')
        return json(res, 401, { error: 'invalid_client', error_description: 'bad secret' });
      const token = `t${++tokens}`;
      valid.add(token);
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') });
    }
    const auth = req.headers.authorization ?? '';
    if (req.path === '/v2/store/inventory' && auth.startsWith('Bearer t') && !valid.has(auth.slice(7))) return json(res, 401, { error: 'expired' });
    json(res, 200, { authorization: auth, key: req.headers['x-api-key'] ?? null });
  });
});
after(() => api.close());

const petstore = () => fixture('petstore-3.0.json');
const only = { include: ['getInventory'] };

describe('auth', () => {
  test('a static header and a bearer token from the environment', async () => {
    const server = new McpServer({ name: 'a', version: '1' });
    await addOpenApiTools(server, petstore(), {
      baseUrl: `${api.url}/v2`,
      filter: only,
      auth: [
        { type: 'header', name: 'X-API-Key', value: 'k1' },
        { type: 'bearer', env: 'PETSTORE_TOKEN' },
      ],
      env: { PETSTORE_TOKEN: 'envtok' },
    });
    const pair = await createTestPair(server);
    try {
      const r = await pair.client.callTool('getInventory', {});
      assert.deepEqual(r.structuredContent, { authorization: 'Bearer envtok', key: 'k1' });
    } finally {
      await pair.close();
    }
    await assert.rejects(
      addOpenApiTools(new McpServer({ name: 'a', version: '1' }), petstore(), { baseUrl: api.url, auth: { type: 'bearer', env: 'UNSET_TOKEN' }, env: {} }),
      /the environment variable UNSET_TOKEN is not set/,
    );
  });

  test('OAuth2 client credentials: one token until it expires, renewed after a 401', async () => {
    const clock = new ManualClock();
    const server = new McpServer({ name: 'cc', version: '1' });
    await addOpenApiTools(server, petstore(), {
      baseUrl: `${api.url}/v2`,
      filter: only,
      clock,
      auth: { type: 'clientCredentials', tokenUrl: `${api.url}/token`, clientId: 'cid', clientSecret: 's&cret', scopes: ['read', 'write'] },
    });
    const pair = await createTestPair(server);
    try {
      tokens = 0;
      const [a, b] = await Promise.all([pair.client.callTool('getInventory', {}), pair.client.callTool('getInventory', {})]);
      assert.equal((a.structuredContent as { authorization: string }).authorization, 'Bearer t1');
      assert.equal((b.structuredContent as { authorization: string }).authorization, 'Bearer t1');
      assert.equal(tokens, 1, 'concurrent calls share one token request');
      assert.equal(new URLSearchParams(api.requests.find((r) => r.path === '/token')!.body).get('scope'), 'read write');
      clock.advance(3600_000 - 31_000);
      await pair.client.callTool('getInventory', {});
      assert.equal(tokens, 1, 'still valid');
      clock.advance(2000);
      const renewed = await pair.client.callTool('getInventory', {});
      assert.equal((renewed.structuredContent as { authorization: string }).authorization, 'Bearer t2');
      // The API revokes the token: the 401 drops it and the call is made again with a new one.
      valid = new Set();
      const retried = await pair.client.callTool('getInventory', {});
      assert.equal(retried.isError, undefined, textOf(retried));
      assert.equal((retried.structuredContent as { authorization: string }).authorization, 'Bearer t3');
    } finally {
      await pair.close();
    }
  });

  test('a token endpoint that refuses: the call is an isError saying why', async () => {
    const server = new McpServer({ name: 'cc', version: '1' });
    await addOpenApiTools(server, petstore(), {
      baseUrl: `${api.url}/v2`,
      filter: only,
      auth: { type: 'clientCredentials', tokenUrl: `${api.url}/token`, clientId: 'cid', clientSecret: 'wrong' },
    });
    const pair = await createTestPair(server);
    try {
      const r = await pair.client.callTool('getInventory', {});
      assert.equal(r.isError, true);
      assert.match(textOf(r), /not sent: Could not get an access token from http:\/\/127\.0\.0\.1:\d+\/token: HTTP 401 \(invalid_client: bad secret\)/);
    } finally {
      await pair.close();
    }
  });

  test("pass-through: the MCP caller's token goes on to the API, over HTTP", async () => {
    const server = new McpServer({ name: 'pt', version: '1' });
    await addOpenApiTools(server, petstore(), { baseUrl: `${api.url}/v2`, filter: only, auth: { type: 'passThrough' } });
    const running = await serve(server, { port: 0, authenticate: apiKeyGuard({ keys: ['caller-key'] }) });
    try {
      const client = await connect({ url: running.url, headers: { authorization: 'Bearer caller-key' } });
      try {
        const r = await client.callTool('getInventory', {});
        assert.deepEqual(r.structuredContent, { authorization: 'Bearer caller-key', key: null });
      } finally {
        await client.close();
      }
    } finally {
      await running.close();
    }
    // In-process there is no authenticated caller: the call says so instead of sending nothing.
    const pair = await createTestPair(server);
    try {
      const r = await pair.client.callTool('getInventory', {});
      assert.equal(r.isError, true);
      assert.match(textOf(r), /called with the caller's own credentials, and this MCP request carried none/);
    } finally {
      await pair.close();
    }
  });
});
