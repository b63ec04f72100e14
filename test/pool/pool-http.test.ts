// ServerPool against an in-process mcpkit server over real HTTP (127.0.0.1, port 0), reached as
// two pool servers: one pinned to the handshake era, one speaking 2026-07-28. Both eras get:
// list_changed refresh, sampling and elicitation routed with the asking server's name, progress
// keeping a call past its timeout (ManualClock), and cancellation reaching the server's handler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RequestContext } from '../../src/server/context.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { ServerPool } from '../../src/pool/pool.js';
import type { PoolHandlers } from '../../src/pool/pool-types.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { deferred, ManualClock, waitFor, within, type Deferred } from '../support/index.js';

interface Fixture {
  running: RunningServer;
  mcp: McpServer;
  /** The context of each `slow`/`hang` call as it starts, and how it ended. */
  entered: Array<{ ctx: RequestContext; release: Deferred<string>; aborted: Promise<void> }>;
}

async function start(): Promise<Fixture> {
  const mcp = new McpServer({ name: 'pool-http', version: '1.0.0' });
  const entered: Fixture['entered'] = [];
  mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  mcp.tool('ask', { description: 'Asks the client for a completion and a name' }, async (_args, ctx) => {
    const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'a haiku' } }], maxTokens: 50 });
    const named = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const content = sampled.content as { type: string; text?: string };
    return `${content.text} / ${named.action}:${(named.content as { name?: string } | undefined)?.name}`;
  });
  mcp.tool('roots', { description: 'Lists the client roots' }, async (_args, ctx) => (await ctx.roots()).map((r) => r.uri).join(' '));
  // Waits for the test to release it (or for cancellation): the test drives its progress.
  mcp.tool('slow', { description: 'Runs until released' }, (_args, ctx) => {
    const release = deferred<string>();
    const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    entered.push({ ctx, release, aborted });
    return Promise.race([release.promise, aborted.then(() => 'aborted')]);
  });
  const running = await serve(mcp, { port: 0 });
  return { running, mcp, entered };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

function pool(url: string, extra: Partial<ConstructorParameters<typeof ServerPool>[0]> = {}): ServerPool {
  return new ServerPool({
    servers: [
      { name: 'hs', target: url, era: 'handshake' },
      { name: 'mo', target: url, era: 'modern' },
    ],
    ...extra,
  });
}

test('both eras over HTTP: tools listed and prefixed on clash; a tool added at runtime is picked up by both (list_changed, listen)', async () => {
  const f = await start();
  const p = pool(f.running.url);
  try {
    await p.start();
    assert.equal(p.server('hs')?.era, 'handshake');
    assert.equal(p.server('mo')?.era, 'modern');
    assert.deepEqual(
      p.tools().map((t) => t.name),
      ['hs_ask', 'hs_echo', 'hs_roots', 'hs_slow', 'mo_ask', 'mo_echo', 'mo_roots', 'mo_slow'],
    );
    assert.equal(text(await p.call('mo_echo', { text: 'modern' })), 'modern');
    assert.equal(text(await p.call('hs_echo', { text: 'handshake' })), 'handshake');
    const before = new Map(p.tools().map((t) => [t.name, t.server]));
    f.mcp.tool('late', { input: { n: z.number() } }, ({ n }) => `late ${n}`);
    const late = await waitFor(() => {
      const found = p.tools().filter((t) => t.tool.name === 'late');
      return found.length === 2 && found;
    }, 'both servers to list "late"');
    assert.deepEqual(late.map((t) => t.server).sort(), ['hs', 'mo']);
    for (const [name, server] of before) assert.equal(p.resolve(name)?.server, server, `${name} unchanged`);
    for (const t of late) assert.equal(text(await p.call(t.name, { n: 1 })), 'late 1');
  } finally {
    await p.close();
    await f.running.close();
  }
});

test('sampling and elicitation reach the host with the name of the server asking (both eras)', async () => {
  const f = await start();
  const asked: string[] = [];
  const handlers: PoolHandlers = {
    sampling: (server, params) => {
      asked.push(`sampling:${server}:${params.maxTokens}`);
      return { role: 'assistant', content: { type: 'text', text: `poem for ${server}` }, model: 'test' };
    },
    elicitation: (server, params) => {
      asked.push(`elicitation:${server}:${params.message}`);
      return { action: 'accept', content: { name: server.toUpperCase() } };
    },
  };
  const p = pool(f.running.url, { handlers });
  try {
    await p.start();
    assert.equal(text(await p.call('hs_ask', {})), 'poem for hs / accept:HS');
    assert.equal(text(await p.call('mo_ask', {})), 'poem for mo / accept:MO');
    assert.ok(asked.includes('sampling:hs:50') && asked.includes('elicitation:hs:Your name?'), asked.join(' '));
    assert.ok(asked.includes('sampling:mo:50') && asked.includes('elicitation:mo:Your name?'), asked.join(' '));
    // The roots every client offers: the working directory.
    assert.equal(text(await p.call('hs_roots', {})), pathToFileURL(process.cwd()).href);
    assert.equal(text(await p.call('mo_roots', {})), pathToFileURL(process.cwd()).href);
  } finally {
    await p.close();
    await f.running.close();
  }
});

for (const server of ['hs', 'mo'] as const) {
  test(`${server}: progress keeps a call alive past its timeout; without progress it times out (ManualClock)`, async () => {
    const f = await start();
    const clock = new ManualClock();
    const p = pool(f.running.url, { clock });
    try {
      await p.start();
      const progress: number[] = [];
      const call = p.call(`${server}_slow`, {}, { timeoutMs: 1000, onprogress: (x) => progress.push(x.progress) });
      const first = await waitFor(() => f.entered[0], 'the call to reach the server');
      clock.advance(900);
      await first.ctx.progress(1, 3);
      await waitFor(() => progress.length === 1, 'the progress notification');
      // 1800 ms since the call, 900 since the progress: still within the timeout.
      clock.advance(900);
      first.release.resolve('done');
      assert.equal(text(await within(call, 'the slow call')), 'done');
      assert.deepEqual(progress, [1]);
      // Without progress, the same timeout ends the call.
      const silent = p.call(`${server}_slow`, {}, { timeoutMs: 1000 });
      const second = await waitFor(() => f.entered[1], 'the second call to reach the server');
      clock.advance(1001);
      const err = await silent.catch((e: unknown) => e);
      assert.ok(err instanceof Error && /timed out|timeout/i.test(err.message), String(err));
      second.release.resolve('late');
    } finally {
      await p.close();
      await f.running.close();
    }
  });

  test(`${server}: aborting a call cancels it on the server (its handler's signal fires)`, async () => {
    const f = await start();
    const p = pool(f.running.url);
    try {
      await p.start();
      const ac = new AbortController();
      const call = p.call(`${server}_slow`, {}, { signal: ac.signal, meta: { 'example.com/trace': 'abc' } });
      const entry = await waitFor(() => f.entered[0], 'the call to reach the server');
      assert.equal(entry.ctx.meta?.['example.com/trace'], 'abc', '_meta merged into the request');
      ac.abort(new Error('user pressed stop'));
      const err = await call.catch((e: unknown) => e);
      assert.ok(err instanceof LocalError && err.kind === 'aborted', String(err));
      await within(entry.aborted, "the server handler's signal");
    } finally {
      await p.close();
      await f.running.close();
    }
  });
}

test('clientFetch is honoured: every HTTP exchange of both eras goes through the fetch it returns (not the Node socket path)', async () => {
  const f = await start();
  const seen: string[] = [];
  const p = pool(f.running.url, {
    clientFetch: (server) => (input, init) => {
      seen.push(`${server} ${init?.method ?? 'GET'}`);
      return fetch(input, init);
    },
  });
  try {
    await p.start();
    const before = seen.length;
    assert.equal(text(await p.call('mo_echo', { text: 'modern' })), 'modern');
    assert.equal(text(await p.call('hs_echo', { text: 'handshake' })), 'handshake');
    const calls = seen.slice(before);
    assert.ok(calls.includes('mo POST'), `the modern call went through clientFetch: ${calls.join(', ')}`);
    assert.ok(calls.includes('hs POST'), `the handshake call went through clientFetch: ${calls.join(', ')}`);
    assert.ok(seen.some((s) => s.startsWith('hs ')) && seen.some((s) => s.startsWith('mo ')), 'each server connected through its own fetch');
  } finally {
    await p.close();
    await f.running.close();
  }
});
