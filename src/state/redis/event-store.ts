import { randomBytes } from 'node:crypto';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/messages.js';
import type { EventStore } from '../event-store.js';
import { asError, checkPrefix, defaultOnError, replyText, toCommand, ttlArg, type RedisClientLike, type RedisCommand } from './client.js';
import type { RedisInstanceLease } from './lease.js';

export interface RedisEventStoreOptions {
  /** An ioredis or node-redis client (connected), or a raw command function. */
  client: RedisClientLike;
  /** Namespace of every key; a stream's key is `<prefix>events:<instanceId>:<streamId>`. Default 'mcpkit:'. */
  keyPrefix?: string;
  /**
   * Events kept per stream; older ones are trimmed. Approximate (`MAXLEN ~`): Redis trims whole
   * internal nodes, so a stream may briefly hold up to about a hundred more. Default 1000.
   */
  maxEventsPerStream?: number;
  /** A stream is forgotten this long after its last event. Default 15 minutes. */
  streamTtlMs?: number;
  /**
   * Names this store's streams apart from other instances' (letters, digits, `_`, `-`; at most
   * 64). Default: random per store. Give each HTTP handler its own store.
   */
  instanceId?: string;
  /** Where a failed background `dropStream` is reported. Default: stderr. */
  onError?: (error: Error) => void;
  /**
   * This instance's lease (its `instanceId` becomes the store's). With it, a client resuming a
   * stream whose instance is gone (its lease expired, or it gave it up when shutting down) gets
   * what was stored and then a JSON-RPC error for each request the stream never answered,
   * instead of a stream that ends and ends again. Every event then records the requests its
   * stream answers.
   */
  lease?: RedisInstanceLease;
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** A Redis stream entry id: `<ms>-<seq>`, both 64-bit unsigned. */
const ENTRY_ID = /^(\d{1,20})-(\d{1,20})$/;
const FIRST = '0-0';
/** A Last-Event-ID is client input that becomes a Redis key: bounded. */
const MAX_EVENT_ID = 1024;
const PAGE = 256;
const U64_MAX = (1n << 64n) - 1n;

/**
 * Append, trim and refresh the TTL as one step, so that no stream can be left without an expiry
 * (two separate commands could be cut apart by a lost connection).
 */
const APPEND = `local f = {'m', ARGV[3]}
if ARGV[4] ~= nil and ARGV[4] ~= '' then f[3] = 'r'; f[4] = ARGV[4] end
if ARGV[5] == '1' then f[#f + 1] = 'd'; f[#f + 1] = '1' end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(f))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id`;

/**
 * Answers for a stream whose instance is gone, in one step (two resuming clients must not both
 * add them): unless the last event is a response (`d`), one error per request the stream
 * answers (`r`), each stored as the stream's next event. Returns `[entryId, message, ...]`.
 */
const ABANDON = `local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 then return {} end
local f = last[1][2]
local ids = nil
for i = 1, #f, 2 do
  if f[i] == 'd' then return {} end
  if f[i] == 'r' then ids = f[i + 1] end
end
if not ids then return {} end
local out = {}
for _, id in ipairs(cjson.decode(ids)) do
  local m = cjson.encode({jsonrpc = '2.0', id = id, error = {code = -32603, message = ARGV[3]}})
  out[#out + 1] = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', m, 'd', '1')
  out[#out + 1] = m
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return out`;

/** What a client resuming a stream of a dead instance reads for each unanswered request. */
export const ABANDONED_MESSAGE =
  'The server instance running this request stopped before it answered (it was killed, crashed or shut down); ' +
  'the events it sent before were delivered. Send the request again.';

/**
 * The SSE event log in Redis Streams, so a client cut off from one instance can resume on any
 * other. Event ids are `<streamId>#<instanceId>:<entryId>`: the stream and the instance that
 * wrote it are in the id (any instance can find the log), and the entry id is the one Redis
 * assigned (monotonic per stream). A priming id needs no round trip: entry `0-0` precedes all.
 *
 * mcpkit's HTTP core names streams apart per handler already (a random tag in every stream id);
 * the instance part keeps logs apart even for a core that numbers streams per process only, and
 * tells this instance's streams from others': `replayEventsAfter` returns the bare stream id for
 * this instance's streams (so a live stream can be taken over) and the tagged id for another
 * instance's, which matches no local stream: what is stored is replayed and the response ends.
 */
export class RedisEventStore implements EventStore {
  readonly instanceId: string;
  private readonly command: RedisCommand;
  private readonly prefix: string;
  private readonly maxLen: string;
  private readonly ttl: string;
  private readonly onError: (error: Error) => void;
  private readonly lease: RedisInstanceLease | undefined;

  constructor(options: RedisEventStoreOptions) {
    this.command = toCommand(options.client);
    const max = options.maxEventsPerStream ?? 1000;
    if (!Number.isInteger(max) || max < 1) throw new RangeError('maxEventsPerStream must be a positive integer');
    this.maxLen = String(max);
    this.ttl = ttlArg(options.streamTtlMs ?? 15 * 60_000, 'streamTtlMs');
    this.lease = options.lease;
    if (this.lease && options.instanceId !== undefined && options.instanceId !== this.lease.instanceId)
      throw new TypeError("instanceId must be the lease's instanceId (or left out)");
    this.instanceId = options.instanceId ?? this.lease?.instanceId ?? randomBytes(6).toString('base64url');
    if (!INSTANCE_ID.test(this.instanceId)) throw new TypeError('instanceId must be 1 to 64 letters, digits, "_" or "-"');
    this.prefix = `${checkPrefix(options.keyPrefix ?? 'mcpkit:')}events:`;
    this.onError = options.onError ?? defaultOnError;
  }

  /** The Redis key of one instance's log of a stream (for inspection and tests). */
  key(streamId: string, instanceId: string = this.instanceId): string {
    return `${this.prefix}${instanceId}:${streamId}`;
  }

  async storeEvent(streamId: string, message: JsonRpcMessage, requestIds?: readonly RequestId[]): Promise<string> {
    checkStreamId(streamId);
    const key = this.key(streamId);
    const args = ['EVAL', APPEND, '1', key, this.maxLen, this.ttl, JSON.stringify(message)];
    // Only a lease ever reads them back: without one, events stay as small as they were.
    if (this.lease && requestIds && requestIds.length > 0) args.push(JSON.stringify(requestIds), 'id' in message && !('method' in message) ? '1' : '0');
    const reply = await this.command(args, key);
    const entry = replyText(reply);
    if (entry === undefined || !ENTRY_ID.test(entry)) throw new Error(`unexpected XADD reply: ${String(reply)}`);
    return this.eventId(streamId, this.instanceId, entry);
  }

  primingEventId(streamId: string): string {
    checkStreamId(streamId);
    return this.eventId(streamId, this.instanceId, FIRST);
  }

  async replayEventsAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> {
    const at = parseEventId(lastEventId);
    if (!at) return undefined;
    const key = this.key(at.streamId, at.instanceId);
    let start = nextEntry(at.entry);
    let sent = 0;
    while (start !== undefined) {
      const page = await this.command(['XRANGE', key, start, '+', 'COUNT', String(PAGE)], key);
      const entries = Array.isArray(page) ? page : [];
      for (const entry of entries) {
        const parsed = readEntry(entry);
        if (!parsed) {
          this.onError(new Error(`skipped a malformed entry in ${key}`));
          continue;
        }
        let message: JsonRpcMessage;
        try {
          message = JSON.parse(parsed.data) as JsonRpcMessage;
        } catch {
          this.onError(new Error(`skipped an unreadable event ${parsed.id} in ${key}`));
          continue;
        }
        send(this.eventId(at.streamId, at.instanceId, parsed.id), message);
        sent++;
      }
      const lastId = entries.length < PAGE ? undefined : replyText((entries[entries.length - 1] as unknown[])[0]);
      start = lastId !== undefined && ENTRY_ID.test(lastId) ? nextEntry(lastId) : undefined;
    }
    // Nothing after it: fine for a stream that is there, or for a priming id (a stream that has
    // logged nothing yet has no key). Past events of a stream that is gone: unknown or expired.
    if (sent === 0 && at.entry !== FIRST && Number(await this.command(['EXISTS', key], key)) !== 1) return undefined;
    if (this.lease && at.instanceId !== this.instanceId && !(await this.lease.alive(at.instanceId))) await this.abandon(key, at, send);
    return at.instanceId === this.instanceId ? at.streamId : `${at.streamId}#${at.instanceId}`;
  }

  /** Ends a dead instance's stream with an error for each request it left unanswered. */
  private async abandon(key: string, at: { streamId: string; instanceId: string }, send: (eventId: string, message: JsonRpcMessage) => void): Promise<void> {
    const reply = await this.command(['EVAL', ABANDON, '1', key, this.maxLen, this.ttl, ABANDONED_MESSAGE], key);
    const out = Array.isArray(reply) ? reply : [];
    for (let i = 0; i + 1 < out.length; i += 2) {
      const entry = replyText(out[i]);
      const text = replyText(out[i + 1]);
      if (entry === undefined || text === undefined) continue;
      send(this.eventId(at.streamId, at.instanceId, entry), JSON.parse(text) as JsonRpcMessage);
    }
  }

  /** Frees this instance's log of a stream; another instance's expires by its TTL. */
  dropStream(streamId: string): void {
    if (typeof streamId !== 'string' || streamId.length === 0) return;
    const key = this.key(streamId);
    this.command(['DEL', key], key).catch((e: unknown) => this.onError(asError(e)));
  }

  private eventId(streamId: string, instanceId: string, entry: string): string {
    return `${streamId}#${instanceId}:${entry}`;
  }
}

function checkStreamId(streamId: string): void {
  if (typeof streamId !== 'string' || streamId.length === 0 || streamId.length > MAX_EVENT_ID / 2) {
    throw new TypeError('streamId must be a non-empty string of at most 512 characters');
  }
}

/** Splits `<streamId>#<instanceId>:<entryId>`; anything else (or anything huge) is unknown. */
function parseEventId(id: string): { streamId: string; instanceId: string; entry: string } | undefined {
  if (typeof id !== 'string' || id.length > MAX_EVENT_ID) return undefined;
  const colon = id.lastIndexOf(':');
  const hash = colon < 0 ? -1 : id.lastIndexOf('#', colon);
  if (hash <= 0) return undefined;
  const entry = id.slice(colon + 1);
  const instanceId = id.slice(hash + 1, colon);
  const m = ENTRY_ID.exec(entry);
  if (!m || !INSTANCE_ID.test(instanceId) || BigInt(m[1]) > U64_MAX || BigInt(m[2]) > U64_MAX) return undefined;
  return { streamId: id.slice(0, hash), instanceId, entry: `${BigInt(m[1])}-${BigInt(m[2])}` };
}

/**
 * The smallest entry id after `entry`: an inclusive XRANGE start that excludes `entry` itself
 * (the exclusive `(` form would need Redis 6.2).
 */
function nextEntry(entry: string): string | undefined {
  const [ms, seq] = entry.split('-').map(BigInt);
  if (seq < U64_MAX) return `${ms}-${seq + 1n}`;
  return ms < U64_MAX ? `${ms + 1n}-0` : undefined;
}

/** One XRANGE entry, `[id, [field, value, ...]]`, reduced to its id and our `m` field. */
function readEntry(entry: unknown): { id: string; data: string } | undefined {
  if (!Array.isArray(entry) || entry.length < 2) return undefined;
  const id = replyText(entry[0]);
  const fields: unknown = entry[1];
  if (id === undefined || !Array.isArray(fields)) return undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (replyText(fields[i]) === 'm') {
      const data = replyText(fields[i + 1]);
      return data === undefined ? undefined : { id, data };
    }
  }
  return undefined;
}
