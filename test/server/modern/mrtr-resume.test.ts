// A handler that asks for input in the 2026-07-28 era runs once per call: the instance that
// answered `input_required` keeps the run waiting and the retry resumes it. Only a retry that
// lands where the run is not (another instance, after expiry, crowded out, a second retry of
// the same round) replays the handler, and ctx.step keeps a side effect to one run even then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer, type McpServerOptions } from '../../../src/server/mcp-server.js';
import { createTestPair } from '../../../src/testing/index.js';
import { serve } from '../../../src/serving/node.js';
import { connect } from '../../../src/client/connect.js';
import { assertError, M, meta, V, Wire } from './helpers.js';
import { deferred, flush, ManualClock, waitFor } from '../../support/index.js';

const ELICIT = { elicitation: {} };
const ALL = { elicitation: {}, sampling: {}, roots: {} };
const FORM = { message: 'Charge the card?', requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } } };
const YES = { action: 'accept', content: { ok: true } };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };

/** A shop whose tools charge a card and then ask; counts what happened, per order. */
class Shop {
  readonly server: McpServer;
  /** Cards charged, by order. */
  readonly charges = new Map<string, number>();
  /** Handler runs started, by order. */
  readonly runs = new Map<string, number>();
  /** ctx.signal aborts seen by handlers, with the reason. */
  readonly aborted: string[] = [];
  /** Opened by the `slow` tool once its question was answered; it then waits on `gate`. */
  resumed = deferred();
  gate = deferred();

  constructor(options: Partial<McpServerOptions> = {}) {
    const s = new McpServer({ name: 'shop', version: '1.0.0', onerror: () => {}, ...options });
    const input = { order: z.string() };
    s.tool('buy', { input }, async ({ order }, ctx) => {
      this.start(order, ctx.signal);
      const n = this.charge(order);
      await ctx.progress(1, 2);
      const r = await ctx.elicit(FORM);
      await ctx.progress(2, 2);
      return `order ${order}: charge #${n}, ${r.action}`;
    });
    s.tool('buy-step', { input }, async ({ order }, ctx) => {
      this.start(order, ctx.signal);
      const receipt = await ctx.step('charge', () => ({ receipt: `${order}-${this.charge(order)}` }));
      const r = await ctx.elicit(FORM);
      return `order ${order}: ${receipt.receipt}, ${r.action}`;
    });
    s.tool('two-rounds', { input }, async ({ order }, ctx) => {
      this.start(order, ctx.signal);
      const n = this.charge(order);
      const e = await ctx.elicit(FORM);
      const m = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital?' } }], maxTokens: 5 });
      return `order ${order}: charge #${n}, ${e.action}, ${(m.content as { text: string }).text}`;
    });
    s.tool('slow', { input }, async ({ order }, ctx) => {
      this.start(order, ctx.signal);
      this.charge(order);
      await ctx.elicit(FORM);
      this.resumed.resolve();
      await this.gate.promise;
      return `order ${order}: done`;
    });
    this.server = s;
  }

  private start(order: string, signal: AbortSignal): void {
    this.runs.set(order, (this.runs.get(order) ?? 0) + 1);
    signal.addEventListener('abort', () => this.aborted.push(`${order}: ${(signal.reason as Error).message}`), { once: true });
  }

  private charge(order: string): number {
    const n = (this.charges.get(order) ?? 0) + 1;
    this.charges.set(order, n);
    return n;
  }

  /** Handler runs waiting for their retry. */
  get waiting(): number {
    return this.server.server.modern!.rounds.waiting;
  }
}

/** Round one of a tools/call: the input_required result. */
async function ask(w: Wire, name: string, order: string, caps: Record<string, unknown> = ELICIT): Promise<Record<string, any>> {
  const r = await w.result('tools/call', { name, arguments: { order } }, caps);
  assert.equal(r.resultType, 'input_required', JSON.stringify(r));
  return r;
}

/** The retry of a tools/call with `answers`. */
function retry(w: Wire, name: string, order: string, state: string, answers: Record<string, unknown>, caps: Record<string, unknown> = ELICIT, id?: string) {
  return w.modern('tools/call', { name, arguments: { order }, inputResponses: answers, requestState: state }, caps, id);
}

function text(r: Record<string, any> | undefined): string {
  return (r?.content as Array<{ text: string }>)?.[0]?.text;
}

test('the retry resumes the run that asked: code before ctx.elicit runs once, and the run reports to the retry', async () => {
  const shop = new Shop();
  const w = await Wire.connect(shop.server);
  const first = await w.request('tools/call', { name: 'buy', arguments: { order: 'A' }, _meta: { ...meta(ELICIT), progressToken: 'p1' } }, 'c1');
  assert.equal(first.result?.resultType, 'input_required');
  assert.equal(shop.waiting, 1);
  const done = await w.request(
    'tools/call',
    {
      name: 'buy',
      arguments: { order: 'A' },
      inputResponses: { 'elicit-1': YES },
      requestState: first.result?.requestState,
      _meta: { ...meta(ELICIT), progressToken: 'p2' },
    },
    'c2',
  );
  assert.equal(text(done.result), 'order A: charge #1, accept');
  assert.equal(shop.charges.get('A'), 1);
  assert.equal(shop.runs.get('A'), 1);
  assert.equal(shop.waiting, 0);
  // Progress before the question went with the first request, after it with the retry.
  const progress = w.notifications('notifications/progress').map((f) => [f.params?.progressToken, f.params?.progress]);
  assert.deepEqual(progress, [
    ['p1', 1],
    ['p2', 2],
  ]);
  assert.deepEqual(shop.aborted, []);
});

test('over HTTP, a client from connect() (2026-07-28 against mcpkit) charges once', async () => {
  const shop = new Shop();
  const running = await serve(shop.server, { port: 0, host: '127.0.0.1' });
  const client = await connect(running.url, {
    elicitation: () => ({ action: 'accept', content: { ok: true } }),
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' }),
  });
  assert.equal(client.era, 'modern');
  const two = await client.callTool('two-rounds', { order: 'H' });
  assert.equal(text(two as unknown as Record<string, any>), 'order H: charge #1, accept, Paris');
  assert.equal(shop.runs.get('H'), 1);
  const buy = await client.callTool('buy', { order: 'B' });
  assert.equal(text(buy as unknown as Record<string, any>), 'order B: charge #1, accept');
  assert.equal(shop.charges.get('B'), 1);
  assert.equal(shop.runs.get('B'), 1);
  await client.close();
  await running.close();
});

test('createTestPair, in its default era and in the handshake era: charged once per call', async () => {
  const shop = new Shop();
  const elicitation = () => ({ action: 'accept' as const, content: { ok: true } });
  const pair = await createTestPair(shop.server, { elicitation });
  assert.equal(pair.client.era, 'modern');
  assert.equal(text((await pair.client.callTool('buy', { order: 'T' })) as unknown as Record<string, any>), 'order T: charge #1, accept');
  assert.equal(shop.runs.get('T'), 1);
  await pair.close();
  const old = await createTestPair(shop.server, { era: 'handshake', elicitation });
  assert.equal(text((await old.client.callTool('buy', { order: 'U' })) as unknown as Record<string, any>), 'order U: charge #1, accept');
  assert.equal(shop.runs.get('U'), 1);
  assert.deepEqual(old.wire.methods().slice(-4), ['→ tools/call', '← elicitation/create', '→ response 0', '← response 1']);
  await old.close();
});

test('one run goes through several rounds (elicit, then sample), resumed each time', async () => {
  const shop = new Shop();
  const w = await Wire.connect(shop.server);
  const r1 = await ask(w, 'two-rounds', 'R', ALL);
  assert.deepEqual(Object.keys(r1.inputRequests), ['elicit-1']);
  const r2 = (await retry(w, 'two-rounds', 'R', r1.requestState, { 'elicit-1': YES }, ALL)).result!;
  assert.equal(r2.resultType, 'input_required');
  assert.deepEqual(Object.keys(r2.inputRequests), ['sample-1']);
  assert.equal(shop.waiting, 1);
  const done = await retry(w, 'two-rounds', 'R', r2.requestState, { 'sample-1': SAMPLED }, ALL);
  assert.equal(text(done.result), 'order R: charge #1, accept, Paris');
  assert.equal(shop.runs.get('R'), 1);
  assert.equal(shop.waiting, 0);
});

test('a retry without the answer is asked again; an answer of the wrong kind is -32602; the run waits through both', async () => {
  const shop = new Shop();
  const w = await Wire.connect(shop.server);
  const r1 = await ask(w, 'buy', 'M');
  const again = (await retry(w, 'buy', 'M', r1.requestState, {})).result!;
  assert.equal(again.resultType, 'input_required');
  assert.deepEqual(Object.keys(again.inputRequests), ['elicit-1']);
  assertError(await retry(w, 'buy', 'M', again.requestState, { 'elicit-1': 12345 }, ELICIT, 'bad'), 'bad', -32602, /elicit-1/);
  assertError(await retry(w, 'buy', 'M', again.requestState, { 'elicit-1': YES }, {}, 'nocap'), 'nocap', -32021);
  assert.equal(shop.waiting, 1);
  const done = await retry(w, 'buy', 'M', again.requestState, { 'elicit-1': YES });
  assert.equal(text(done.result), 'order M: charge #1, accept');
  assert.equal(shop.runs.get('M'), 1);
});

test('two instances with one stateSecret: a retry on the other replays the handler, and a ctx.step charge still runs once', async () => {
  const a = new Shop({ modern: { stateSecret: 'shared-secret' } });
  const b = new Shop({ modern: { stateSecret: 'shared-secret' } });
  const wa = await Wire.connect(a.server);
  const wb = await Wire.connect(b.server);
  // Unwrapped: the code before the question runs again where the retry lands.
  const plain = await ask(wa, 'buy', 'P');
  assert.equal(text((await retry(wb, 'buy', 'P', plain.requestState, { 'elicit-1': YES })).result), 'order P: charge #1, accept');
  assert.equal(a.charges.get('P'), 1);
  assert.equal(b.charges.get('P'), 1);
  // In ctx.step: the result recorded on a travels in the state; b does not charge.
  const stepped = await ask(wa, 'buy-step', 'S');
  const done = await retry(wb, 'buy-step', 'S', stepped.requestState, { 'elicit-1': YES });
  assert.equal(text(done.result), 'order S: S-1, accept');
  assert.equal(a.charges.get('S'), 1);
  assert.equal(b.charges.get('S'), undefined);
  assert.equal(b.runs.get('S'), 1, 'b replayed the handler');
  // The runs left waiting on a are given up when it closes.
  assert.equal(a.waiting, 2);
  await a.server.close();
  assert.equal(a.waiting, 0);
  assert.deepEqual(a.aborted.sort(), ['P: The server closed', 'S: The server closed']);
});

test('two retries of one round: one resumes the run, the other replays it', async () => {
  const shop = new Shop();
  const w = await Wire.connect(shop.server);
  for (const [tool, order] of [
    ['buy', 'X'],
    ['buy-step', 'Y'],
  ]) {
    const r1 = await ask(w, tool, order);
    const [one, two] = await Promise.all([
      retry(w, tool, order, r1.requestState, { 'elicit-1': YES }),
      retry(w, tool, order, r1.requestState, { 'elicit-1': YES }),
    ]);
    assert.equal(one.result?.resultType, 'complete');
    assert.equal(two.result?.resultType, 'complete');
    assert.equal(shop.runs.get(order), 2);
  }
  assert.equal(shop.charges.get('X'), 2, 'unwrapped, the replay charges again');
  assert.equal(shop.charges.get('Y'), 1, 'in ctx.step, it does not');
  assert.equal(shop.waiting, 0);
});

test('a run nobody resumes in time is given up (its signal fires, nothing keeps it), and its retry replays', async () => {
  const clock = new ManualClock();
  const shop = new Shop({ modern: { clock, suspend: { ttlMs: 1000 } } });
  const w = await Wire.connect(shop.server);
  const r1 = await ask(w, 'buy', 'E');
  clock.advance(999);
  assert.equal(shop.waiting, 1);
  assert.deepEqual(shop.aborted, []);
  clock.advance(2);
  assert.equal(shop.waiting, 0);
  assert.equal(shop.aborted.length, 1);
  assert.match(shop.aborted[0], /^E: No retry came in time/);
  // The state itself lives longer (stateTtlMs): the retry runs the handler again.
  const done = await retry(w, 'buy', 'E', r1.requestState, { 'elicit-1': YES });
  assert.equal(text(done.result), 'order E: charge #2, accept');
  assert.equal(shop.runs.get('E'), 2);
});

test('suspend.max bounds the runs kept: past it the oldest is given up, and only its retry replays', async () => {
  const shop = new Shop({ modern: { suspend: { max: 2 } } });
  const w = await Wire.connect(shop.server);
  const states = new Map<string, string>();
  for (const order of ['O1', 'O2', 'O3']) states.set(order, (await ask(w, 'buy', order)).requestState);
  assert.equal(shop.waiting, 2);
  assert.deepEqual(shop.aborted.length, 1);
  assert.match(shop.aborted[0], /^O1: More than 2 requests wait for input/);
  for (const order of ['O1', 'O2', 'O3']) {
    const done = await retry(w, 'buy', order, states.get(order)!, { 'elicit-1': YES });
    assert.equal(done.result?.resultType, 'complete');
  }
  assert.deepEqual(
    ['O1', 'O2', 'O3'].map((o) => shop.runs.get(o)),
    [2, 1, 1],
  );
  // suspend: false keeps none: every retry replays.
  const stateless = new Shop({ modern: { suspend: false } });
  const ws = await Wire.connect(stateless.server);
  const r1 = await ask(ws, 'buy', 'Z');
  assert.equal(stateless.waiting, 0);
  assert.equal(text((await retry(ws, 'buy', 'Z', r1.requestState, { 'elicit-1': YES })).result), 'order Z: charge #2, accept');
  assert.throws(() => new McpServer({ name: 'x', version: '1', modern: { suspend: { max: -1 } } }), /suspend\.max/);
  assert.throws(() => new McpServer({ name: 'x', version: '1', modern: { suspend: { ttlMs: 0 } } }), /suspend\.ttlMs/);
});

test('cancelling the retry (notifications/cancelled) aborts the resumed run; nothing answers it', async () => {
  const shop = new Shop();
  const w = await Wire.connect(shop.server);
  const r1 = await ask(w, 'slow', 'C');
  w.send({
    jsonrpc: '2.0',
    id: 'R',
    method: 'tools/call',
    params: { name: 'slow', arguments: { order: 'C' }, inputResponses: { 'elicit-1': YES }, requestState: r1.requestState, _meta: meta(ELICIT) },
  });
  await shop.resumed.promise;
  assert.deepEqual(shop.aborted, []);
  w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'R', reason: 'changed my mind' } });
  await waitFor(() => shop.aborted.length === 1, 'the handler to see the abort');
  assert.match(shop.aborted[0], /^C: The request was cancelled/);
  shop.gate.resolve();
  // A later request's answer is on the wire: the cancelled one never was.
  await w.result('tools/list', {}, ELICIT);
  await flush();
  assert.equal(
    w.frames.some((f) => f.id === 'R'),
    false,
  );
  assert.equal(shop.charges.get('C'), 1);
});

test('over HTTP, the retry disconnecting aborts the resumed run', async () => {
  const shop = new Shop();
  const running = await serve(shop.server, { port: 0, host: '127.0.0.1' });
  const post = (params: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(running.url, {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V,
        'mcp-method': 'tools/call',
        'mcp-name': 'slow',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'slow', arguments: { order: 'D' }, ...params, _meta: meta(ELICIT) },
      }),
    });
  try {
    const first = (await (await post({})).json()) as { result: Record<string, any> };
    assert.equal(first.result.resultType, 'input_required');
    assert.deepEqual(first.result._meta, { [M.serverInfo]: { name: 'shop', version: '1.0.0' } });
    const hangUp = new AbortController();
    const pending = post({ inputResponses: { 'elicit-1': YES }, requestState: first.result.requestState }, hangUp.signal).catch((e: unknown) => e);
    await shop.resumed.promise;
    hangUp.abort();
    await pending;
    await waitFor(() => shop.aborted.length === 1, 'the handler to see the abort');
    assert.match(shop.aborted[0], /^D: The request was cancelled/);
    assert.equal(shop.runs.get('D'), 1);
  } finally {
    shop.gate.resolve();
    await running.close();
  }
});

test('ctx.step: once per name, a JSON copy of the result, the same in both eras; bad results are clear errors', async () => {
  const calls: string[] = [];
  const s = new McpServer({ name: 'steps', version: '1.0.0', onerror: () => {} });
  s.tool('record', async (_a, ctx) => {
    const first = await ctx.step('when', () => (calls.push(ctx.era), { at: new Date(0), n: 1 }));
    const again = await ctx.step('when', () => (calls.push('never'), { at: 'x', n: 2 }));
    const nothing = await ctx.step('void', () => undefined);
    return JSON.stringify([first, again, nothing === undefined]);
  });
  s.tool('bigint', async (_a, ctx) => {
    await ctx.step('big', () => 1n);
    return 'no';
  });
  s.tool('huge', async (_a, ctx) => {
    await ctx.step('huge', () => 'x'.repeat(70_000));
    return 'no';
  });
  s.tool('fn', async (_a, ctx) => {
    await ctx.step('fn', () => (() => 1) as unknown as number);
    return 'no';
  });
  for (const era of ['modern', 'handshake'] as const) {
    const pair = await createTestPair(s, { era });
    const r = (await pair.client.callTool('record')) as unknown as Record<string, any>;
    assert.equal(text(r), JSON.stringify([{ at: '1970-01-01T00:00:00.000Z', n: 1 }, { at: '1970-01-01T00:00:00.000Z', n: 1 }, true]), era);
    const big = (await pair.client.callTool('bigint')) as unknown as Record<string, any>;
    assert.equal(big.isError, true);
    assert.match(text(big), /ctx\.step\("big"\): its result is not JSON/);
    const huge = (await pair.client.callTool('huge')) as unknown as Record<string, any>;
    assert.match(text(huge), /ctx\.step\("huge"\): the results of one call's steps may take 65536 characters of JSON/);
    const fn = (await pair.client.callTool('fn')) as unknown as Record<string, any>;
    assert.match(text(fn), /ctx\.step\("fn"\): its result \(a function\) is not JSON/);
    await pair.close();
  }
  assert.deepEqual(calls, ['modern', 'handshake']);
});

test('a step still running when the round goes out is recorded in its state', async () => {
  const a = new McpServer({ name: 'a', version: '1.0.0', onerror: () => {}, modern: { stateSecret: 's3cret' } });
  const b = new McpServer({ name: 'b', version: '1.0.0', onerror: () => {}, modern: { stateSecret: 's3cret' } });
  const gate = deferred<string>();
  let charged = 0;
  for (const s of [a, b]) {
    s.tool('parallel', async (_a, ctx) => {
      const [receipt, answer] = await Promise.all([ctx.step('charge', async () => (charged++, await gate.promise)), ctx.elicit(FORM)]);
      return `${receipt} ${answer.action}`;
    });
  }
  const wa = await Wire.connect(a);
  const wb = await Wire.connect(b);
  const round = wa.modern('tools/call', { name: 'parallel', arguments: {} }, ELICIT, 'p1');
  await flush();
  // The run armed its round's timer when it asked, before this one: the round is due, and waits
  // for the step.
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  assert.equal(charged, 1);
  assert.equal(
    wa.frames.some((f) => f.id === 'p1'),
    false,
    'no answer while the step runs',
  );
  gate.resolve('receipt-1');
  const r1 = (await round).result!;
  assert.equal(r1.resultType, 'input_required');
  const done = await wb.modern('tools/call', { name: 'parallel', arguments: {}, inputResponses: { 'elicit-1': YES }, requestState: r1.requestState }, ELICIT);
  assert.equal(text(done.result), 'receipt-1 accept');
  assert.equal(charged, 1);
  await a.close();
});
