import type { SessionRecord, SessionStore } from '../session-store.js';
import { checkPrefix, replyText, toCommand, ttlArg, type RedisClientLike, type RedisCommand } from './client.js';

export interface RedisSessionStoreOptions {
  /** An ioredis or node-redis client (connected), or a raw command function. */
  client: RedisClientLike;
  /** Namespace of every key; the session key is `<prefix>session:<id>`. Default 'mcpkit:'. */
  keyPrefix?: string;
}

/**
 * Session ids reach `get` straight from a request header: anything that is not what a server
 * mints (visible ASCII, as the spec requires, and short) is unknown without asking Redis.
 */
const SESSION_ID = /^[\x21-\x7e]{1,256}$/;

/**
 * Handshake-era sessions in Redis, so every instance behind a load balancer can serve a session
 * another one opened. One JSON value per session with a TTL (`SET … PX`): Redis forgets idle
 * sessions by itself, and no instance has to sweep.
 */
export class RedisSessionStore implements SessionStore {
  private readonly command: RedisCommand;
  private readonly prefix: string;

  constructor(options: RedisSessionStoreOptions) {
    this.command = toCommand(options.client);
    this.prefix = `${checkPrefix(options.keyPrefix ?? 'mcpkit:')}session:`;
  }

  /** The Redis key of a session (for inspection and tests). */
  key(id: string): string {
    return this.prefix + id;
  }

  /** Reads without extending the TTL: only `set` and `touch` say the session is in use. */
  async get(id: string): Promise<SessionRecord | undefined> {
    if (typeof id !== 'string' || !SESSION_ID.test(id)) return undefined;
    const text = replyText(await this.run(['GET', this.key(id)]));
    return text === undefined ? undefined : parseRecord(text);
  }

  async set(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    if (typeof id !== 'string' || !SESSION_ID.test(id)) throw new TypeError('session id must be 1 to 256 visible ASCII characters');
    const px = ttlArg(ttlMs, 'ttlMs');
    if (!parseRecord(JSON.stringify(record))) throw new TypeError('record needs a protocolVersion string and a clientCapabilities object');
    await this.run(['SET', this.key(id), JSON.stringify(record), 'PX', px]);
  }

  /**
   * Extends a session's life without rewriting it (`PEXPIRE`). The HTTP core calls it now and
   * then for a session in use (see `sessionCheckMs`); false, the session is gone (deleted on
   * another instance, or expired), tells the instance holding it to end it.
   */
  async touch(id: string, ttlMs: number): Promise<boolean> {
    if (typeof id !== 'string' || !SESSION_ID.test(id)) return false;
    return Number(await this.run(['PEXPIRE', this.key(id), ttlArg(ttlMs, 'ttlMs')])) === 1;
  }

  async delete(id: string): Promise<void> {
    if (typeof id !== 'string' || !SESSION_ID.test(id)) return;
    await this.run(['DEL', this.key(id)]);
  }

  /** Every command here has its key right after the command name. */
  private run(args: string[]): Promise<unknown> {
    return this.command(args, args[1]);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What is read back is checked, not trusted: a value another program left under our key must
 * not become a session with odd capabilities. Anything malformed is simply no session.
 */
function parseRecord(text: string): SessionRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(v) || typeof v.protocolVersion !== 'string' || !isObject(v.clientCapabilities)) return undefined;
  const record: SessionRecord = { protocolVersion: v.protocolVersion, clientCapabilities: v.clientCapabilities };
  const info = v.clientInfo;
  if (info !== undefined) {
    if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return undefined;
    record.clientInfo = info as unknown as NonNullable<SessionRecord['clientInfo']>;
  }
  if (v.principal !== undefined) {
    if (typeof v.principal !== 'string') return undefined;
    record.principal = v.principal;
  }
  return record;
}
