// mcpkit gateway --code-mode as a real process, with a policy in its config, a stdio backend and
// an HTTP one, driven by the official MCP SDK's client (v1) over Streamable HTTP: the client is
// offered search_api and run_code only; a program calls both backends and returns just the
// answer; a program reaching a tool the policy hides fails at that line; the rate limit counts
// each call a program makes; every inner call is in the call log when the process exits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { serve } from '../../src/serving/node.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { cleanEnv, ROOT } from './helpers.js';
import { gatewayBackend, tempDir, waitFor, within } from '../support/index.js';

const KEY = 'cli-code-mode-key-31';
const text = (r: object) => (((r as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text ?? '') as string;

test('mcpkit gateway --code-mode: an official SDK client runs programs over two backends, through the policy', async (t) => {
  const inventory = new McpServer({ name: 'inventory', version: '1.0.0' });
  inventory.tool(
    'stock',
    { description: 'Units in stock of a product', input: { sku: z.string() }, output: { sku: z.string(), units: z.number() } },
    ({ sku }) => ({
      structuredContent: { sku, units: sku.length * 7 },
      content: [{ type: 'text', text: `${sku}: ${sku.length * 7}` }],
    }),
  );
  inventory.tool('purge', { description: 'Deletes every product' }, () => 'purged');
  const http = await serve(inventory, { port: 0 });
  t.after(() => http.close());

  const dir = tempDir('gateway-code-mode-cli');
  const file = join(dir, 'gateway.json');
  const log = join(dir, 'calls.jsonl');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { one: gatewayBackend('cli-code-mode'), inv: { url: http.url } },
      policy: {
        auth: { apiKeys: { 'env:GW_KEY': { id: 'alice' } } },
        visibility: [{ deny: ['inv_purge', 'one_wait'] }],
        limits: { rules: [{ name: 'echo', items: ['one_echo'], limit: 2, windowMs: 600_000 }] },
        callLog: { to: log },
      },
    }),
  );
  const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'gateway', '--config', file, '--port', '0', '--no-watch', '--code-mode'], {
    cwd: ROOT,
    env: cleanEnv({ GW_KEY: KEY }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (err += c));
  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 'the URL the gateway prints');

  const client = new Client({ name: 'official-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
  t.after(() => client.close());

  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((x) => x.name),
    ['search_api', 'run_code'],
  );
  const found = text(await client.callTool({ name: 'search_api', arguments: { query: 'how many units are in stock' } }));
  assert.match(found, /declare namespace inv \{[\s\S]*function stock\(args: \{/);
  assert.doesNotMatch(found + (tools[1]?.description ?? ''), /purge/);

  // Two backends, one program; only its answer comes back.
  const both = await client.callTool({
    name: 'run_code',
    arguments: { code: 'const said = await one.echo({ text: "hi" });\nconst { units } = await inv.stock({ sku: "A-100" });\nreturn { said, units };' },
  });
  assert.equal(both.isError, undefined, text(both));
  assert.equal(text(both), 'Returned:\n{"said":"echo:hi","units":35}\n[2 tool calls made]');

  // The hidden tool is not in the API: the program fails at the line that reaches for it.
  const hidden = await client.callTool({ name: 'run_code', arguments: { code: 'const ok = await inv.stock({ sku: "B" });\nawait inv.purge();\nreturn ok;' } });
  assert.equal(hidden.isError, true);
  assert.match(text(hidden), /^The program failed at line 2, column \d+: TypeError: inv\.purge is not a function of the API: inv has stock\n/);

  // The rate limit (2 echoes a window) counts each call: one was made above.
  const limited = await client.callTool({
    name: 'run_code',
    arguments: {
      code: 'const out = [];\nfor (const t of ["a", "b"]) {\n  try { out.push(await one.echo({ text: t })); } catch (e) { out.push(e.message); }\n}\nreturn out;',
    },
  });
  assert.match(text(limited), /^Returned:\n\["echo:a","one\.echo: refused by the gateway: Rate limit \\"echo\\" reached/);

  await client.close();
  child.kill('SIGTERM');
  assert.equal(await within(exited, 'the gateway to exit'), 0, err);
  const lines = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { caller: string; item: string; outcome: string });
  assert.deepEqual(
    lines.map((l) => `${l.caller} ${l.item} ${l.outcome}`),
    // search_api and each run_code are logged like any call, a program after the calls it made.
    [
      'alice search_api ok',
      'alice one_echo ok',
      'alice inv_stock ok',
      'alice run_code ok',
      'alice inv_stock ok',
      'alice run_code tool_error',
      'alice one_echo ok',
      'alice one_echo refused',
      'alice run_code ok',
    ],
  );
});
