import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Peer, type PeerHandlers } from '../../src/engine/peer.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import type { FrameInfo, SendOptions, Transport } from '../../src/engine/transport.js';
import { rejectsLocally, rejectsWithCode, type Frame } from '../jsonrpc/harness.js';
import { flush, sleep, waitFor } from '../support/index.js';

/** A transport driven by hand: `deliver` feeds frames in, `sent` collects what goes out. */
class FakeTransport implements Transport {
  onmessage?: (frame: unknown, info?: FrameInfo) => void;
  onclose?: (reason?: Error) => void;
  onerror?: (error: Error) => void;
  sent: Array<{ message: JsonRpcMessage | JsonRpcMessage[]; options?: SendOptions }> = [];
  failSends = false;
  closed = false;
  async start(): Promise<void> {}
  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.failSends) throw new Error('write failed');
    this.sent.push({ message, options });
  }
  async close(): Promise<void> {
    this.closed = true;
    this.onclose?.();
  }
  deliver(frame: unknown, info?: FrameInfo): void {
    this.onmessage?.(typeof frame === 'string' ? frame : JSON.stringify(frame), info);
  }
  /** Untyped on purpose: tests pick fields out of them freely. */
  get messages(): Frame[] {
    return this.sent.map((s) => s.message);
  }
}

async function peerOn(handlers: Partial<PeerHandlers> = {}, options: ConstructorParameters<typeof Peer>[2] = {}) {
  const t = new FakeTransport();
  const errors: Error[] = [];
  const peer = new Peer(t, { onrequest: () => ({}), ...handlers }, { onerror: (e) => errors.push(e), ...options });
  await peer.start();
  return { t, peer, errors };
}

test('outgoing ids are unique and responses are correlated by exact id', async () => {
  const { t, peer } = await peerOn();
  const a = peer.request('a');
  const b = peer.request('b', { x: 1 });
  await flush();
  const [ra, rb] = t.messages as Array<{ id: number; method: string; params?: unknown }>;
  assert.notEqual(ra.id, rb.id);
  assert.deepEqual(rb, { jsonrpc: '2.0', id: rb.id, method: 'b', params: { x: 1 } });
  // A response whose id is the string form of ours does not match it.
  t.deliver({ jsonrpc: '2.0', id: String(rb.id), result: { wrong: true } });
  t.deliver({ jsonrpc: '2.0', id: rb.id, error: { code: -32000, message: 'nope', data: 1 } });
  t.deliver({ jsonrpc: '2.0', id: ra.id, result: { ok: 'a' }, extra: 1 });
  assert.deepEqual(await a, { ok: 'a' });
  const e = await rejectsWithCode(b, -32000, /nope/);
  assert.equal(e.data, 1);
  await peer.close();
});

test('a failing send rejects the request; a failing error reply goes to onerror, never unhandled', async () => {
  const { t, peer, errors } = await peerOn();
  t.failSends = true;
  await assert.rejects(peer.request('x'), /write failed/);
  t.deliver('not json');
  t.deliver({ jsonrpc: '2.0', id: 1, method: 7 });
  t.deliver('[]');
  await flush();
  assert.equal(errors.filter((e) => /write failed/.test(e.message)).length, 3);
  await peer.close();
});

test('each frame keeps its own info, even when an async middleware holds an earlier frame', async () => {
  const { t, peer } = await peerOn(
    { onrequest: (_req, inbound) => ({ principal: inbound.info?.authInfo?.principal ?? null }) },
    {
      middleware: [
        {
          incoming: async (m, next) => {
            if ('method' in m && m.method === 'slow') await sleep(15);
            return next(m);
          },
        },
      ],
    },
  );
  t.deliver({ jsonrpc: '2.0', id: 1, method: 'slow' }, { authInfo: { principal: 'alice' } });
  t.deliver({ jsonrpc: '2.0', id: 2, method: 'fast' }, { authInfo: { principal: 'bob' } });
  await waitFor(() => t.messages.length === 2, 'both replies');
  const byId = Object.fromEntries((t.messages as Array<{ id: number; result: { principal: string } }>).map((m) => [m.id, m.result.principal]));
  assert.deepEqual(byId, { 1: 'alice', 2: 'bob' });
  // Replies name the request they belong to (HTTP routes them by it).
  assert.deepEqual(t.sent.map((s) => s.options?.relatedRequestId).sort(), [1, 2]);
  await peer.close();
});

test('use() adds middleware to a running peer; notifications reach onnotification with their info', async () => {
  const seen: Array<[string, FrameInfo | undefined]> = [];
  const { t, peer } = await peerOn({ onnotification: (n, info) => void seen.push([n.method, info]) });
  t.deliver({ jsonrpc: '2.0', method: 'one' }, { remoteAddress: '1.1.1.1' });
  peer.use({ incoming: async (m, next) => ('method' in m && m.method === 'two' ? undefined : next(m)) });
  t.deliver({ jsonrpc: '2.0', method: 'two' });
  t.deliver({ jsonrpc: '2.0', method: 'three' });
  await flush();
  assert.deepEqual(seen, [
    ['one', { remoteAddress: '1.1.1.1' }],
    ['three', undefined],
  ]);
  await peer.close();
});

test('a throwing notification handler is reported to onerror; a throwing request handler answers', async () => {
  const { t, peer, errors } = await peerOn({
    onnotification: () => {
      throw new Error('note failed');
    },
    onrequest: (req) => {
      if (req.method === 'mcp') throw new McpError(-32602, 'bad args');
      throw new TypeError('kaput');
    },
  });
  t.deliver({ jsonrpc: '2.0', method: 'n' });
  t.deliver({ jsonrpc: '2.0', id: 'a', method: 'mcp' });
  t.deliver({ jsonrpc: '2.0', id: 'b', method: 'other' });
  await flush();
  assert.deepEqual(t.messages, [
    { jsonrpc: '2.0', id: 'a', error: { code: -32602, message: 'bad args' } },
    { jsonrpc: '2.0', id: 'b', error: { code: -32603, message: 'kaput' } },
  ]);
  // McpErrors are answers, not problems; only the unexpected throws are reported.
  assert.deepEqual(
    errors.map((e) => e.message),
    ['note failed', 'kaput'],
  );
  await peer.close();
});

test('close rejects pending requests with "closed", aborts handlers and sends nothing more', async () => {
  let signal: AbortSignal | undefined;
  const { t, peer } = await peerOn({
    onrequest: async (_req, inbound) => {
      signal = inbound.signal;
      await new Promise((r) => inbound.signal.addEventListener('abort', r));
      return { late: true };
    },
  });
  const closes: Array<Error | undefined> = [];
  peer.onClose((r) => closes.push(r));
  const pending = peer.request('x', undefined, { timeoutMs: 0 });
  t.deliver({ jsonrpc: '2.0', id: 9, method: 'hang' });
  await flush();
  const before = t.sent.length;
  await peer.close();
  await rejectsLocally(pending, 'closed', /Connection closed before "x"/);
  assert.equal(signal?.aborted, true);
  await flush();
  assert.equal(t.sent.length, before, 'no reply for the aborted handler, no cancelled notification');
  assert.equal(closes.length, 1);
  assert.equal(peer.inflight.size, 0);
  await rejectsLocally(peer.request('y'), 'closed');
  await rejectsLocally(peer.notify('n'), 'closed');
  await peer.close();
  assert.equal(closes.length, 1, 'onClose fires once');
});

test('a transport closing with a reason passes it on to pending requests', async () => {
  const { t, peer } = await peerOn();
  const pending = peer.request('x');
  t.onclose?.(new Error('socket reset'));
  const e = await rejectsLocally(pending, 'closed', /socket reset/);
  assert.equal((e.cause as Error).message, 'socket reset');
});

test('timeouts beyond the timer range mean "no timeout" instead of firing at once', async () => {
  const { t, peer } = await peerOn();
  const p = peer.request('x', undefined, { timeoutMs: 2 ** 31 + 5 });
  const q = peer.request('y', undefined, { maxTotalTimeoutMs: 2 ** 40 });
  // A timer that overflowed would fire after 1 ms, well before this one (timers run in due order).
  await sleep(15);
  const ids = (t.messages as Array<{ id: number }>).map((m) => m.id);
  assert.equal(t.messages.length, 2, 'no notifications/cancelled was sent');
  for (const id of ids) t.deliver({ jsonrpc: '2.0', id, result: { ok: id } });
  assert.deepEqual(await p, { ok: ids[0] });
  assert.deepEqual(await q, { ok: ids[1] });
  await peer.close();
});

test('initialize is never cancelled, even when it times out or is aborted', async () => {
  const { t, peer } = await peerOn();
  await rejectsLocally(peer.request('initialize', {}, { timeoutMs: 10 }), 'timeout');
  await rejectsLocally(peer.request('initialize', {}, { signal: AbortSignal.timeout(5) }), 'aborted');
  await flush();
  assert.deepEqual(
    (t.messages as Array<{ method: string }>).map((m) => m.method),
    ['initialize', 'initialize'],
  );
  await peer.close();
});
