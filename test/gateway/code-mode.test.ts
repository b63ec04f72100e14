// The gateway in code mode (`codeMode: true`), over real HTTP, with a real policy (API keys,
// visibility, a rate limit, the call log) and two HTTP backends: clients see search_api and
// run_code only; each caller's API is made of the tools that caller may see; a program joins
// the two backends; a hidden tool is not in the API and reading it fails at its line; the rate
// limit counts each call a program makes; every inner call is in the call log; a program's
// calls are traced under the run_code request's span; search_api and run_code are in the call
// log too; and a direct call of a backend tool is
// refused (code mode replaces the tools).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { z } from 'zod';
import { connect } from '../../src/client/connect.js';
import type { McpClient } from '../../src/client/client.js';
import { otel, otelClient } from '../../src/entries/otel.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { createPolicy } from '../../src/gateway/policy/create.js';
import { serve } from '../../src/serving/node.js';
import { McpServer, type McpServerOptions } from '../../src/server/mcp-server.js';
import { telemetry } from '../extensions/otel/helpers.js';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

async function backends(t: { after(fn: () => Promise<void>): void }, extensions: McpServerOptions['extensions'] = []) {
  const crm = new McpServer({ name: 'crm', version: '1.0.0', extensions });
  crm.tool('list_customers', { description: 'Lists customers with their country', annotations: { readOnlyHint: true } }, () =>
    JSON.stringify([
      { id: 1, name: 'Ada', country: 'UK' },
      { id: 2, name: 'Li', country: 'CN' },
      { id: 3, name: 'Bo', country: 'UK' },
    ]),
  );
  crm.tool('delete_customer', { description: 'Deletes a customer', input: { id: z.number() } }, () => 'deleted');
  const billing = new McpServer({ name: 'billing', version: '1.0.0', extensions });
  billing.tool(
    'open_invoices',
    { description: 'Open invoices of a customer', input: { customer: z.number() }, output: { total: z.number() } },
    ({ customer }) => ({ structuredContent: { total: customer * 100 }, content: [{ type: 'text', text: `${customer * 100}` }] }),
  );
  const a = await serve(crm, { port: 0 });
  const b = await serve(billing, { port: 0 });
  t.after(() => a.close());
  t.after(() => b.close());
  return { crm: { url: a.url }, billing: { url: b.url } };
}

test('code mode through the gateway: per-caller APIs, a program over two backends, hidden tools, rate limits per inner call, the call log', async (t) => {
  const lines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (c: Buffer) => lines.push(...c.toString().split('\n').filter(Boolean)));
  const policy = createPolicy(
    {
      auth: { apiKeys: { 'env:ALICE': { id: 'alice', groups: ['sales'] }, 'env:BOB': { id: 'bob', groups: ['finance'] } } },
      visibility: [{ deny: ['crm_delete_customer'] }, { when: { group: 'finance' }, allow: ['billing_*'] }, { when: { group: 'sales' }, allow: ['*'] }],
      limits: { rules: [{ name: 'invoices', items: ['billing_open_invoices'], limit: 3, windowMs: 600_000 }] },
      callLog: { to: 'stdout' },
    },
    { env: { ALICE: 'alice-key', BOB: 'bob-key' }, callLogStream: logStream },
  );
  const gateway = createGateway({ servers: await backends(t), policy, codeMode: true });
  const url = (await gateway.listen({ port: 0, ...policy.front })).url;
  const clients: McpClient[] = [];
  t.after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gateway.close();
  });
  await gateway.ready;
  const as = async (key: string) => {
    const c = await connect({ url, headers: { authorization: `Bearer ${key}` } });
    clients.push(c);
    return c;
  };
  const alice = await as('alice-key');
  const bob = await as('bob-key');

  const listed = (await alice.listTools()).tools;
  assert.deepEqual(
    listed.map((x) => x.name),
    ['search_api', 'run_code'],
  );
  // Alice's API: both backends but the hidden tool; Bob's: billing only.
  const run = listed[1]!.description ?? '';
  assert.match(run, /declare namespace crm \{[\s\S]*function list_customers\(/);
  assert.match(run, /declare namespace billing \{[\s\S]*function open_invoices\(/);
  assert.doesNotMatch(run, /delete_customer/);
  const bobs = (await bob.listTools()).tools[1]!.description ?? '';
  assert.match(bobs, /function open_invoices\(/);
  assert.doesNotMatch(bobs, /crm/);
  const found = text(await alice.callTool('search_api', { query: 'remove a customer', limit: 5 }));
  assert.doesNotMatch(found, /delete_customer/);
  assert.match(text(await alice.callTool('search_api', { query: 'unpaid bills', limit: 1 })), /function open_invoices\(args: \{\n/);

  // One program joins the two backends: only the answer comes back.
  const joined = await alice.callTool('run_code', {
    code: [
      'const customers = await crm.list_customers();',
      'const uk = customers.filter((c) => c.country === "UK");',
      'const totals = [];',
      'for (const c of uk) totals.push({ name: c.name, open: (await billing.open_invoices({ customer: c.id })).total });',
      'return totals;',
    ].join('\n'),
  });
  assert.equal(joined.isError, undefined, text(joined));
  assert.match(text(joined), /^Returned:\n\[\{"name":"Ada","open":100\},\{"name":"Bo","open":300\}\]\n\[3 tool calls made\]$/);

  // A tool the policy hides is not in the API: reading it fails at its line, and nothing is called.
  const hidden = await alice.callTool('run_code', { code: 'const n = 1;\nreturn await crm.delete_customer({ id: n });' });
  assert.equal(hidden.isError, true);
  assert.match(text(hidden), /^The program failed at line 2, column \d+: TypeError: crm\.delete_customer is not a function of the API: crm has list_customers/);
  // Bob's programs have no crm at all.
  const notBobs = await bob.callTool('run_code', { code: 'return await crm.list_customers();' });
  assert.match(text(notBobs), /at line 1, column \d+: ReferenceError: .*crm/);

  // The limit (3 a window) counts each call a program makes: two were made above, so the second
  // of these is refused, as an Error the program can catch, at that call.
  const limited = await alice.callTool('run_code', {
    code: [
      'const out = [];',
      'for (const id of [4, 5]) {',
      '  try { out.push((await billing.open_invoices({ customer: id })).total); } catch (e) { out.push(e.message); }',
      '}',
      'return out;',
    ].join('\n'),
  });
  assert.match(
    text(limited),
    /^Returned:\n\[400,"billing\.open_invoices: refused by the gateway: Rate limit \\"invoices\\" reached \(3 calls per 600s\); retry in \d+s"\]/,
  );
  // Without the catch, the refusal ends the program at the line of the call.
  const uncaught = await alice.callTool('run_code', { code: 'const a = 1;\nreturn await billing.open_invoices({ customer: a });' });
  assert.match(
    text(uncaught),
    /^The program failed at line 2, column \d+: ToolError: billing\.open_invoices: refused by the gateway: Rate limit "invoices" reached/,
  );
  // Bob has his own count.
  assert.match(text(await bob.callTool('run_code', { code: 'return (await billing.open_invoices({ customer: 9 })).total;' })), /^Returned:\n900\n/);

  // Code mode replaces the tools: a direct call of a backend tool is unknown.
  await assert.rejects(alice.callTool('crm_list_customers', {}), /Unknown tool: crm_list_customers/);

  await gateway.close();
  const log = lines.map((l) => JSON.parse(l) as { caller: string; item: string; outcome: string; method: string });
  assert.deepEqual(
    log.map((l) => `${l.caller} ${l.item} ${l.outcome}`),
    // search_api and run_code are calls too: each run_code's line comes after its program's calls.
    [
      'alice search_api ok',
      'alice search_api ok',
      'alice crm_list_customers ok',
      'alice billing_open_invoices ok',
      'alice billing_open_invoices ok',
      'alice run_code ok',
      'alice run_code tool_error',
      'bob run_code tool_error',
      'alice billing_open_invoices ok',
      'alice billing_open_invoices refused',
      'alice run_code ok',
      'alice billing_open_invoices refused',
      'alice run_code tool_error',
      'bob billing_open_invoices ok',
      'bob run_code ok',
    ],
  );
  assert.ok(log.every((l) => l.method === 'tools/call'));
});

test("code mode through the gateway is traced: a program's calls are client spans under the run_code request's span", async (t) => {
  const tel = telemetry();
  const gateway = createGateway({
    servers: await backends(t, [otel(tel.options)]),
    codeMode: true,
    server: { extensions: [otel(tel.options)] },
    clientMiddleware: () => [otelClient(tel.options)],
  });
  const url = (await gateway.listen({ port: 0 })).url;
  t.after(() => gateway.close());
  await gateway.ready;
  const client = await connect(url);
  t.after(() => client.close());
  const r = await client.callTool('run_code', { code: 'return (await billing.open_invoices({ customer: 2 })).total;' });
  assert.match(text(r), /^Returned:\n200\n/);
  const front = tel.span('tools/call run_code', SpanKind.SERVER);
  const out = tel.span('tools/call open_invoices', SpanKind.CLIENT);
  const backend = tel.span('tools/call open_invoices', SpanKind.SERVER);
  assert.equal(out.parentSpanContext?.spanId, front.spanContext().spanId);
  assert.equal(backend.parentSpanContext?.spanId, out.spanContext().spanId);
  assert.equal(backend.spanContext().traceId, front.spanContext().traceId);
});

test('gateway.codeMode in the config file: true, or the sandbox limits; anything else is an error naming the key', async () => {
  const { gatewayConfigOf } = await import('../../src/gateway/config.js');
  const o = { cwd: process.cwd(), env: {} };
  const servers = { s: { url: 'http://127.0.0.1:1/mcp' } };
  assert.equal(gatewayConfigOf({ mcpServers: servers, gateway: { codeMode: true } }, o).codeMode, true);
  assert.deepEqual(gatewayConfigOf({ mcpServers: servers, gateway: { codeMode: { limits: { cpuMs: 500 } } } }, o).codeMode, { limits: { cpuMs: 500 } });
  assert.equal(gatewayConfigOf({ mcpServers: servers }, o).codeMode, undefined);
  assert.throws(() => gatewayConfigOf({ mcpServers: servers, gateway: { codeMode: 'yes' } }, o), /"gateway.codeMode" must be true, false, or/);
  assert.throws(
    () => gatewayConfigOf({ mcpServers: servers, gateway: { codeMode: { limits: { cpu: 5 } } } }, o),
    /"gateway.codeMode.limits.cpu" is not a limit/,
  );
  assert.throws(() => gatewayConfigOf({ mcpServers: servers, gateway: { codeMode: { limits: { cpuMs: -1 } } } }, o), /must be a positive number/);
});
