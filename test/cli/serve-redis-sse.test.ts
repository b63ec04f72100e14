// `mcpkit serve --redis` and the deprecated HTTP+SSE transport behind a balancer that is not
// sticky: the official v1 SDK client's stream on instance A, every one of its POSTs on B.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { REDIS_URL, SseReader } from '../state/redis/helpers.js';
import { tempDir, waitFor } from '../support/index.js';
import { Balancer, startInstance, stopInstance, uniquePrefix, type Instance } from './redis-helpers.js';

const started: Instance[] = [];
const lb = new Balancer();
after(async () => {
  await lb.close();
  await Promise.allSettled(started.map(stopInstance));
});

test('serve --redis: an HTTP+SSE session with its stream on A and its POSTs on B; A killed, 404', async () => {
  const prefix = uniquePrefix();
  const [a, b] = await Promise.all(['A', 'B'].map((n) => startInstance(n, REDIS_URL, prefix)));
  started.push(a!, b!);
  lb.route = (r) => (r.method === 'GET' ? a : b);
  await lb.start();
  const base = new URL(lb.url).origin;

  const client = new Client({ name: 'sdk-sse', version: '1.0.0' }, { capabilities: {} });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  await client.connect(new SSEClientTransport(new URL(`${base}/sse`)));
  try {
    assert.ok(lb.seen.includes('B initialize'), lb.seen.join(', '));
    const tools = await client.listTools();
    assert.ok(
      tools.tools.some((t) => t.name === 'steps'),
      'tools/list answered',
    );
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    assert.match((who.content as Array<{ text: string }>)[0]!.text, /^A .* sdk-sse$/, 'A, which holds the stream, ran it');
    const gate = join(tempDir('serve-redis-sse'), 'open');
    const seen: number[] = [];
    const call = client.callTool({ name: 'steps', arguments: { gate } }, undefined, { onprogress: (p) => seen.push(p.progress) });
    // Progress 1 comes alone, before the gate; then the rest.
    await waitFor(() => seen.includes(1), 'progress 1 from A');
    writeFileSync(gate, '');
    const steps = await call;
    assert.equal((steps.content as Array<{ text: string }>)[0]!.text, 'all steps done on A');
    // Progress travels on A's stream as without a bus. The v1 SDK drops progress it reads in
    // one chunk with the result, which a loaded machine can cause after the gate (serve keeps
    // the default 10 ms gap; the in-process test widens it and checks all three).
    assert.equal(seen[0], 1);
    assert.deepEqual(
      seen,
      [1, 2, 3].filter((n) => seen.includes(n)),
    );
    assert.ok(!lb.seen.some((s) => s.startsWith('A ') && s !== 'A GET'), `only the stream went to A: ${lb.seen.join(', ')}`);
    // The drop above shows as this complaint; anything else is a failure.
    assert.deepEqual(
      errors.filter((e) => !e.includes('progress notification for an unknown token')),
      [],
    );
  } finally {
    await client.close();
  }

  // The stream's instance dies: B finds no holder, and the session's POSTs are unknown.
  const abort = new AbortController();
  const r = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
  const endpoint = (await new SseReader(r).next())?.data;
  assert.match(endpoint ?? '', /^\/messages\?sessionId=/);
  await stopInstance(a!);
  abort.abort();
  const res = await fetch(base + endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(res.status, 404);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /unknown or closed SSE session/);
});
