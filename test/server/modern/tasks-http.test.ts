// The tasks extension over real HTTP (serve() + fetch): task creation, polling, input and
// cancellation on stateless POSTs, the Mcp-Name = taskId routing header (SEP-2663/SEP-2243),
// and tasks bound to the API key that created them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import { serve, type RunningServer } from '../../../src/serving/node.js';
import { M, V } from './helpers.js';
import { EXT, UUID } from './tasks-helpers.js';
import { tasks } from '../../../src/extensions/tasks/extension.js';
import { sleep } from '../../support/index.js';

const CAPS = { extensions: { [EXT]: {} }, elicitation: {} };

async function start(withAuth = false): Promise<{ running: RunningServer; url: string; close: () => Promise<void> }> {
  const mcp = new McpServer({ name: 'tasks-http', version: '1.0.0', onerror: () => {}, extensions: [tasks({ pollIntervalMs: 50 })] });
  mcp.tool('compute', { input: { ms: z.number().int() }, task: 'optional' }, async ({ ms }, ctx) => {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
    return `computed in ${ms} ms`;
  });
  mcp.tool('confirm', { task: 'required' }, async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `confirmed: ${String(r.content?.ok)}`;
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1', ...(withAuth ? { authenticate: apiKeyGuard({ keys: ['key-a', 'key-b'] }) } : {}) });
  return { running, url: running.url, close: () => running.close() };
}

let nextId = 1;

/** One 2026-07-28 POST with the routing headers a conforming client sends (overridable). */
async function post(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | undefined> = {},
): Promise<{ status: number; body: Record<string, any> }> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'mcp-protocol-version': V,
    'mcp-method': method,
  };
  const name = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
  if (typeof name === 'string') h['mcp-name'] = name;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete h[k];
    else h[k] = v;
  }
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: CAPS } } };
  const res = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body) });
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function poll(
  url: string,
  taskId: string,
  want: (t: Record<string, any>) => boolean,
  headers: Record<string, string> = {},
): Promise<Record<string, any>> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const r = await post(url, 'tasks/get', { taskId }, headers);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (want(r.body.result)) return r.body.result;
    if (Date.now() > deadline) throw new Error(`task never matched: ${JSON.stringify(r.body)}`);
    await sleep(r.body.result.pollIntervalMs);
  }
}

test('over HTTP: a task is created, polled with Mcp-Name = taskId, and inlines its result', async () => {
  const fx = await start();
  try {
    const created = await post(fx.url, 'tools/call', { name: 'compute', arguments: { ms: 30 } });
    assert.equal(created.status, 200);
    const c = created.body.result;
    assert.equal(c.resultType, 'task');
    assert.match(c.taskId, UUID);
    assert.equal(c.pollIntervalMs, 50);
    assert.equal(c.ttlMs, 3_600_000);
    const done = await poll(fx.url, c.taskId, (t) => t.status === 'completed');
    assert.equal(done.resultType, 'complete');
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'computed in 30 ms' }] });
  } finally {
    await fx.close();
  }
});

test('over HTTP: tasks/* with a missing or different Mcp-Name is 400 with -32020, and nothing happens', async () => {
  const fx = await start();
  try {
    const id = (await post(fx.url, 'tools/call', { name: 'compute', arguments: { ms: 5000 } })).body.result.taskId as string;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = method === 'tasks/update' ? { taskId: id, inputResponses: {} } : { taskId: id };
      for (const name of [undefined, 'some-other-task', `${id}x`]) {
        const r = await post(fx.url, method, params, { 'mcp-name': name });
        assert.equal(r.status, 400, `${method} with Mcp-Name ${String(name)}`);
        assert.equal(r.body.error.code, -32020);
      }
    }
    // A header value with surrounding whitespace still matches (RFC 9110 field parsing).
    assert.equal((await post(fx.url, 'tasks/get', { taskId: id }, { 'mcp-name': ` ${id} ` })).body.result.status, 'working');
    // The refused cancels did not cancel it; a proper one does.
    const ack = await post(fx.url, 'tasks/cancel', { taskId: id });
    assert.deepEqual(ack.body.result, { resultType: 'complete', _meta: { [M.serverInfo]: { name: 'tasks-http', version: '1.0.0' } } });
    assert.equal((await poll(fx.url, id, () => true)).status, 'cancelled');
    // Unknown task: -32602 (HTTP 400).
    const unknown = await post(fx.url, 'tasks/get', { taskId: 'tasks-http-unknown' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, -32602);
  } finally {
    await fx.close();
  }
});

test('over HTTP: input through tasks/update, and tasks bound to the API key that made them', async () => {
  const fx = await start(true);
  const A = { authorization: 'Bearer key-a' };
  const B = { authorization: 'Bearer key-b' };
  try {
    const id = (await post(fx.url, 'tools/call', { name: 'confirm', arguments: {} }, A)).body.result.taskId as string;
    const parked = await poll(fx.url, id, (t) => t.status === 'input_required', A);
    assert.deepEqual(Object.keys(parked.inputRequests), ['elicit-1']);
    const foreign = await post(fx.url, 'tasks/update', { taskId: id, inputResponses: { 'elicit-1': { action: 'accept', content: { ok: false } } } }, B);
    assert.equal(foreign.body.error.code, -32602);
    assert.equal((await post(fx.url, 'tasks/get', { taskId: id }, B)).body.error.code, -32602);
    const ok = await post(fx.url, 'tasks/update', { taskId: id, inputResponses: { 'elicit-1': { action: 'accept', content: { ok: true } } } }, A);
    assert.equal(ok.body.result.resultType, 'complete');
    const done = await poll(fx.url, id, (t) => t.status === 'completed', A);
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'confirmed: true' }] });
  } finally {
    await fx.close();
  }
});
