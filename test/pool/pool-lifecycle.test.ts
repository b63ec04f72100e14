// ServerPool lifecycles: servers given in code (a transport factory, a connected client), an
// HTTP server that restarts (a new session, tools listed again), giving up after maxAttempts,
// and close() while a retry is pending (no timer, no further attempt).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpClient } from '../../src/client/client.js';
import { serve } from '../../src/serving/node.js';
import { ServerPool, type PoolEvent, type PoolEventOf, type PoolEventType } from '../../src/pool/pool.js';
import { ServerUnavailableError } from '../../src/pool/errors.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { createLinkedPair } from '../../src/transports/memory/index.js';
import { ManualClock, waitFor, within } from '../support/index.js';

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

function server(name: string, tools: string[]): McpServer {
  const mcp = new McpServer({ name, version: '1.0.0' });
  for (const t of tools) mcp.tool(t, { input: { text: z.string() } }, ({ text }) => `${name}/${t}:${text}`);
  return mcp;
}

function next<T extends PoolEventType>(pool: ServerPool, type: T, match: (e: PoolEventOf<T>) => boolean = () => true): Promise<PoolEventOf<T>> {
  return within(
    new Promise<PoolEventOf<T>>((resolve) => {
      const off = pool.on(type, (e) => {
        if (!match(e)) return;
        off();
        resolve(e);
      });
    }),
    `the pool's "${type}" event`,
  );
}

test('a transport factory reconnects when the connection drops; a given client is not reconnected and its tools go', async () => {
  const mcp = server('mem', ['echo']);
  const serverSides: Array<{ close(): Promise<void> }> = [];
  const clock = new ManualClock();
  const [c, s] = createLinkedPair();
  await server('given', ['hello']).connect(s);
  const given = new McpClient({ name: 'test', version: '1' });
  await given.connect(c);
  const pool = new ServerPool({
    servers: [
      {
        name: 'mem',
        transport: () => {
          const [client, srv] = createLinkedPair();
          void mcp.connect(srv);
          serverSides.push(srv);
          return client;
        },
      },
      { name: 'given', client: given },
    ],
    clock,
    retry: { initialDelayMs: 100 },
  });
  try {
    await pool.start();
    assert.deepEqual(
      pool.tools().map((t) => t.name),
      ['echo', 'hello'],
    );
    // The memory transport closes both ends: the pool sees the connection end and reconnects.
    const reconnecting = next(pool, 'reconnecting', (e) => e.server === 'mem');
    await serverSides[0].close();
    assert.equal((await reconnecting).inMs, 100);
    const up = next(pool, 'connected', (e) => e.server === 'mem');
    clock.advance(100);
    await up;
    assert.equal(serverSides.length, 2);
    assert.equal(text(await pool.call('echo', { text: 'again' })), 'mem/echo:again');
    // The given client: closed from outside, never reconnected, its tools withdrawn.
    const closed = next(pool, 'closed', (e) => e.server === 'given');
    await given.close();
    await closed;
    assert.deepEqual(
      pool.tools().map((t) => t.name),
      ['echo'],
    );
    assert.equal(pool.server('given')?.state, 'failed');
    assert.equal(pool.server('given')?.retryInMs, undefined);
  } finally {
    await pool.close();
  }
  assert.equal(clock.pending, 0);
});

test('an HTTP server restarting on the same port: the handshake session is started again and the tools listed anew', async () => {
  let running = await serve(server('v1', ['echo']), { port: 0 });
  const port = running.port;
  const pool = new ServerPool({ servers: { web: { url: running.url, era: 'handshake' } } });
  try {
    await pool.start();
    assert.equal(text(await pool.call('echo', { text: 'a' })), 'v1/echo:a');
    await running.close();
    running = await serve(server('v2', ['echo', 'extra']), { port });
    // Connections kept alive to the old process (the POST one, the GET stream's) may fail a call
    // each; that is reported with the server's name and not retried (a tool call may not be safe
    // to repeat). Then the old session id is refused (404): the client initializes again, the
    // call goes through, and the pool lists the tools again.
    let answer: unknown;
    for (let i = 0; i < 5 && !answer; i++) {
      const r = await pool.call('echo', { text: 'b' }).catch((e: unknown) => e);
      if (r instanceof Error) {
        assert.ok(r instanceof ServerUnavailableError, String(r));
        assert.match(r.message, /^Cannot reach server "web" for "echo": POST .* failed/);
      } else answer = r;
    }
    assert.equal(text(answer as { content: unknown[] }), 'v2/echo:b');
    await waitFor(() => pool.resolve('extra'), 'the new tool to be listed');
    assert.equal(text(await pool.call('extra', { text: 'd' })), 'v2/extra:d');
  } finally {
    await pool.close();
    await running.close();
  }
});

test('after maxAttempts a server is given up (no retry, clear error); close() while a retry is pending leaves no timer', async () => {
  const clock = new ManualClock();
  const events: PoolEvent[] = [];
  // Nothing listens on port 1.
  const pool = new ServerPool({
    servers: { gone: { url: 'http://127.0.0.1:1/mcp' } },
    clock,
    retry: { initialDelayMs: 10, maxAttempts: 2 },
    onEvent: (e) => events.push(e),
  });
  await pool.start();
  const failures = () => events.filter((e): e is PoolEventOf<'failed'> => e.type === 'failed');
  assert.equal(failures()[0]?.retryInMs, 10);
  clock.advance(10);
  await waitFor(() => failures().length === 2, 'the second failure');
  assert.equal(failures()[1].retryInMs, undefined, 'given up');
  assert.equal(clock.pending, 0);
  assert.equal(pool.server('gone')?.state, 'failed');
  await pool.close();

  const again = new ServerPool({ servers: { gone: { url: 'http://127.0.0.1:1/mcp' } }, clock, retry: { initialDelayMs: 10 } });
  const attempts: number[] = [];
  again.on('connecting', (e) => attempts.push(e.attempt));
  await again.start();
  assert.equal(clock.pending, 1, 'a retry is scheduled');
  assert.match(again.server('gone')?.error?.message ?? '', /fetch failed|ECONNREFUSED|connect/i);
  await again.close();
  assert.equal(clock.pending, 0, 'close() cancelled it');
  clock.advance(1000);
  assert.deepEqual(attempts, [1]);
  const err = await again.call('anything', {}).catch((e: unknown) => e);
  assert.ok(err instanceof Error && !(err instanceof ServerUnavailableError) && /No tool is named "anything"/.test(err.message));
});
