// `mcpkit serve --redis`: real `mcpkit serve` processes (dist/) behind a load balancer the test
// steers, sharing one Redis: one session across three instances, a stream resumed elsewhere, an
// instance killed mid-call, a graceful shutdown, and Redis itself going away and coming back.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpClient } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/options.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/streamable.js';
import { IOREDIS_MISSING, importIoRedis } from '../../src/cli/redis.js';
import { REDIS_URL } from '../state/redis/helpers.js';
import { tempDir, waitFor, within } from '../support/index.js';
import { mcpkit } from './helpers.js';
import { Balancer, freePort, probe, startInstance, startRedis, stopInstance, stopRedis, uniquePrefix, type Instance } from './redis-helpers.js';

const started: Instance[] = [];
const clients: McpClient[] = [];
const balancers: Balancer[] = [];
after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(balancers.map((b) => b.close()));
  await Promise.allSettled(started.map(stopInstance));
});

async function instances(names: string[], extra: string[] = [], redisUrl = REDIS_URL, prefix = uniquePrefix()): Promise<Instance[]> {
  const all = await Promise.all(names.map((n) => startInstance(n, redisUrl, prefix, extra)));
  started.push(...all);
  return all;
}

async function balancer(first: Instance): Promise<Balancer> {
  const lb = new Balancer();
  lb.current = first;
  await lb.start();
  balancers.push(lb);
  return lb;
}

/** mcpkit's client over HTTP; resuming keeps trying long enough for a lease to run out. */
async function client(url: string, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  const c = new McpClient({ name: 'lb-client', version: '1.0.0', protocolVersion: '2025-11-25', ...options });
  await c.connect(new StreamableHttpClientTransport({ url, reconnect: { maxRetries: 60, initialDelayMs: 50, maxDelayMs: 200 } }));
  clients.push(c);
  return c;
}

function text(r: { content?: unknown }): string {
  return ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;
}

function gateFile(): string {
  return join(tempDir('serve-redis-gate'), 'open');
}

describe('serve --redis: many instances, one Redis', () => {
  test('three instances share one session: initialize on A, call on B, listen on C', async () => {
    const [a, b, c] = await instances(['A', 'B', 'C']);
    const lb = await balancer(a);
    let posts = a;
    // Streams and subscriptions to C; other POSTs wherever the test says.
    lb.route = (r) => (r.method === 'GET' || r.rpc === 'resources/subscribe' || r.rpc === 'subscriptions/listen' ? c : posts);
    const mcp = await client(lb.url);
    assert.ok(lb.seen.includes('A initialize'), lb.seen.join(', '));

    posts = b;
    assert.equal(text(await mcp.callTool('whoami')), 'B 2025-11-25 lb-client', 'B serves the session A opened, as negotiated');

    // Only C's copy of the session subscribes to the note, so the update can only reach the
    // client through C, over the bus, from A where it happens.
    const updated: string[] = [];
    mcp.on('notifications/resources/updated', (p: { uri: string }) => updated.push(p.uri));
    await mcp.subscribeResource('note://shared');
    await waitFor(() => lb.seen.includes('C GET'), 'the GET stream on C');
    posts = a;
    assert.equal(text(await mcp.callTool('touch')), 'touched on A');
    await waitFor(() => updated.includes('note://shared'), 'resources/updated raised on A, delivered by C');

    // The 2026-07-28 era: a listen stream on C hears what A raises.
    const modern = await client(lb.url, { protocolVersion: undefined, era: 'modern' });
    const heard: string[] = [];
    const sub = modern.listen({ promptsListChanged: true, resourceSubscriptions: ['note://shared'] }, (n) => heard.push(n.method));
    await sub.acknowledged;
    assert.ok(lb.seen.includes('C subscriptions/listen'), lb.seen.join(', '));
    assert.equal(text(await modern.callTool('touch')), 'touched on A');
    await waitFor(
      () => heard.includes('notifications/prompts/list_changed') && heard.includes('notifications/resources/updated'),
      'list_changed and resources/updated on the listen stream',
    );
    await sub.close();
  });

  test('an SSE stream cut on A resumes on B with Last-Event-ID, no event lost or doubled', async () => {
    const [a, b] = await instances(['A', 'B']);
    const lb = await balancer(a);
    const mcp = await client(lb.url);
    const gate = gateFile();
    const progress: number[] = [];
    const call = mcp.callTool('steps', { gate }, { onprogress: (p) => progress.push(p.progress) });
    await waitFor(() => progress.length === 1, 'progress 1 from A');
    lb.current = b;
    lb.cut();
    await waitFor(() => lb.seen.includes('B GET'), 'the client to resume on B');
    writeFileSync(gate, '');
    assert.equal(text(await call), 'all steps done on A');
    assert.deepEqual(progress, [1, 2, 3]);
    assert.equal(lb.seen.filter((s) => s.endsWith('tools/call')).length, 1, 'resumed, not sent again');
  });

  test('an instance killed mid-call: the session lives on, the resumed stream ends with an error, its task fails when the lease runs out', async () => {
    const [a, b] = await instances(['A', 'B'], ['--redis-lease', '1']);
    const lb = await balancer(a);
    const mcp = await client(lb.url);
    const tasks = await client(lb.url, { protocolVersion: undefined, era: 'modern', tasks: { minPollIntervalMs: 20 } });
    const started = await tasks.startToolCall('forever', { gate: gateFile() });
    assert.equal(started.resultType, 'task');
    if (started.resultType !== 'task') return;
    lb.current = b;
    assert.equal((await tasks.getTask(started.taskId)).status, 'working', 'B reads the task A runs');

    lb.current = a;
    const progress: number[] = [];
    const call = mcp.callTool('steps', { gate: gateFile() }, { onprogress: (p) => progress.push(p.progress) });
    const failed = call.then(
      () => assert.fail('the call cannot succeed: its instance died'),
      (e: unknown) => e,
    );
    await waitFor(() => progress.length === 1, 'progress 1 from A');
    lb.current = b;
    a.child.kill('SIGKILL');
    await within(a.exited, 'A to die');

    const error = await within(failed, 'the resumed call to end (never a hang)', 30_000);
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32603);
    assert.match(error.message, /server instance running this request stopped before it answered/);
    assert.deepEqual(progress, [1], 'what A stored before dying, once');
    assert.ok(lb.seen.includes('B GET'), 'resumed on B');

    assert.equal(text(await mcp.callTool('whoami')), 'B 2025-11-25 lb-client', 'the session lives on at B');
    const task = await waitFor(async () => {
      const t = await tasks.getTask(started.taskId);
      return t.status !== 'working' && t;
    }, 'the orphaned task to leave "working"');
    assert.equal(task.status, 'failed');
    assert.match(task.statusMessage ?? '', /lease ran out/);
  });

  test('SIGTERM drains: readiness 503, new requests refused, a running call finishes; past the grace it ends resumably', async () => {
    const prefix = uniquePrefix();
    const [a, b] = await instances(['A', 'B'], [], REDIS_URL, prefix);
    const lb = await balancer(a);
    const mcp = await client(lb.url);
    const gate = gateFile();
    const progress: number[] = [];
    const call = mcp.callTool('steps', { gate }, { onprogress: (p) => progress.push(p.progress) });
    await waitFor(() => progress.length === 1, 'progress 1 from A');
    assert.equal(await probe(a.base, '/readyz'), 200);
    a.child.kill('SIGTERM');
    await waitFor(async () => (await probe(a.base, '/readyz')) === 503, 'A to report draining');
    assert.equal(await probe(a.base, '/healthz'), 200, 'alive while draining');
    const refused = await fetch(`${a.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
    });
    assert.equal(refused.status, 503);
    const body = (await refused.json()) as { id: unknown; error: { message: string } };
    assert.equal(body.id, 7);
    assert.match(body.error.message, /shutting down/);
    writeFileSync(gate, '');
    assert.equal(text(await call), 'all steps done on A', 'the call running at SIGTERM finished');
    assert.equal(await within(a.exited, 'A to exit'), 0);

    // Past the grace: the stream ends without its answer, the client resumes on B, and learns at
    // once that the call died (A gave its lease up).
    const [c] = await instances(['C'], ['--shutdown-grace', '0.1'], REDIS_URL, prefix);
    lb.current = c;
    const progressC: number[] = [];
    const cut = mcp.callTool('steps', { gate: gateFile() }, { onprogress: (p) => progressC.push(p.progress) });
    const outcome = cut.then(
      () => assert.fail('no answer can come'),
      (e: unknown) => e,
    );
    await waitFor(() => progressC.length === 1, 'progress 1 from C');
    lb.current = b;
    c.child.kill('SIGTERM');
    const error = await within(outcome, 'the call cut by the shutdown to end');
    assert.ok(error instanceof McpError, String(error));
    assert.match(error.message, /stopped before it answered/);
    assert.equal(await within(c.exited, 'C to exit'), 0);
    assert.ok(!lb.seen.includes('C initialize') && !lb.seen.includes('B initialize'), `one session throughout: ${lb.seen.join(', ')}`);
    assert.equal(text(await mcp.callTool('whoami')), 'B 2025-11-25 lb-client', 'the session was handed over');
  });

  test('Redis restarted: requests fail fast with 503 meanwhile, readiness follows, service resumes without a restart', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    try {
      const [a] = await instances(['A'], [], `redis://127.0.0.1:${port}`);
      const mcp = await client(`${a.base}/mcp`);
      assert.equal(text(await mcp.callTool('whoami')), 'A 2025-11-25 lb-client');
      assert.equal(await probe(a.base, '/readyz'), 200);

      await stopRedis(redis);
      await waitFor(async () => (await probe(a.base, '/readyz')) === 503, 'readiness to turn 503');
      assert.equal(await probe(a.base, '/healthz'), 200);
      const during = await within(
        fetch(`${a.base}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 'during', method: 'tools/call', params: { name: 'whoami' } }),
        }),
        'an answer during the outage',
      );
      assert.equal(during.status, 503);
      const body = (await during.json()) as { id: unknown; error: { code: number; message: string } };
      assert.equal(body.id, 'during');
      assert.equal(body.error.code, -32603);
      assert.match(body.error.message, /^Service Unavailable: Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/);
      await assert.rejects(within(mcp.callTool('whoami'), 'the client call during the outage'), /Redis at .* is unreachable/);
      await waitFor(() => /Redis at .* is unreachable/.test(a.stderr()), 'the outage reported on stderr');

      redis = await startRedis(port);
      await waitFor(async () => (await probe(a.base, '/readyz')) === 200, 'readiness to come back');
      // The restarted Redis kept nothing (no persistence): clients start a new session.
      const again = await client(`${a.base}/mcp`);
      assert.equal(text(await again.callTool('whoami')), 'A 2025-11-25 lb-client');
      await waitFor(() => /reachable again/.test(a.stderr()), 'the recovery reported on stderr');
    } finally {
      await stopRedis(redis);
    }
  });
});

describe('serve --redis: setup mistakes', () => {
  test('no ioredis: one line saying what to install', async () => {
    const missing = Object.assign(new Error("Cannot find package 'ioredis'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await assert.rejects(
      importIoRedis(() => Promise.reject(missing)),
      (e: Error) => e.message === IOREDIS_MISSING && !e.message.includes('\n'),
    );
    assert.match(IOREDIS_MISSING, /npm i ioredis/);
  });

  test('a bad URL, --stdio, --stateless, an unreachable Redis', async () => {
    const bad = await mcpkit(['serve', '--redis', 'http://127.0.0.1:6379']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--redis: expected a redis:\/\/ or rediss:\/\/ URL/);
    const stdio = await mcpkit(['serve', '--stdio', '--redis', REDIS_URL]);
    assert.equal(stdio.code, 2);
    assert.match(stdio.stderr, /serve --redis: shares HTTP sessions/);
    const stateless = await mcpkit(['serve', '--stateless', '--port', '0', '--redis', REDIS_URL]);
    assert.equal(stateless.code, 2);
    assert.match(stateless.stderr, /--stateless has none/);
    const port = await freePort();
    const down = await mcpkit(['serve', '--port', '0', '--redis', `redis://127.0.0.1:${port}`]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(down.stderr, /\n\s+at /, 'no stack trace');
  });
});
