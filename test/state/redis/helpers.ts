// Shared by the Redis store tests (not a test file itself): a connection to the real Redis that
// fails loudly when there is none, a key prefix unique to this run, cleanup, and an SSE reader.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { SseReader as HttpSseReader, type SseEvent } from '../../serving/http/helpers.js';

export const REDIS_URL = process.env.MCPKIT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Unique per test file run: parallel runs and leftovers never meet. */
export const PREFIX = `mcpkit-test:${process.pid}-${randomBytes(4).toString('hex')}:`;

const clients: Redis[] = [];

/**
 * A connected client, or a failure that says what is missing. These tests never skip: CI
 * provisions Redis (see .ci/run), so no Redis is a broken setup, not a reason to pass.
 */
export async function connectRedis(): Promise<Redis> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1, retryStrategy: () => null });
  let cause: Error | undefined;
  client.on('error', (e: Error) => (cause ??= e)); // the socket's reason (ECONNREFUSED...), kept for the message
  try {
    await client.connect();
    assert.equal(await client.ping(), 'PONG');
  } catch (e) {
    client.disconnect();
    throw new Error(
      `Redis is not reachable at ${REDIS_URL} (${(cause ?? (e as Error)).message}). The Redis store tests need a real Redis: ` +
        `.ci/run installs and starts one; locally run \`redis-server --daemonize yes --save '' --appendonly no\`.`,
    );
  }
  clients.push(client);
  return client;
}

/** Deletes every key this run made and closes the clients. */
export async function cleanup(): Promise<void> {
  const c = clients[0];
  if (c) {
    let cursor = '0';
    do {
      const [next, keys] = await c.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await c.del(...keys);
    } while (cursor !== '0');
  }
  await Promise.all(clients.splice(0).map((x) => x.quit().catch(() => x.disconnect())));
}

/** The HTTP tests' SSE reader, skipping keep-alive and priming blocks that carry no message. */
export class SseReader extends HttpSseReader {
  override async next(timeoutMs = 3000): Promise<SseEvent | undefined> {
    for (;;) {
      const e = await super.next(timeoutMs);
      if (!e || e.id !== undefined || e.data !== undefined) return e;
    }
  }

  /** Every remaining event with a message, until the server ends the stream. */
  async messages(timeoutMs = 3000): Promise<Array<{ id: string; message: Record<string, any> }>> {
    const out: Array<{ id: string; message: Record<string, any> }> = [];
    for (let e = await this.next(timeoutMs); e; e = await this.next(timeoutMs)) {
      if (e.data) out.push({ id: e.id!, message: JSON.parse(e.data) });
    }
    return out;
  }
}
