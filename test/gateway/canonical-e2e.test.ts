// The attack on resource rules: one resource spelt another way. A deny rule on `mcpgw://hr/*`
// must hide hr's files however the client spells `hr` (`h%72`, `%68%72`), and a deny on
// `mcpgw://docs/file:///secret*` must hold against `./`, `////`, `%73ecret` and `..` spellings that
// a file-system backend resolves to the same file. Over real HTTP, for clients of both eras,
// with limits and the call log checked on the same canonical URI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { PassThrough } from 'node:stream';
import { connect } from '../../src/client/connect.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { serve } from '../../src/serving/node.js';
import { Server } from '../../src/server/server.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { createPolicy } from '../../src/gateway/policy/create.js';
import type { CallLogLine } from '../../src/gateway/policy/call-log.js';

const FILES: Record<string, string> = { '/secret.txt': 'TOP SECRET', '/public.txt': 'hello' };

/**
 * A backend that reads URIs as a file server does: the path percent-decoded, `.`, `..` and
 * repeated slashes resolved. It serves what any spelling of a file's path names.
 */
async function fileBackend() {
  const server = new Server({ name: 'files', version: '1.0.0', capabilities: { resources: {}, tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'stat', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'stat: 2 files' }] }));
  server.setRequestHandler('resources/list', () => ({
    resources: Object.keys(FILES).map((p) => ({ uri: `file://${p}`, name: p.slice(1), mimeType: 'text/plain' })),
  }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [{ uriTemplate: 'file:///{+path}', name: 'file' }] }));
  server.setRequestHandler('resources/read', (params) => {
    const uri = String(params?.uri);
    const m = /^file:\/\/([^/]*)(\/.*)$/i.exec(uri);
    const path = m && posix.normalize(decodeURIComponent(m[2])).replace(/^\/+/, '/');
    const text = path === null ? undefined : FILES[path];
    if (text === undefined) throw new McpError(-32002, `Resource not found: ${uri}`);
    return { contents: [{ uri, mimeType: 'text/plain', text }] };
  });
  return serve(server, { port: 0 });
}

const HIDDEN = [
  // The backend's name spelt otherwise: routed to hr all the same.
  'mcpgw://h%72/file:///secret.txt',
  'mcpgw://%68%72/file:///secret.txt',
  'mcpgw://h%72/file:///public.txt',
  'MCPGW://hr/file:///public.txt',
  // The file's path spelt otherwise: the same file to the backend.
  'mcpgw://docs/file:///./secret.txt',
  'mcpgw://docs/file:////secret.txt',
  'mcpgw://docs/file:///%73ecret.txt',
  'mcpgw://docs/file:///public/../secret.txt',
  'mcpgw://docs/file:///%2e/secret.txt',
  'mcpgw://docs/FILE:///secret.txt',
  'mcpgw://d%6Fcs/file:///secret.txt',
];

for (const era of ['handshake', 'modern'] as const) {
  test(`resource rules hold against every spelling of a hidden URI (${era} client)`, async (t) => {
    const backend = await fileBackend();
    const log = new PassThrough();
    const lines: CallLogLine[] = [];
    log.on('data', (chunk: Buffer) => {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as CallLogLine);
    });
    const policy = createPolicy(
      {
        visibility: [{ deny: ['mcpgw://hr/*', 'hr_*'] }, { deny: ['mcpgw://docs/file:///secret*'] }],
        limits: { rules: [{ name: 'public', items: ['mcpgw://docs/file:///public.txt'], limit: 2, windowMs: 60_000 }] },
        callLog: { to: 'stderr' },
      },
      { callLogStream: log },
    );
    const gateway = createGateway({ servers: { hr: { url: backend.url }, docs: { url: backend.url } }, policy });
    const running = await gateway.listen({ port: 0 });
    t.after(async () => {
      await gateway.close();
      await backend.close();
    });
    await gateway.ready;
    const client = await connect(running.url, { era });
    t.after(() => client.close());

    // Listed: docs' public file and template only.
    const listed = (await client.listResources()).resources.map((r) => r.uri).sort();
    assert.deepEqual(listed, ['mcpgw://docs/file:///public.txt']);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    assert.deepEqual(templates, ['mcpgw://docs/file:///{+path}']);

    const leaked: string[] = [];
    for (const uri of HIDDEN) {
      const outcome = await client.readResource(uri).then(
        (r) => `${uri} read: ${JSON.stringify(r.contents)}`,
        (e: McpError) => e,
      );
      if (!(outcome instanceof McpError)) leaked.push(String(outcome));
      else assert.match(outcome.message, /Resource not found/, uri);
    }
    assert.deepEqual(leaked, [], 'every spelling of a hidden resource is refused');

    // Tool names are compared exactly, by routing and rules alike: no other spelling reaches hr_stat.
    assert.deepEqual(
      (await client.listTools()).tools.map((x) => x.name),
      ['docs_stat'],
    );
    for (const name of ['hr_stat', 'HR_stat', 'hr_stat\u200b', '\uff48r_stat', 'hr\u200c_stat']) {
      await assert.rejects(client.callTool(name, {}), (e: McpError) => e.code === -32602 && /Unknown tool/.test(e.message), JSON.stringify(name));
    }

    // The limit counts the canonical URI: two spellings of one file are two calls on one counter.
    const first = await client.readResource('mcpgw://docs/file:///public.txt');
    assert.equal((first.contents[0] as { text?: string }).text, 'hello');
    const second = await client.readResource('mcpgw://d%6Fcs/file:///./public.txt');
    assert.equal(second.contents[0].uri, 'mcpgw://docs/file:///public.txt', 'read back under its canonical URI');
    await assert.rejects(client.readResource('mcpgw://docs/file:///%70ublic.txt'), (e: McpError) => e.code === -32029 && /Rate limit "public"/.test(e.message));

    // The call log names what the rules judged: the canonical URI, whatever was sent.
    await gateway.close();
    assert.deepEqual(
      lines.map((l) => `${l.item} ${l.original} ${l.outcome}`),
      ['ok', 'ok', 'refused'].map((o) => `mcpgw://docs/file:///public.txt file:///public.txt ${o}`),
    );
  });
}
