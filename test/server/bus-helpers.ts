// Shared by the message bus tests (not a test file itself): two instances of one server
// definition, each on its own HTTP port, joined only by a message bus and a task store, and the
// checks of what a client of one must see of what happens on the other.
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import type { MessageBus } from '../../src/state/bus.js';
import type { TaskStore } from '../../src/state/task-store.js';
import { connect } from '../../src/client/connect.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { M, V } from './modern/helpers.js';
import { tasks } from '../../src/extensions/tasks/extension.js';
import { waitFor } from '../support/index.js';

const EXT = 'io.modelcontextprotocol/tasks';

export interface Instance {
  mcp: McpServer;
  running: RunningServer;
  url: string;
  errors: Error[];
  /** Set when the `slow` tool's handler on this instance saw its signal abort. */
  aborted: string[];
}

/** One instance: the same tools everywhere, as a deployment would run them. */
export async function instance(bus: MessageBus, store: TaskStore): Promise<Instance> {
  const errors: Error[] = [];
  const aborted: string[] = [];
  const mcp = new McpServer({ name: 'fleet', version: '1.0.0', bus, onerror: (e) => errors.push(e), extensions: [tasks({ store, pollIntervalMs: 50 })] });
  mcp.resource('report', 'file:///report.txt', () => 'the report');
  mcp.tool('confirm', { input: { what: z.string() }, task: 'required' }, async ({ what }, ctx) => {
    const r = await ctx.elicit({ message: `Delete ${what}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });
    return `${what}: ${r.action} ${String(r.content?.ok)}`;
  });
  mcp.tool('slow', { input: { label: z.string() }, task: 'required' }, async ({ label }, ctx) => {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 10_000);
      ctx.signal.addEventListener('abort', () => (clearTimeout(t), aborted.push(label), resolve()), { once: true });
    });
    return `slow ${label} done`;
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1' });
  return { mcp, running, url: running.url, errors, aborted };
}

let nextId = 1;
/** One 2026-07-28 POST that declares the tasks extension; the JSON-RPC result. */
export async function call(url: string, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const name = method === 'tools/call' ? params.name : params.taskId;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': V, 'mcp-method': method, 'mcp-name': String(name) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, _meta: { [M.protocolVersion]: V, [M.clientCapabilities]: { extensions: { [EXT]: {} }, elicitation: {} } } },
    }),
  });
  const body = (await res.json()) as Record<string, any>;
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.result;
}

/** The cross-instance checks, run against any bus (the Redis test runs them on RedisBus). */
export async function crossInstanceChecks(a: Instance, b: Instance): Promise<void> {
  // Handshake era: a session held by B hears a resource update and a log message raised on A.
  const hs = await connect(b.url, { era: 'handshake' });
  const updates: string[] = [];
  const logs: unknown[] = [];
  hs.on('notifications/resources/updated', (p) => updates.push(p.uri));
  hs.on('notifications/message', (p) => logs.push(p.data));
  await hs.subscribeResource('file:///report.txt');
  await hs.subscribeResource('file:///marker.txt');
  await hs.setLoggingLevel('warning');
  a.mcp.resourceUpdated('file:///report.txt');
  a.mcp.resourceUpdated('file:///other.txt'); // nobody subscribed: filtered out on B
  a.mcp.log('info', 'below the session level');
  a.mcp.log('error', 'disk full');
  // Markers raised last: the bus and the session's stream keep order, so once they are in, what
  // was filtered out above would have arrived before them.
  a.mcp.resourceUpdated('file:///marker.txt');
  a.mcp.log('error', 'marker');
  await waitFor(async () => (updates.includes('file:///marker.txt') && logs.includes('marker') ? true : undefined), 'the markers on B');
  assert.deepEqual(updates, ['file:///report.txt', 'file:///marker.txt']);
  assert.deepEqual(logs, ['disk full', 'marker']);
  await hs.close();

  // 2026-07-28: a listen stream on B hears a list change made on A.
  const modern = await connect(b.url, { era: 'modern' });
  const seen: string[] = [];
  const sub = modern.listen({ toolsListChanged: true }, (n) => seen.push(n.method));
  await sub.acknowledged;
  a.mcp.tool('added_on_a', () => 'hi');
  await waitFor(async () => (seen.includes('notifications/tools/list_changed') ? true : undefined), 'list_changed on B');
  await sub.close();
  await modern.close();

  // A task runs on A; the client asks B. B answers tasks/get from the shared store, and its
  // tasks/update reaches the handler waiting on A.
  const created = await call(a.url, 'tools/call', { name: 'confirm', arguments: { what: 'old.log' } });
  assert.equal(created.resultType, 'task');
  const waiting = await waitFor(async () => {
    const t = await call(b.url, 'tasks/get', { taskId: created.taskId });
    return t.status === 'input_required' ? t : undefined;
  }, 'input_required on B');
  const [key] = Object.keys(waiting.inputRequests);
  assert.equal(waiting.inputRequests[key].method, 'elicitation/create');
  const ack = await call(b.url, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { ok: true } } } });
  assert.equal(ack.resultType, 'complete');
  const done = await waitFor(async () => {
    const t = await call(b.url, 'tasks/get', { taskId: created.taskId });
    return t.status === 'completed' ? t : undefined;
  }, 'completed on B');
  assert.deepEqual(done.result.content, [{ type: 'text', text: 'old.log: accept true' }]);

  // Cancelled through B: the handler on A is stopped, not just the record marked.
  const slow = await call(a.url, 'tools/call', { name: 'slow', arguments: { label: 'x1' } });
  await call(b.url, 'tasks/cancel', { taskId: slow.taskId });
  await waitFor(async () => (a.aborted.includes('x1') ? true : undefined), 'the handler on A aborted');
  assert.equal((await call(a.url, 'tasks/get', { taskId: slow.taskId })).status, 'cancelled');
  assert.deepEqual(b.aborted, []);
}
