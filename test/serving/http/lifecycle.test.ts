// Probes, the availability gate and draining (HttpServerOptions.health, RunningServer.drain),
// in-process: what a load balancer sees of an instance that cannot serve or is shutting down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { InMemoryEventStore } from '../../../src/state/event-store.js';
import { InMemorySessionStore } from '../../../src/state/session-store.js';
import { call, jsonError, open, post, req, SseReader, start } from './helpers.js';
import { deferred, waitFor } from '../../support/index.js';

const status = async (r: Promise<Response>): Promise<number> => {
  const res = await r;
  await res.text();
  return res.status;
};

test('probes: /healthz always 200, /readyz follows `unavailable`; MCP requests are refused at once meanwhile, with the id', async () => {
  let why: string | undefined;
  const s = await start({ health: { unavailable: () => why } });
  try {
    assert.equal(await status(fetch(`${s.base}/healthz`)), 200);
    const ready = await fetch(`${s.base}/readyz`);
    assert.deepEqual(await ready.json(), { status: 'ready' });
    const { headers } = await open(s.url);
    assert.equal(await status(post(s.url, call('echo', { text: 'up' }), headers)), 200);

    why = 'Redis at redis://db is unreachable';
    const notReady = await fetch(`${s.base}/readyz`);
    assert.equal(notReady.status, 503);
    assert.deepEqual(await notReady.json(), { status: 'unavailable', reason: 'Service Unavailable: Redis at redis://db is unreachable' });
    assert.equal(await status(fetch(`${s.base}/healthz`)), 200, 'alive all the same');
    const refused = await post(s.url, req('tools/call', { name: 'echo', arguments: { text: 'x' } }, 'r-1'), headers);
    assert.equal(refused.headers.get('retry-after'), '1');
    const body = (await refused.clone().json()) as { id: unknown };
    assert.equal(body.id, 'r-1');
    assert.match((await jsonError(refused, 503, -32603)).message, /^Service Unavailable: Redis at redis:\/\/db is unreachable/);
    // Not JSON: still a JSON-RPC error, id null.
    const junk = await post(s.url, 'not json', headers);
    assert.equal(((await junk.clone().json()) as { id: unknown }).id, null);
    await jsonError(junk, 503, -32603);
    assert.equal(await status(fetch(`${s.base}/readyz`, { method: 'POST' })), 405);

    why = undefined;
    assert.equal(await status(post(s.url, call('echo', { text: 'back' }), headers)), 200);
  } finally {
    await s.running.close();
  }
});

test('`readiness`: a part missing turns /readyz 503 (or degraded) with its detail, and MCP requests are still served', async () => {
  let state: { ready: boolean; reason?: string; detail?: Record<string, unknown> } = {
    ready: false,
    reason: 'backend "b" is connecting',
    detail: { backends: { b: 'connecting' } },
  };
  const s = await start({ health: { readiness: () => state } });
  try {
    const starting = await fetch(`${s.base}/readyz`);
    assert.equal(starting.status, 503);
    assert.deepEqual(await starting.json(), { status: 'starting', reason: 'backend "b" is connecting', backends: { b: 'connecting' } });
    const { headers } = await open(s.url);
    assert.equal(await status(post(s.url, call('echo', { text: 'served' }), headers)), 200, 'not refused meanwhile');
    state = { ready: true, reason: 'backend "b" is down', detail: { backends: { b: 'failed' } } };
    const degraded = await fetch(`${s.base}/readyz`);
    assert.equal(degraded.status, 200);
    assert.deepEqual(await degraded.json(), { status: 'degraded', reason: 'backend "b" is down', backends: { b: 'failed' } });
    state = { ready: true };
    assert.deepEqual(await (await fetch(`${s.base}/readyz`)).json(), { status: 'ready' });
  } finally {
    await s.running.close();
  }
});

test('without `health` there are no probes', async () => {
  const s = await start();
  try {
    assert.equal(await status(fetch(`${s.base}/readyz`)), 404);
  } finally {
    await s.running.close();
  }
});

test('drain: readiness 503, new requests refused, a running call finishes within the grace', async () => {
  const mcp = new McpServer({ name: 'drain', version: '1.0.0' });
  const gate = deferred();
  mcp.tool('wait', { input: { label: z.string() } }, async ({ label }, ctx) => {
    await ctx.progress(1, 2);
    await gate.promise;
    return `done ${label}`;
  });
  const s = await start({ health: true }, { mcp, counter: { n: 0 } });
  const { headers } = await open(s.url);
  const running = new SseReader(await post(s.url, call('wait', { label: 'a' }, { progressToken: 'p' }), headers));
  const first = await running.next();
  assert.ok(first);
  const drained = s.running.drain(60_000);
  await waitFor(async () => (await fetch(`${s.base}/readyz`)).status === 503, 'readiness to turn 503');
  const late = await post(s.url, req('ping'), headers);
  assert.equal(late.headers.get('connection'), 'close');
  assert.match((await jsonError(late, 503, -32603)).message, /shutting down/);
  gate.resolve();
  let last: string | undefined;
  for (let e = await running.next(); e; e = await running.next()) if (e.data) last = e.data;
  assert.match(last ?? '', /done a/);
  await drained;
});

test('drain: past the grace, open streams end without their answer, and another instance resumes them', async () => {
  const sessionStore = new InMemorySessionStore();
  const eventStore = new InMemoryEventStore();
  const fixture = () => {
    const mcp = new McpServer({ name: 'drain', version: '1.0.0', onerror: () => {} });
    mcp.tool('never', async (_args, ctx) => {
      await ctx.progress(1, 2);
      await new Promise(() => {});
      return 'unreachable';
    });
    return { mcp, counter: { n: 0 } };
  };
  const a = await start({ sessionStore, eventStore }, fixture());
  const b = await start({ sessionStore, eventStore }, fixture());
  try {
    const { headers } = await open(a.url);
    await waitFor(async () => (await sessionStore.get(headers['mcp-session-id'])) !== undefined, 'the session record');
    const stream = new SseReader(await post(a.url, call('never', {}, { progressToken: 'p' }), headers));
    const events: Array<{ id?: string; data?: string }> = [];
    const read = (async () => {
      for (let e = await stream.next(); e; e = await stream.next()) events.push(e);
    })();
    await waitFor(() => events.some((e) => e.data?.includes('notifications/progress')), 'the progress event');
    await a.running.drain(0);
    await read;
    assert.ok(
      events.every((e) => !e.data?.includes('"result"')),
      'ended without a result',
    );
    const priming = events.find((e) => e.id !== undefined && !e.data);
    assert.ok(priming?.id, 'a priming event to resume from');
    const resumed = await fetch(b.url, { headers: { ...headers, accept: 'text/event-stream', 'last-event-id': priming.id } });
    assert.equal(resumed.status, 200);
    const replayed = await new SseReader(resumed).rest();
    assert.ok(
      replayed.some((e) => e.data?.includes('notifications/progress')),
      'the stream was handed over, not dropped',
    );
  } finally {
    await b.running.close();
  }
});
