// Two mcpkit instances on two ports, sharing nothing but one Redis: what a load balancer that
// spreads a client's requests over both must be able to rely on.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve, type RunningServer, type ServeOptions } from '../../../src/serving/node.js';
import { RedisEventStore } from '../../../src/state/redis/event-store.js';
import { RedisSessionStore } from '../../../src/state/redis/session-store.js';
import { cleanup, connectRedis, PREFIX, SseReader } from './helpers.js';
import { sleep, waitFor } from '../../support/index.js';

after(cleanup);

const BOTH = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const LATEST = '2025-11-25';

/** Lets a test hold a tool call in the middle until it says so. */
let release: () => void = () => {};

function makeServer(onerror?: (e: Error) => void): McpServer {
  const mcp = new McpServer({ name: 'scaled', version: '1.0.0', onerror });
  mcp.tool('whoami', (_args, ctx) => `${ctx.protocolVersion} ${ctx.clientInfo?.name}`);
  // Progress 1, a pause the test controls, then progress 2 and 3 and the result.
  mcp.tool('steps', async (_args, ctx) => {
    const gate = new Promise<void>((resolve) => (release = resolve));
    await ctx.progress(1, 3, 'one');
    await gate;
    await ctx.progress(2, 3, 'two');
    await ctx.progress(3, 3, 'three');
    return 'all steps done';
  });
  mcp.tool('chatty', async (_args, ctx) => {
    await ctx.progress(1, 2);
    await ctx.progress(2, 2);
    return 'chatted';
  });
  return mcp;
}

interface Instance {
  running: RunningServer;
  url: string;
  events: RedisEventStore;
}

/** One instance: its own Redis connection and store objects, like a separate process. */
async function instance(mcp: McpServer, name: string, options: ServeOptions = {}): Promise<Instance> {
  const client = await connectRedis();
  const events = new RedisEventStore({ client, keyPrefix: PREFIX, instanceId: name });
  const running = await serve(mcp, { port: 0, sessionStore: new RedisSessionStore({ client, keyPrefix: PREFIX }), eventStore: events, ...options });
  return { running, url: running.url, events };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...BOTH, ...headers }, body: JSON.stringify(body), signal });
}

async function initialize(url: string, version: string): Promise<Record<string, string>> {
  const r = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'lb-client', version: '1' } },
  });
  assert.equal(r.status, 200, await r.clone().text());
  const sid = r.headers.get('mcp-session-id');
  assert.ok(sid);
  await r.text();
  return { 'mcp-session-id': sid, 'mcp-protocol-version': version };
}

/** A JSON-RPC result from either a JSON body or an SSE stream. */
async function resultOf(r: Response): Promise<Record<string, any>> {
  assert.equal(r.status, 200, await r.clone().text());
  if ((r.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const last = (await new SseReader(r).messages()).at(-1);
    assert.ok(last);
    return last.message;
  }
  return (await r.json()) as Record<string, any>;
}

test('a session initialized on A is served by B; DELETE on B ends it for instances that never held it', async () => {
  const redis = await connectRedis();
  const mcp = makeServer();
  const a = await instance(mcp, 'A');
  const b = await instance(mcp, 'B');
  const c = await instance(mcp, 'C');
  try {
    const headers = await initialize(a.url, '2025-06-18');
    const sid = headers['mcp-session-id'];
    // The record is in Redis (written once the handshake completed) with the idle TTL.
    await waitFor(async () => (await redis.exists(`${PREFIX}session:${sid}`)) === 1, 'the session record in Redis');
    assert.ok((await redis.pttl(`${PREFIX}session:${sid}`)) > 59 * 60_000);

    // Every later request goes to B, which never saw the handshake.
    assert.equal((await post(b.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status, 202);
    const list = await resultOf(await post(b.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers));
    assert.deepEqual(list.result.tools.map((t: { name: string }) => t.name).sort(), ['chatty', 'steps', 'whoami']);
    const who = await resultOf(await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } }, headers));
    assert.equal(who.result.content[0].text, '2025-06-18 lb-client', 'B serves it under what A negotiated');
    assert.equal(b.running.handler.streamable.sessionCount, 1);
    // And A still does too.
    assert.equal((await post(a.url, { jsonrpc: '2.0', id: 3, method: 'ping' }, headers)).status, 200);

    // An id Redis never heard of is 404 on every instance.
    assert.equal((await post(b.url, { jsonrpc: '2.0', id: 4, method: 'ping' }, { ...headers, 'mcp-session-id': 'nope' })).status, 404);

    const del = await fetch(b.url, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    assert.equal(await redis.exists(`${PREFIX}session:${sid}`), 0, 'gone from Redis');
    assert.equal((await post(b.url, { jsonrpc: '2.0', id: 5, method: 'ping' }, headers)).status, 404, 'B: 404');
    assert.equal((await post(c.url, { jsonrpc: '2.0', id: 6, method: 'ping' }, headers)).status, 404, 'C, which never held it: 404');
  } finally {
    await Promise.all([a.running.close(), b.running.close(), c.running.close()]);
  }
});

test('after DELETE on B, A (which still holds the session live) answers 404', async () => {
  const redis = await connectRedis();
  const mcp = makeServer();
  // Checked against Redis on every request, so the test need not wait out the default interval.
  const a = await instance(mcp, 'A', { sessionCheckMs: 0 });
  const b = await instance(mcp, 'B');
  try {
    const headers = await initialize(a.url, '2025-06-18');
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    await waitFor(() => a.running.handler.streamable.sessionCount === 1, 'A to hold the session');
    // The record is written right after the handshake, without being awaited.
    await waitFor(async () => (await redis.exists(`${PREFIX}session:${headers['mcp-session-id']}`)) === 1, 'the session record in Redis');
    const ping = await post(a.url, { jsonrpc: '2.0', id: 6, method: 'ping' }, headers);
    assert.equal(ping.status, 200, 'still there: served');
    await ping.text();
    assert.equal((await fetch(b.url, { method: 'DELETE', headers })).status, 200);
    const after = await post(a.url, { jsonrpc: '2.0', id: 7, method: 'ping' }, headers);
    assert.equal(after.status, 404);
    await after.text();
    assert.equal(a.running.handler.streamable.sessionCount, 0, 'A ended its copy');
  } finally {
    await Promise.all([a.running.close(), b.running.close()]);
  }
});

test('requests keep the Redis record alive: the core touches it (PEXPIRE) at most once per sessionCheckMs', async () => {
  const redis = await connectRedis();
  const mcp = makeServer();
  // A long idle time, so that a busy machine never lets the session run out during the test; the
  // record is written with a TTL of sessionIdleMs + sessionCheckMs.
  const idle = 60_000;
  const a = await instance(mcp, 'A', { sessionIdleMs: idle, sessionCheckMs: 300 });
  try {
    const headers = await initialize(a.url, '2025-06-18');
    const key = `${PREFIX}session:${headers['mcp-session-id']}`;
    await waitFor(async () => (await redis.exists(key)) === 1, 'the session record in Redis');
    // Older than sessionCheckMs (and then some): the next request touches it.
    await waitFor(async () => (await redis.pttl(key)) < idle - 200, { what: 'the record to age past sessionCheckMs', intervalMs: 50 });
    const ping = await post(a.url, { jsonrpc: '2.0', id: 8, method: 'ping' }, headers);
    assert.equal(ping.status, 200);
    await ping.text();
    const fresh = await redis.pttl(key);
    assert.ok(fresh > idle, `touched: the TTL is sessionIdleMs + sessionCheckMs again (${fresh})`);
  } finally {
    await a.running.close();
  }
});

/** Starts the `steps` call on A and reads up to progress 1, then cuts the connection. */
async function cutAfterFirstProgress(a: Instance, headers: Record<string, string>): Promise<{ priming: string; first: string; streamId: string }> {
  const abort = new AbortController();
  const r = await post(
    a.url,
    { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'steps', _meta: { progressToken: 'p' } } },
    headers,
    abort.signal,
  );
  assert.equal(r.status, 200);
  const sse = new SseReader(r);
  const priming = await sse.next();
  assert.ok(priming?.id && priming.data === '', 'a priming event first (2025-11-25)');
  const first = await sse.next();
  assert.ok(first?.id && first.data);
  assert.equal(JSON.parse(first.data).params.progress, 1);
  abort.abort(); // the connection to A is cut mid-call
  return { priming: priming.id, first: first.id, streamId: first.id.slice(0, first.id.lastIndexOf('#')) };
}

test('an SSE stream cut on A resumes on B with Last-Event-ID: the missed events come from Redis', async () => {
  const redis = await connectRedis();
  const mcp = makeServer();
  const a = await instance(mcp, 'A');
  const b = await instance(mcp, 'B');
  try {
    const headers = await initialize(a.url, LATEST);
    assert.equal((await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status, 202);
    const cut = await cutAfterFirstProgress(a, headers);
    assert.ok(cut.streamId.startsWith(`${headers['mcp-session-id']}/`));
    release(); // the call finishes on A while nobody is connected

    // Everything A sent after the cut is in A's Redis stream, the result last.
    const key = a.events.key(cut.streamId);
    await waitFor(async () => (await redis.xrange(key, '-', '+')).some(([, f]) => f[1].includes('"result"')), 'the result in Redis');
    const stored = (await redis.xrange(key, '-', '+')).map(([id, f]) => ({ id: `${cut.streamId}#A:${id}`, message: JSON.parse(f[1]) }));
    assert.equal(b.running.handler.streamable.sessionCount, 0, 'B never saw this session');

    const resumed = await fetch(b.url, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': cut.first } });
    assert.equal(resumed.status, 200);
    const events = await new SseReader(resumed).messages();
    assert.deepEqual(
      events.map((e) => e.message.params?.progress ?? 'result'),
      [2, 3, 'result'],
    );
    assert.equal(events[2].message.id, 10);
    assert.equal(events[2].message.result.content[0].text, 'all steps done');
    // Same ids, same messages as stored in Redis by A: B replayed the log, not something of its own.
    assert.deepEqual(events, stored.slice(1));

    // From the priming id, B replays the whole stream; a forged id is refused.
    const whole = await new SseReader(await fetch(b.url, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': cut.priming } })).messages();
    assert.deepEqual(whole, stored);
    const forged = await fetch(b.url, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': `${cut.streamId}#A:99999999999999-0x` } });
    assert.equal(forged.status, 400);
    await forged.text();
    const otherSession = await fetch(b.url, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': `someone-else/1#A:0-0` } });
    assert.equal(otherSession.status, 400, 'a stream of another session is unknown here');
    await otherSession.text();
  } finally {
    release();
    await Promise.all([a.running.close(), b.running.close()]);
  }
});

test('resuming on the instance that holds the stream takes it over live (sticky sessions)', async () => {
  const mcp = makeServer();
  const a = await instance(mcp, 'A');
  try {
    const headers = await initialize(a.url, LATEST);
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const cut = await cutAfterFirstProgress(a, headers);
    // The call is still running: the resumed GET becomes its live stream.
    const resumed = await fetch(a.url, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': cut.first } });
    assert.equal(resumed.status, 200);
    const reader = new SseReader(resumed);
    await sleep(30);
    release();
    const events = await reader.messages();
    assert.deepEqual(
      events.map((e) => e.message.params?.progress ?? 'result'),
      [2, 3, 'result'],
    );
  } finally {
    release();
    await a.running.close();
  }
});

test('two instances serving one session keep their streams apart, though both number them from 1', async () => {
  const mcp = makeServer();
  const a = await instance(mcp, 'A');
  const b = await instance(mcp, 'B');
  try {
    const headers = await initialize(a.url, LATEST);
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    /** Runs `chatty` on `on` and returns the stream's events (priming first). */
    const chat = async (on: Instance, id: number, token: string) => {
      const r = await post(on.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chatty', _meta: { progressToken: token } } }, headers);
      const reader = new SseReader(r);
      const priming = await reader.next();
      return { priming: priming!.id!, events: await reader.messages() };
    };
    const onA = await chat(a, 20, 'A-1'); // A's second stream: initialize's POST was its first
    await chat(a, 21, 'A-2');
    await chat(b, 22, 'B-1');
    const onB = await chat(b, 23, 'B-2'); // the second stream of B
    const streamA = onA.priming.slice(0, onA.priming.indexOf('#'));
    const streamB = onB.priming.slice(0, onB.priming.indexOf('#'));
    // Both number 2 on their instance, yet named apart by the HTTP core (a tag per handler).
    assert.match(streamA, new RegExp(`^${headers['mcp-session-id']}/[A-Za-z0-9_-]+\\.2$`));
    assert.match(streamB, new RegExp(`^${headers['mcp-session-id']}/[A-Za-z0-9_-]+\\.2$`));
    assert.notEqual(streamA, streamB);
    const replayed = await new SseReader(await fetch(b.url, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': onB.priming } })).messages();
    assert.deepEqual(replayed, onB.events, 'only what B sent on its stream');
    assert.deepEqual(
      replayed.map((e) => e.message.params?.progressToken ?? e.message.id),
      ['B-2', 'B-2', 23],
    );
  } finally {
    await Promise.all([a.running.close(), b.running.close()]);
  }
});

test('with Redis down, an SSE response still delivers its events (without ids) and ends', async () => {
  const errors: Error[] = [];
  const mcp = makeServer((e) => errors.push(e));
  const refused = async (): Promise<never> => {
    throw new Error('connect ECONNREFUSED');
  };
  const down = new RedisEventStore({ client: refused, keyPrefix: PREFIX, instanceId: 'down', onError: () => {} });
  const a = await instance(mcp, 'A', { eventStore: down });
  try {
    const headers = await initialize(a.url, LATEST);
    const r = await post(a.url, { jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 'chatty', _meta: { progressToken: 'x' } } }, headers);
    assert.equal(r.status, 200);
    const reader = new SseReader(r);
    const priming = await reader.next();
    assert.ok(priming?.id, 'a priming id needs no round trip');
    const events = await reader.messages();
    assert.deepEqual(
      events.map((e) => e.message.params?.progress ?? e.message.result?.content[0].text),
      [1, 2, 'chatted'],
    );
    for (const e of events) assert.equal(e.id, undefined);
    assert.equal(errors.filter((e) => /ECONNREFUSED/.test(e.message)).length, 3);
  } finally {
    await a.running.close();
  }
});
