// The fetch handler of mcpkit/http in a bundle built for browsers and Workers, with nothing
// left external: esbuild refuses Node built-ins on that platform, and the metafile shows every
// module that went in. The bundle is then loaded and asked real questions with a Request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ROOT } from './graph.js';

const ENTRY = `
import { z } from 'zod';
import { McpServer } from ${JSON.stringify(join(ROOT, 'src/entries/server.ts'))};
import { toFetchHandler } from ${JSON.stringify(join(ROOT, 'src/entries/http.ts'))};

const server = new McpServer({ name: 'bundled', version: '1.0.0' });
server.tool('echo', { description: 'Echoes', input: { text: z.string() } }, ({ text }) => 'echo: ' + text);
export const handler = toFetchHandler(server);
`;

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };

function post(handler: (r: Request) => Promise<Response>, body: unknown, headers: Record<string, string>): Promise<Response> {
  return handler(
    new Request('http://worker.example/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

test('toFetchHandler bundles for the browser platform with no Node built-in, and answers in the bundle', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bundle-'));
  try {
    const result = await build({
      stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'worker-entry.ts', loader: 'ts' },
      bundle: true,
      write: false,
      outdir: dir,
      outExtension: { '.js': '.mjs' }, // the temporary directory has no package.json saying "module"
      format: 'esm',
      splitting: true, // so that what loads lazily (ajv, the OAuth client) shows up as its own chunk
      minify: true,
      platform: 'browser',
      conditions: ['worker', 'browser'],
      external: [],
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const nodeInputs = inputs.filter((i) => i.startsWith('node:') || /(^|\/)src\/(serving\/node|serving\/stdio|transports\/stdio|cli)\b/.test(i));
    assert.deepEqual(nodeInputs, [], 'Node-only modules went into the bundle');
    const outputs = Object.entries(result.metafile.outputs);
    const outside = outputs.flatMap(([, o]) => o.imports.filter((i) => i.external === true || i.path.startsWith('node:')).map((i) => i.path));
    assert.deepEqual(outside, [], 'the bundle imports something from outside itself');
    for (const f of result.outputFiles) assert.doesNotMatch(f.text, /from\s*["']node:|require\(["']node:/);

    // The entry chunk is what a worker loads; ajv and the OAuth client stay in lazily loaded chunks.
    const [mainPath, main] = outputs.find(([, o]) => o.entryPoint === 'worker-entry.ts')!;
    const mainInputs = Object.entries(main.inputs);
    assert.ok(!mainInputs.some(([i]) => /node_modules\/(ajv|ajv-formats)\//.test(i)), 'ajv is in the entry chunk');
    assert.ok(!mainInputs.some(([i]) => i.includes('src/client/auth/')), 'the OAuth client is in the entry chunk');
    const ours = mainInputs.filter(([i]) => !i.includes('node_modules')).reduce((n, [, v]) => n + v.bytesInOutput, 0);
    const lazy = outputs.filter(([p]) => p !== mainPath).reduce((n, [, o]) => n + o.bytes, 0);
    t.diagnostic(
      `bundle (minified): entry chunk ${(main.bytes / 1024).toFixed(1)} KiB, of which mcpkit ${(ours / 1024).toFixed(1)} KiB and the rest zod; lazily loaded chunks (ajv, OAuth client) ${(lazy / 1024).toFixed(1)} KiB`,
    );

    for (const f of result.outputFiles) writeFileSync(f.path, f.text);
    const file = join(dir, 'stdin.mjs');
    const { handler } = (await import(pathToFileURL(file).href)) as { handler: (r: Request) => Promise<Response> };

    // A 2026-07-28 tools/call: stateless, the envelope in _meta, the routing headers mirrored.
    const call = await post(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: META } },
      { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    assert.equal(call.status, 200);
    const answer = (await call.json()) as { id: number; result: { content: Array<{ type: string; text: string }>; isError?: boolean } };
    assert.equal(answer.id, 1);
    assert.deepEqual(answer.result.content, [{ type: 'text', text: 'echo: hi' }]);
    assert.notEqual(answer.result.isError, true);

    // And the handshake era's initialize, which opens a session.
    const init = await post(
      handler,
      { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      {},
    );
    assert.equal(init.status, 200);
    const text = await init.text();
    const body = JSON.parse(init.headers.get('content-type')?.includes('text/event-stream') ? /^data: (.*)$/m.exec(text)![1] : text) as {
      result: { protocolVersion: string; serverInfo: { name: string } };
    };
    assert.equal(body.result.protocolVersion, '2025-11-25');
    assert.equal(body.result.serverInfo.name, 'bundled');
    assert.ok(init.headers.get('mcp-session-id'), 'a session id for the handshake era');
    await (handler as { close?: () => Promise<void> }).close?.();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
