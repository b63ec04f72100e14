// Redirects and credentials, as the attack: an API (or whoever controls one of its answers)
// redirects a call to another origin, here a second loopback server on another port, which
// records everything it receives. The configured API key, bearer token, Basic credentials and
// OAuth token must never arrive there; same-origin redirects keep working with them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { McpServer } from '../../../src/server/mcp-server.js';
import { addOpenApiTools, type OpenApiToolsOptions } from '../../../src/gateway/openapi/tools.js';
import type { OpenApiAuth } from '../../../src/gateway/openapi/auth.js';
import { createTestPair, type TestPair } from '../../../src/testing/index.js';
import { apiServer, json, textOf, type ApiServer, type Recorded } from './helpers.js';

const spec = {
  openapi: '3.1.0',
  info: { title: 'redirects', version: '1' },
  paths: {
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getItem',
        parameters: [
          { name: 'api_key', in: 'query', schema: { type: 'string' } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
          { name: 'X-Tenant', in: 'header', schema: { type: 'string' } },
        ],
      },
      post: {
        operationId: 'postItem',
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
};

const redirect = (res: ServerResponse, status: number, location: string) => {
  res.writeHead(status, { location, 'content-type': 'text/plain' });
  res.end(`see ${location}`);
};

/** What a request carried that could identify the caller. */
const carried = (r: Recorded) => ({
  method: r.method,
  key: r.headers['x-api-key'] ?? null,
  authorization: r.headers.authorization ?? null,
  cookie: r.headers.cookie ?? null,
  tenant: r.headers['x-tenant'] ?? null,
  query: r.rawQuery,
  body: r.body,
});

let api: ApiServer;
let other: ApiServer;
before(async () => {
  other = await apiServer((req, res) => {
    if (req.path === '/back') return redirect(res, 302, `${api.url}/v1/items/final`);
    json(res, 200, { reached: 'other', ...carried(req) });
  });
  api = await apiServer((req, res) => {
    if (req.path === '/token') return json(res, 200, { access_token: 'oauth-tok', token_type: 'Bearer', expires_in: 3600 });
    if (req.path === '/token-away') return redirect(res, 307, `${other.url}/token`);
    const id = decodeURIComponent(req.path.slice('/v1/items/'.length));
    if (id === 'away') return redirect(res, 302, `${other.url}/steal?x=1`);
    if (id === 'away-307') return redirect(res, 307, `${other.url}/steal`);
    if (id === 'away-308') return redirect(res, 308, `${other.url.replace('127.0.0.1', 'localhost')}/steal`);
    if (id === 'bounce') return redirect(res, 302, `${other.url}/back`);
    if (id === 'same') return redirect(res, 302, '/v1/items/final');
    if (id === 'see-other') return redirect(res, 303, '/v1/items/final');
    if (id === 'temporary') return redirect(res, 307, `${api.url}/v1/items/final`);
    if (id === 'permanent') return redirect(res, 308, 'final');
    if (id === 'loop') return redirect(res, 302, '/v1/items/loop');
    if (id === 'nowhere') return redirect(res, 302, 'ftp://files.example/x');
    json(res, 200, { reached: 'api', ...carried(req) });
  });
});
after(async () => {
  await api.close();
  await other.close();
});

async function tools(auth: OpenApiAuth | OpenApiAuth[], extra: OpenApiToolsOptions = {}): Promise<TestPair> {
  const server = new McpServer({ name: 'r', version: '1' });
  await addOpenApiTools(server, spec, { baseUrl: `${api.url}/v1`, auth, ...extra });
  return createTestPair(server);
}

const CREDENTIALS: [string, OpenApiAuth | OpenApiAuth[]][] = [
  [
    'an API key header (--openapi-header) and a bearer token',
    [
      { type: 'header', name: 'X-API-Key', value: 'k-secret' },
      { type: 'bearer', token: 'bearer-secret' },
    ],
  ],
  ['HTTP Basic credentials in a header', { type: 'header', name: 'Authorization', value: `Basic ${Buffer.from('me:pw-secret').toString('base64')}` }],
  ['an OAuth client-credentials token', { type: 'clientCredentials', tokenUrl: '', clientId: 'cid', clientSecret: 'cs-secret' }],
];

const withToken = (auth: OpenApiAuth | OpenApiAuth[]) =>
  Array.isArray(auth) || auth.type !== 'clientCredentials' ? auth : { ...auth, tokenUrl: `${api.url}/token` };

describe('OpenAPI tools and redirects', () => {
  for (const [what, auth] of CREDENTIALS) {
    test(`attack: a redirect to another origin never delivers ${what}`, async () => {
      const pair = await tools(withToken(auth));
      try {
        other.requests.length = 0;
        for (const id of ['away', 'away-307', 'away-308']) {
          const r = await pair.client.callTool(id === 'away' ? 'getItem' : 'postItem', { id, ...(id === 'away' ? {} : { body: { n: 1 } }) });
          assert.equal(r.isError, true, `${id}: ${textOf(r)}`);
          const target = id === 'away-308' ? other.url.replace('127.0.0.1', 'localhost') : other.url;
          assert.match(textOf(r), new RegExp(`redirected \\(HTTP 30[278]\\) to another origin, ${target.replace(/[.]/g, '\\.')}; a redirect that leaves`));
        }
        assert.deepEqual(other.requests, [], 'nothing at all reached the other origin');
      } finally {
        await pair.close();
      }
    });
  }

  test('anonymous: a cross-origin redirect is followed with no credential, header, cookie or query parameter', async () => {
    const pair = await tools(CREDENTIALS[0][1], { crossOriginRedirects: 'anonymous' });
    try {
      other.requests.length = 0;
      const r = await pair.client.callTool('getItem', { id: 'away', api_key: 'q-secret', session: 'c-secret', 'X-Tenant': 't-secret' });
      assert.equal(r.isError, undefined, textOf(r));
      // The Location's own query string, and nothing of ours.
      assert.deepEqual(r.structuredContent, {
        reached: 'other',
        method: 'GET',
        key: null,
        authorization: null,
        cookie: null,
        tenant: null,
        query: 'x=1',
        body: '',
      });
      const first = api.requests.at(-1)!;
      assert.deepEqual([first.headers['x-api-key'], first.query.get('api_key'), first.headers.cookie], ['k-secret', 'q-secret', 'session=c-secret']);

      // 307 repeats the method and the body, still without credentials.
      const posted = await pair.client.callTool('postItem', { id: 'away-307', body: { n: 1 } });
      assert.deepEqual(posted.structuredContent, {
        reached: 'other',
        method: 'POST',
        key: null,
        authorization: null,
        cookie: null,
        tenant: null,
        query: '',
        body: '{"n":1}',
      });

      // Once the chain has left the API, credentials stay off even when it comes back.
      const back = await pair.client.callTool('getItem', { id: 'bounce' });
      assert.deepEqual(back.structuredContent, {
        reached: 'api',
        method: 'GET',
        key: null,
        authorization: null,
        cookie: null,
        tenant: null,
        query: '',
        body: '',
      });
    } finally {
      await pair.close();
    }
  });

  test('same-origin redirects keep every credential; 303 becomes a GET without a body, 307 and 308 repeat both', async () => {
    const pair = await tools(CREDENTIALS[0][1]);
    try {
      const expected = { reached: 'api', key: 'k-secret', authorization: 'Bearer bearer-secret', tenant: 't1', query: 'api_key=q1' };
      const got = await pair.client.callTool('getItem', { id: 'same', api_key: 'q1', session: 's1', 'X-Tenant': 't1' });
      // A redirect's Location replaces the query string (it is the server's URL now).
      assert.deepEqual(got.structuredContent, { ...expected, method: 'GET', cookie: 'session=s1', query: '', body: '' });
      const seeOther = await pair.client.callTool('postItem', { id: 'see-other', body: { n: 1 } });
      assert.deepEqual(seeOther.structuredContent, { ...expected, method: 'GET', cookie: null, tenant: null, query: '', body: '' });
      assert.equal(api.requests.at(-1)!.headers['content-type'], undefined, 'no content-type without a body');
      for (const id of ['temporary', 'permanent']) {
        const r = await pair.client.callTool('postItem', { id, body: { n: 2 } });
        assert.deepEqual(r.structuredContent, { ...expected, method: 'POST', cookie: null, tenant: null, query: '', body: '{"n":2}' }, id);
        assert.equal(api.requests.at(-1)!.headers['content-type'], 'application/json');
      }
    } finally {
      await pair.close();
    }
  });

  test('a redirect loop stops after maxRedirects with a clear error; 0 follows none; only http(s) is followed', async () => {
    const pair = await tools([], {});
    try {
      const before = api.requests.length;
      const r = await pair.client.callTool('getItem', { id: 'loop' });
      assert.equal(r.isError, true);
      assert.match(
        textOf(r),
        /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/items\/loop failed: stopped after 5 redirects \(a loop\?\); the next one was to http:\/\/127\.0\.0\.1:\d+\/v1\/items\/loop$/,
      );
      assert.equal(api.requests.length - before, 6, 'the first request and five redirects');
      const ftp = await pair.client.callTool('getItem', { id: 'nowhere' });
      assert.match(textOf(ftp), /redirected \(HTTP 302\) to a ftp: address, which is not followed/);
    } finally {
      await pair.close();
    }
    const none = await tools([], { maxRedirects: 0 });
    try {
      const r = await none.client.callTool('getItem', { id: 'same' });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /redirected \(HTTP 302\) to http:\/\/127\.0\.0\.1:\d+\/v1\/items\/final, and redirects are not followed \(maxRedirects is 0\)/);
    } finally {
      await none.close();
    }
    await assert.rejects(
      addOpenApiTools(new McpServer({ name: 'x', version: '1' }), spec, { baseUrl: api.url, maxRedirects: -1 }),
      /maxRedirects is a whole number/,
    );
  });

  test('attack: a token endpoint that redirects elsewhere does not get the client secret sent on', async () => {
    for (const authMethod of ['basic', 'body'] as const) {
      const pair = await tools({ type: 'clientCredentials', tokenUrl: `${api.url}/token-away`, clientId: 'cid', clientSecret: 'cs-secret', authMethod });
      try {
        other.requests.length = 0;
        const r = await pair.client.callTool('getItem', { id: 'final' });
        assert.equal(r.isError, true);
        assert.match(textOf(r), /Could not get an access token from .*\/token-away: redirected \(HTTP 307\) to another origin, http:\/\/127\.0\.0\.1:\d+;/);
        assert.deepEqual(other.requests, [], authMethod);
      } finally {
        await pair.close();
      }
    }
  });
});
