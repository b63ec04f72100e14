// Small traps a new user met (issue 28, item 9), each through the real CLI (in-process run()
// with captured streams) against real servers: what is printed when Redis is away, and the
// other one-line messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { join } from 'node:path';
import { CLI, CLI_LINE, mcpkit, ROOT, startListening } from './helpers.js';
import { tempDir, waitFor, patient } from '../support/index.js';

/** A loopback port nobody listens on (bound, then let go). */
function refusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const REDIS_DOWN = 'Redis at redis://127.0.0.1:6379 is unreachable; this instance cannot serve until it is back (retry shortly)';

test('a server refusing with 503 while Redis is away: one line, "HTTP 503" once, the reason as text (no raw JSON)', async (t) => {
  const mcp = new McpServer({ name: 'scaled', version: '1.0.0' });
  mcp.tool('hi', () => 'hi');
  // What `serve --redis` answers while Redis is away: the readiness gate refuses MCP requests.
  const running = await serve(mcp, { port: 0, health: { unavailable: () => REDIS_DOWN } });
  t.after(() => running.close());
  for (const era of ['auto', 'handshake', 'modern']) {
    const r = await mcpkit(['tools', running.url, '--era', era]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.includes(REDIS_DOWN), r.stderr);
    assert.equal(r.stderr.match(/503/g)?.length ?? 0, era === 'modern' ? 0 : 1, r.stderr);
    assert.equal(r.stderr.match(/Service Unavailable/g)?.length ?? 0, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /\{"jsonrpc"/);
  }
});

test('serve --redis with no Redis there: one line that says it cannot start and why, nothing about serving later', async () => {
  const url = `redis://127.0.0.1:${await refusedPort()}`;
  const r = await mcpkit(['serve', '--redis', url, '--port', '0']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `mcpkit: serve --redis: cannot reach Redis at ${url}: connect ECONNREFUSED 127.0.0.1:${new URL(url).port}\n`);
  assert.equal(r.stdout, '');
});

test('mcpkit tools of an OpenAPI server: the summary once (the title), not again as the description begins', async () => {
  const spec = join(ROOT, 'test/fixtures/openapi/petstore-3.0.json');
  const r = await mcpkit(['tools', `${CLI_LINE} serve --stdio --openapi "${spec}"`], { timeoutMs: patient(60_000) });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^updatePet {2}Update an existing pet\n {2}PUT \/pet\n/m);
  assert.equal(r.stdout.match(/Update an existing pet/g)?.length, 1, r.stdout);
  // A description that says more than the summary is shown whole.
  assert.match(r.stdout, /^findPetsByStatus {2}Finds Pets by status\n {2}Multiple status values can be provided/m);
});

test('an option misspelt: the one meant is named (serve --prot, chat --modle, call --jsn); a word far from any is not guessed at', async () => {
  for (const [argv, meant] of [
    [['serve', '--prot', '3000'], '--port'],
    [['chat', '--modle', 'llama3.2'], '--model'],
    [['tools', 'http://127.0.0.1:1/mcp', '--jsn'], '--json'],
    [['gateway', '--confg', 'x.json'], '--config'],
    [['serve', '--openapi-base-url', 'http://x'], '--base-url'],
  ] as const) {
    const r = await mcpkit([...argv]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`Unknown option '${argv.find((a) => a.startsWith('--'))}' \\(did you mean ${meant}\\?\\)\\n$`));
  }
  const far = await mcpkit(['serve', '--zzzzzz']);
  assert.equal(far.code, 2);
  assert.doesNotMatch(far.stderr, /did you mean/);
});

test('a config that is not valid JSON: FILE:LINE:COLUMN and the reason, for gateway and chat (not a character position)', async () => {
  const file = join(tempDir('bad-config'), 'mcp.json');
  writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "url": "http://127.0.0.1:1/mcp" }\n    "b": { "url": "http://127.0.0.1:1/mcp" }\n  }\n}\n');
  for (const argv of [
    ['gateway', '--config', file, '--port', '0'],
    ['chat', '--model', 'x', '--config', file, '-s', 'a', '-p', 'hi'],
  ]) {
    const r = await mcpkit(argv);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `mcpkit: --config ${file}:4:5: Expected ',' or '}' after property value\n`);
  }
  writeFileSync(file, '{\n  "mcpServers": {\n');
  const cut = await mcpkit(['gateway', '--config', file, '--port', '0']);
  assert.match(cut.stderr, /^mcpkit: --config .*mcp\.json:3:1: Expected property name or '\}'\n$/);
  writeFileSync(file, '');
  const empty = await mcpkit(['gateway', '--config', file, '--port', '0']);
  assert.match(empty.stderr, /^mcpkit: --config .*mcp\.json:1:1: the JSON ends too soon/);
});

test('counts say "1 tool", not "1 tools": serve --openapi, and a gateway backend', async (t) => {
  const spec = join(ROOT, 'test/fixtures/openapi/petstore-3.0.json');
  const served = await startListening(['serve', '--openapi', spec, '--openapi-include', 'getPetById', '--base-url', 'http://127.0.0.1:1', '--port', '0']);
  await served.stop();
  assert.match(served.stderr(), /^mcpkit: Swagger Petstore \(openapi 3\.0\.\d\): 1 tool$/m);
  const config = join(tempDir('one-tool'), 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { one: { command: process.execPath, args: [...CLI, 'serve', '--stdio', join(ROOT, 'test/fixtures/cli/module-server.ts')] } },
    }),
  );
  const gateway = await startListening(['gateway', '--config', config, '--port', '0']);
  t.after(() => gateway.stop());
  await waitFor(() => (/one: connected/.test(gateway.stderr()) ? true : undefined), { what: 'the backend to connect', timeoutMs: patient(30_000) });
  assert.match(gateway.stderr(), /one: connected \((modern|handshake), 1 tool\)/);
});
