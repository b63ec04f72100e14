// One backend that never answers tools/list used to hold every gateway request until the default
// 60 s timeout, whatever its own `timeoutMs`. Now the others serve meanwhile, its discovery is
// given up on after its own timeout (and retried), /readyz names it, and its tools arrive with
// tools/list_changed once it answers. Real HTTP backends, clients of both eras; time is a
// manual clock moved by the test, so nothing depends on the machine's speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { Server } from '../../src/server/server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway, type GatewayEvent } from '../../src/gateway/gateway.js';
import { deferred, ManualClock, waitFor, within } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

/** A backend whose first tools/list never answers (until cancelled), and whose later ones wait for `release`. */
async function slowBackend(era: 'modern' | 'handshake') {
  const server = new Server({
    name: 'slow',
    version: '1.0.0',
    capabilities: { tools: { listChanged: true } },
    ...(era === 'handshake' ? { modern: false as const } : {}),
  });
  const release = deferred();
  const firstCancelled = deferred();
  let lists = 0;
  server.setRequestHandler('tools/list', async (_params, ctx) => {
    if (++lists === 1) {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      firstCancelled.resolve();
      throw new Error('cancelled');
    }
    await release.promise;
    return { tools: [{ name: 'late', inputSchema: { type: 'object' } }] };
  });
  server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'late but here' }] }));
  const running = await serve(server, { port: 0 });
  return { running, release, firstCancelled, lists: () => lists };
}

async function fastBackend(era: 'modern' | 'handshake') {
  const server = new McpServer({ name: 'fast', version: '1.0.0', ...(era === 'handshake' ? { modern: false as const } : {}) });
  server.tool('ping', {}, () => 'pong');
  return serve(server, { port: 0 });
}

async function readyz(base: string): Promise<{ status: number; body: { status: string; reason?: string; backends: Record<string, { state: string }> } }> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as never };
}

for (const era of ['handshake', 'modern'] as const) {
  test(`a backend that never answers tools/list holds up nobody, and its tools come later (${era})`, async (t) => {
    const slow = await slowBackend(era);
    const fast = await fastBackend(era);
    const clock = new ManualClock();
    const events: GatewayEvent[] = [];
    const gateway = createGateway({
      servers: { fast: { url: fast.url, era }, slow: { url: slow.running.url, era, timeoutMs: 5_000 } },
      clock,
      onEvent: (e) => events.push(e),
    });
    const running = await gateway.listen({ port: 0 });
    const base = running.url.replace(/\/mcp$/, '');
    t.after(async () => {
      slow.release.resolve();
      await gateway.close();
      await slow.running.close();
      await fast.close();
    });
    const happened = (type: string, server: string) => events.some((e) => e.type === 'backend' && e.event.type === type && e.event.server === server);
    await waitFor(() => happened('connected', 'fast') && slow.lists() === 1, 'fast connected, slow asked for its tools');

    // Not ready, and it says which backend it waits for; fast is up.
    const starting = await readyz(base);
    assert.equal(starting.status, 503);
    assert.equal(starting.body.status, 'starting');
    assert.match(String(starting.body.reason), /"slow" is not ready yet/);
    assert.equal(starting.body.backends.fast.state, 'connected');
    assert.equal(starting.body.backends.slow.state, 'connecting');

    // Requests are served meanwhile, with what has answered (the clock has not moved: before, this waited for slow's timeout).
    const client = await connect(running.url, { era });
    t.after(() => client.close());
    let changed = 0;
    client.on('notifications/tools/list_changed', () => changed++);
    if (era === 'modern') await client.listen({ toolsListChanged: true }).acknowledged;
    const first = await within(client.listTools(), 'tools/list while slow is still discovering');
    assert.deepEqual(
      first.tools.map((x) => x.name),
      ['fast_ping'],
    );
    assert.equal(text(await within(client.callTool('fast_ping', {}), 'a call while slow is still discovering')), 'pong');
    assert.equal(slow.lists(), 1, "slow's tools/list is still unanswered");

    // Its own timeout, not the default 60 s, bounds its discovery: given up, cancelled on the backend, retried.
    clock.advance(5_000);
    const failed = await waitFor(
      () => events.find((e) => e.type === 'backend' && e.event.type === 'failed' && e.event.server === 'slow'),
      'slow to fail at its timeout',
    );
    await within(slow.firstCancelled.promise, 'the backend to see its tools/list cancelled');
    const down = await readyz(base);
    assert.equal(down.status, 200);
    assert.equal(down.body.status, 'degraded');
    assert.match(String(down.body.reason), /"slow" is down/);
    assert.ok(failed.type === 'backend' && failed.event.type === 'failed' && failed.event.retryInMs !== undefined);

    // The retry answers: its tools arrive, announced with list_changed.
    clock.advance(failed.event.retryInMs);
    await waitFor(() => slow.lists() === 2, "slow's second tools/list");
    slow.release.resolve();
    await waitFor(() => changed > 0, 'tools/list_changed');
    assert.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['fast_ping', 'slow_late']);
    assert.equal(text(await client.callTool('slow_late', {})), 'late but here');
    const ready = await readyz(base);
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    assert.equal(ready.body.backends.slow.state, 'connected');
  });
}
