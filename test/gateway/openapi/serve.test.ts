// `mcpkit serve --openapi` as a real process: an MCP client over HTTP lists and calls the tools
// of a YAML spec, with filters and a header from the environment; mistakes are clear errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { connect } from '../../../src/client/connect.js';
import { cleanEnv, mcpkit, mcpkitProcess, startListeningProcess } from '../../cli/helpers.js';
import { tempDir } from '../../support/index.js';
import { apiServer, FIXTURES, fixture, json, textOf, type ApiServer } from './helpers.js';

let api: ApiServer;
/** Another origin (its own port), which the API's answer redirects to: it must get nothing. */
let elsewhere: ApiServer;
before(async () => {
  elsewhere = await apiServer((req, res) => json(res, 200, { key: req.headers['x-api-key'] ?? null }));
  api = await apiServer((req, res) => {
    if (req.path === '/v2/pet/302') {
      res.writeHead(302, { location: `${elsewhere.url}/collect` });
      return res.end();
    }
    json(res, 200, { id: Number(req.path.split('/').pop()), name: 'doggie', key: req.headers['x-api-key'] ?? null });
  });
});
after(async () => {
  await api.close();
  await elsewhere.close();
});

describe('mcpkit serve --openapi', () => {
  test('serves a YAML spec over HTTP; a client lists and calls its tools', async () => {
    const dir = tempDir('serve-openapi');
    const spec = join(dir, 'petstore.yaml');
    writeFileSync(spec, stringify(fixture('petstore-3.0.json')));
    const s = await startListeningProcess(
      [
        'serve',
        '--openapi',
        spec,
        '--base-url',
        `${api.url}/v2`,
        '--port',
        '0',
        '--openapi-method',
        'GET',
        '--openapi-tag',
        'pet',
        '--openapi-header',
        'X-API-Key: $PET_KEY',
      ],
      { env: cleanEnv({ PET_KEY: 'secret-1' }) },
    );
    try {
      assert.match(s.stderr(), /Swagger Petstore \(openapi 3\.0\.0\): 3 tools/);
      assert.match(s.stdout(), /swagger-petstore listening on/);
      const client = await connect(s.url);
      try {
        const tools = await client.listAllTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['findPetsByStatus', 'findPetsByTags', 'getPetById']);
        const r = await client.callTool('getPetById', { petId: 42 });
        assert.deepEqual(r.structuredContent, { id: 42, name: 'doggie', key: 'secret-1' });
        assert.equal(api.requests.at(-1)!.path, '/v2/pet/42');
        // The attack: the API's answer redirects to another origin; the key is not sent there.
        const moved = await client.callTool('getPetById', { petId: 302 });
        assert.equal(moved.isError, true);
        assert.match(textOf(moved), new RegExp(`redirected \\(HTTP 302\\) to another origin, ${elsewhere.url.replace(/[.]/g, '\\.')};`));
        assert.deepEqual(elsewhere.requests, []);
      } finally {
        await client.close();
      }
    } finally {
      await s.stop();
    }
  });

  test('forced two-tool mode', async () => {
    const s = await startListeningProcess([
      'serve',
      '--openapi',
      join(FIXTURES, 'petstore-3.0.json'),
      '--base-url',
      `${api.url}/v2`,
      '--port',
      '0',
      '--openapi-mode',
      'endpoints',
    ]);
    try {
      const client = await connect(s.url);
      try {
        assert.deepEqual((await client.listAllTools()).map((t) => t.name).sort(), ['call_endpoint', 'list_endpoints']);
        const r = await client.callTool('call_endpoint', { operation: 'getPetById', arguments: { petId: 3 } });
        assert.equal((r.structuredContent as { id: number }).id, 3, textOf(r));
      } finally {
        await client.close();
      }
    } finally {
      await s.stop();
    }
  });

  test('mistakes are clear errors', async () => {
    const missing = await mcpkitProcess(['serve', '--openapi', 'no/such/spec.json', '--port', '0']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /serve --openapi: Could not read the OpenAPI spec .*no\/such\/spec\.json: no such file/);
    const stray = await mcpkit(['serve', '--openapi-tag', 'pet']);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /--openapi-tag needs --openapi SPEC/);
    const mode = await mcpkit(['serve', '--openapi', join(FIXTURES, 'petstore-3.0.json'), '--openapi-mode', 'some']);
    assert.equal(mode.code, 2);
    assert.match(mode.stderr, /--openapi-mode is tools, endpoints or auto/);
    const cross = await mcpkit(['serve', '--openapi', join(FIXTURES, 'petstore-3.0.json'), '--openapi-cross-origin-redirects', 'follow']);
    assert.equal(cross.code, 2);
    assert.match(cross.stderr, /--openapi-cross-origin-redirects is refuse or anonymous \(got "follow"\)/);
    const env = await mcpkit(['serve', '--openapi', join(FIXTURES, 'petstore-3.0.json'), '--openapi-bearer-env', 'NOPE_TOKEN', '--port', '0']);
    assert.equal(env.code, 1);
    assert.match(env.stderr, /the environment variable NOPE_TOKEN is not set/);
  });
});

describe('mcpkit serve --openapi --stdio', () => {
  test('serves over stdio and prints a host config that finds the spec from anywhere', async () => {
    const { connectAny } = await import('../../../src/client/connect-stdio.js');
    const { CLI, ROOT } = await import('../../cli/helpers.js');
    const client = await connectAny({
      command: process.execPath,
      args: [
        ...CLI,
        'serve',
        '--stdio',
        '--openapi',
        'test/fixtures/openapi/petstore-3.0.json',
        '--base-url',
        `${api.url}/v2`,
        '--openapi-include',
        'getPetById',
      ],
      cwd: ROOT,
      stderr: 'pipe',
    });
    try {
      const r = await client.callTool('getPetById', { petId: 5 });
      assert.equal((r.structuredContent as { id: number }).id, 5);
    } finally {
      await client.close();
    }
    const printed = await mcpkitProcess(['serve', '--stdio', '--openapi', 'test/fixtures/openapi/petstore-3.0.json', '--base-url', api.url]);
    assert.match(printed.stderr, new RegExp(`"serve","--stdio","--openapi","${join(FIXTURES, 'petstore-3.0.json').replace(/[/.]/g, '\\$&')}","--base-url"`));
  });
});
