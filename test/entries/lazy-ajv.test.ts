// A server with Standard Schema (zod) tools never loads ajv; one with a raw JSON Schema tool
// loads it on its own. Checked in a fresh process, through the package's own loader state:
// ajv is CommonJS, so once imported it is in require.cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ROOT } from './graph.js';

const SCRIPT = `
import { createRequire } from 'node:module';
import { z } from 'zod';
const { McpServer } = await import('./src/entries/server.ts');
const { createTestPair } = await import('./src/entries/testing.ts');
const ajvLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]/.test(k));
const server = new McpServer({ name: 'lazy', version: '1' });
server.tool('zod', { input: { text: z.string() } }, ({ text }) => text);
server.tool('none', () => 'ok');
const pair = await createTestPair(server);
const zod = await pair.client.callTool('zod', { text: 'hi' });
const afterZod = ajvLoaded();
server.tool('raw', { input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, ({ n }) => String(n));
const good = await pair.client.callTool('raw', { n: 3 });
const bad = await pair.client.callTool('raw', { n: 'x' });
const afterRaw = ajvLoaded();
await pair.close();
console.log(JSON.stringify({ afterZod, afterRaw, zod: zod.content[0].text, good: good.content[0].text, bad: bad.isError === true && bad.content[0].text }));
`;

test('ajv loads only when a raw JSON Schema is registered, and then validates as before', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  assert.equal(out.afterZod, false, 'ajv was loaded by a server that only uses zod and no schema');
  // The positive control: the same probe does see ajv once a raw JSON Schema needs it.
  assert.equal(out.afterRaw, true, 'ajv did not show up after a raw JSON Schema tool was called');
  assert.equal(out.zod, 'hi');
  assert.equal(out.good, '3');
  assert.match(String(out.bad), /Invalid arguments: "n" must be integer/);
});
