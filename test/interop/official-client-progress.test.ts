// Interop: the OFFICIAL v1 client handles a notification a microtask after the read that carried
// it, but a response at once, forgetting the request's progress handler. A progress notification
// read together with the result was lost (nearly every call, when a tool reported progress and
// returned at once). mcpkit's stdio and HTTP+SSE transports hold such a result back a moment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { makeServer, start } from '../serving/http/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const N = 5;

/** Calls each tool a few times; every call must see all N progress notifications, in order. */
async function drive(transport: Transport): Promise<void> {
  const client = new Client({ name: 'official-progress-client', version: '1.0.0' }, { capabilities: {} });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  await client.connect(transport);
  try {
    for (const tool of ['steps', 'burst']) {
      for (let k = 0; k < 5; k++) {
        const seen: number[] = [];
        await client.callTool({ name: tool, arguments: { n: N } }, undefined, { onprogress: (p) => seen.push(p.progress) });
        assert.deepEqual(seen, [1, 2, 3, 4, 5], `${tool}, call ${k + 1}`);
      }
    }
    assert.deepEqual(errors, [], 'no "unknown progress token" errors');
  } finally {
    await client.close();
  }
}

test('stdio: a real child process; progress right before the result all reaches onprogress', async () => {
  await drive(
    new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/stdio/progress-server.ts'], cwd: ROOT, stderr: 'pipe' }),
  );
});

test('HTTP+SSE (2024-11-05): progress right before the result all reaches onprogress', async () => {
  const f = makeServer();
  f.mcp.tool('steps', { input: { n: z.number().int() } }, async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) await ctx.progress(i, n);
    return `${n} steps`;
  });
  f.mcp.tool('burst', { input: { n: z.number().int() } }, ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) void ctx.progress(i, n);
    return `${n} at once`;
  });
  // As in the stdio fixture: a gap a loaded machine cannot outlast.
  const s = await start({ legacySse: { progressGapMs: 100 } }, f);
  try {
    await drive(new SSEClientTransport(new URL(`${s.base}/sse`)));
  } finally {
    await s.running.close();
  }
});
