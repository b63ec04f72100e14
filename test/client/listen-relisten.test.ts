// subscriptions/listen over Streamable HTTP when its stream is lost: 2026-07-28 streams cannot be
// resumed, so the client sends the listen again (new id, same subscription), drops the cached
// results the filter covers (what was sent meanwhile is gone), and gives up after a few failed
// attempts in a row. Against OUR server, over real HTTP; the stream is broken from the client's
// side by aborting its fetch, or by the server going away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient } from '../../src/client/client.js';
import type { JsonRpcRequest } from '../../src/jsonrpc/messages.js';
import type { SubscriptionFilter } from '../../src/protocol/params.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { WireRecorder } from '../../src/testing/index.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/streamable.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { waitFor } from '../support/index.js';

interface Setup {
  mcp: McpServer;
  running: RunningServer;
  client: McpClient;
  wire: WireRecorder;
  /** JSON-RPC methods the server received. */
  saw: string[];
  /** How many listen POSTs the client made (answered or not). */
  listenPosts(): number;
  /** Breaks the response stream of the newest listen POST, as a dropped connection would. */
  breakListen(): void;
}

async function setup(): Promise<Setup> {
  // Lists are cacheable for a minute, so a dropped cache entry shows as a second tools/list.
  const mcp = new McpServer({ name: 'relisten', version: '1.0.0', modern: { cache: { ttlMs: 60_000, scope: 'public' } } });
  mcp.tool('a', () => 'a');
  const saw: string[] = [];
  mcp.use({
    incoming: async (m, next) => {
      if ('method' in m) saw.push(m.method);
      await next(m);
    },
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1' });
  const listens: AbortController[] = [];
  const tapped: typeof fetch = (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"subscriptions/listen"')) {
      const ctl = new AbortController();
      listens.push(ctl);
      const signal = init.signal ? AbortSignal.any([init.signal, ctl.signal]) : ctl.signal;
      return fetch(input, { ...init, signal });
    }
    return fetch(input, init);
  };
  const wire = new WireRecorder();
  const client = new McpClient({ name: 'relisten-client', version: '1', era: 'modern', middleware: [wire] });
  await client.connect(new StreamableHttpClientTransport({ url: running.url, fetch: tapped }));
  return {
    mcp,
    running,
    client,
    wire,
    saw,
    listenPosts: () => listens.length,
    breakListen: () => listens.at(-1)?.abort(new Error('connection dropped (test)')),
  };
}

const listCount = (saw: string[]) => saw.filter((m) => m === 'tools/list').length;

test('relisten: a broken listen stream is listened again, cached lists are dropped, notifications keep coming', async () => {
  const t = await setup();
  try {
    await t.client.listTools();
    await t.client.listTools();
    assert.equal(listCount(t.saw), 1, 'the second listTools was served from the cache');

    const seen: string[] = [];
    const relistened: SubscriptionFilter[] = [];
    const sub = t.client.listen({ toolsListChanged: true }, (n) => seen.push(n.method), {
      relisten: { initialDelayMs: 20 },
      onrelisten: (f) => relistened.push(f),
    });
    assert.deepEqual(await sub.acknowledged, { toolsListChanged: true });
    let ended = false;
    void sub.ended.then(() => (ended = true));

    t.breakListen();
    // Changed while no stream is open: this notification is lost, as on a real dropped connection.
    t.mcp.tool('b', () => 'b');
    await waitFor(() => relistened.length === 1, 'the listen to be acknowledged again');
    assert.deepEqual(relistened, [{ toolsListChanged: true }]);
    assert.deepEqual(seen, [], 'the change made while away was not delivered');
    assert.equal(ended, false, 'the subscription lives on');

    const listens = t.wire.messages('subscriptions/listen') as JsonRpcRequest[];
    assert.equal(listens.length, 2);
    assert.notEqual(listens[0].id, listens[1].id, 'a new request id');
    assert.deepEqual(listens[1].params, listens[0].params, 'the same filter and envelope');
    assert.equal(t.listenPosts(), 2);

    // The cached tools/list may be stale (tool b arrived unseen): it was dropped.
    const tools = await t.client.listTools();
    assert.deepEqual(tools.tools.map((x) => x.name).sort(), ['a', 'b']);
    assert.equal(listCount(t.saw), 2);

    // The new stream carries notifications, tagged with the new id, to the same subscription.
    t.mcp.tool('c', () => 'c');
    await waitFor(() => seen.length === 1, 'a list_changed on the new stream');
    assert.deepEqual(seen, ['notifications/tools/list_changed']);
    const tagged = t.wire.messages('notifications/tools/list_changed').at(-1);
    assert.equal((tagged?.params?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/subscriptionId'], listens[1].id);

    await sub.close();
    // `ended` settles once the listen loop has returned: every listen it sent is counted, and no
    // other can follow.
    await sub.ended;
    assert.equal(t.listenPosts(), 2, 'closed by us: not listened again');
  } finally {
    await t.client.close();
    await t.running.close();
  }
});

test('relisten: false ends the subscription when its stream breaks', async () => {
  const t = await setup();
  try {
    const sub = t.client.listen({ toolsListChanged: true }, () => {}, { relisten: false });
    await sub.acknowledged;
    t.breakListen();
    // `ended` settles once the listen loop has returned: every listen it sent is counted, and no
    // other can follow.
    await sub.ended;
    assert.equal(t.listenPosts(), 1);
    assert.equal(t.client.connected, true, 'the client itself is fine');
  } finally {
    await t.client.close();
    await t.running.close();
  }
});

test('relisten: gives up after maxAttempts failures in a row when the server is gone', async () => {
  const t = await setup();
  try {
    const relistened: unknown[] = [];
    const sub = t.client.listen({ toolsListChanged: true }, () => {}, {
      relisten: { initialDelayMs: 10, maxAttempts: 3 },
      onrelisten: (f) => relistened.push(f),
    });
    await sub.acknowledged;
    await t.running.close();
    t.breakListen();
    await sub.ended;
    // The lost one, then three refused attempts.
    assert.equal(t.listenPosts(), 4);
    assert.deepEqual(relistened, []);
  } finally {
    await t.client.close();
  }
});

test('relisten: a server error answer is not retried', async () => {
  const t = await setup();
  try {
    // A listen without a filter object is a -32602 answer, which would only come back the same.
    const sub = t.client.listen(null as unknown as SubscriptionFilter, () => {}, { relisten: { initialDelayMs: 10 } });
    await assert.rejects(sub.acknowledged);
    // `ended` settles once the listen loop has returned: every listen it sent is counted, and no
    // other can follow.
    await sub.ended;
    assert.equal(t.listenPosts(), 1);
  } finally {
    await t.client.close();
    await t.running.close();
  }
});
