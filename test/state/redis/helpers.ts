// Shared by the Redis store tests (not a test file itself): a connection to the real Redis that
// fails loudly when there is none, a key prefix unique to this run, cleanup, and a tiny SSE reader.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

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

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `cond()` holds, or fails with `what`. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export interface SseEvent {
  id?: string;
  data?: string;
}

/** Reads one SSE event block at a time from a fetch Response. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private ended = false;

  constructor(res: Response) {
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    this.reader = res.body!.getReader();
  }

  /** The next block that has an id or data (keep-alive comments skipped); undefined at the end. */
  async next(timeoutMs = 3000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const cut = this.buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut + 2);
        const e = parseBlock(block);
        if (e.id !== undefined || e.data !== undefined) return e;
        continue;
      }
      if (this.ended) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no SSE event within ${timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
      });
      try {
        const { done, value } = await Promise.race([this.reader.read(), timeout]);
        if (done) this.ended = true;
        else this.buffer += this.decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Every remaining event with a message, until the server ends the stream. */
  async rest(timeoutMs = 3000): Promise<Array<{ id: string; message: Record<string, any> }>> {
    const out: Array<{ id: string; message: Record<string, any> }> = [];
    for (let e = await this.next(timeoutMs); e; e = await this.next(timeoutMs)) {
      if (e.data) out.push({ id: e.id!, message: JSON.parse(e.data) });
    }
    return out;
  }
}

function parseBlock(block: string): SseEvent {
  const e: SseEvent = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') e.data = e.data === undefined ? value : `${e.data}\n${value}`;
    else if (field === 'id') e.id = value;
  }
  return e;
}
