import type { TaskRecord, TaskStore } from '../task-store.js';
import { checkPrefix, replyText, toCommand, type RedisClientLike, type RedisCommand } from './client.js';
import type { RedisInstanceLease } from './lease.js';

export interface RedisTaskStoreOptions {
  /** An ioredis or node-redis client (connected), or a raw command function. */
  client: RedisClientLike;
  /** Namespace of every key; a task's key is `<prefix>task:<taskId>`. Default 'mcpkit:'. */
  keyPrefix?: string;
  /**
   * This instance's lease. With it, every task records the instance that runs it, and a task
   * still `working` (or `input_required`) whose instance is gone (its lease expired: killed,
   * crashed, cut off) is marked `failed` by whichever instance reads it next, instead of staying
   * unfinished until its TTL.
   */
  lease?: RedisInstanceLease;
}

/** Task ids reach `get` from request params: anything a server would not mint is unknown. */
const TASK_ID = /^[\x21-\x7e]{1,256}$/;

/**
 * Replaces a record unless it is gone or already terminal, keeping its TTL, in one step: a task
 * cancelled on one instance must stay cancelled when the instance running it finishes later.
 */
const PUT_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local ok, rec = pcall(cjson.decode, cur)
if ok and type(rec) == 'table' and type(rec.task) == 'table' then
  local s = rec.task.status
  if s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1`;

/** What `failed` carries for a task whose instance is gone. */
export const ORPHANED_TASK_MESSAGE = 'The server instance running this task stopped before it finished (its lease ran out); start the task again';

/** A task as stored with a lease: which instance runs it. */
type LeasedRecord = TaskRecord & { instance?: string };

/**
 * Task state of the tasks extension in Redis, so that any instance behind a load balancer can
 * answer `tasks/get` for a task another one runs. One JSON value per task with a TTL equal to
 * the task's (`SET … PX`): Redis drops expired tasks itself. Terminal states never change here,
 * whichever instance writes. The running handler and its open questions stay in the process that
 * runs the task: `tasks/update` and an effective `tasks/cancel` must reach that instance (route
 * `tasks/*` by the `Mcp-Name` header, which carries the taskId); elsewhere a cancel marks the
 * task cancelled and an update is acknowledged only. See docs/scaling.md.
 */
export class RedisTaskStore implements TaskStore {
  private readonly command: RedisCommand;
  private readonly prefix: string;
  private readonly lease: RedisInstanceLease | undefined;

  constructor(options: RedisTaskStoreOptions) {
    this.command = toCommand(options.client);
    this.lease = options.lease;
    this.prefix = `${checkPrefix(options.keyPrefix ?? 'mcpkit:')}task:`;
  }

  /** The Redis key of a task (for inspection and tests). */
  key(taskId: string): string {
    return this.prefix + taskId;
  }

  async create(record: TaskRecord): Promise<void> {
    const id = record.task.taskId;
    if (typeof id !== 'string' || !TASK_ID.test(id)) throw new TypeError('taskId must be 1 to 256 visible ASCII characters');
    const args = ['SET', this.key(id), JSON.stringify(this.stamp(record)), 'NX'];
    if (record.expiresAt !== null) args.push('PX', String(Math.max(1, Math.ceil(record.expiresAt - Date.now()))));
    // NX: a second task under an existing id would hand one client another's task.
    if ((await this.command(args, args[1])) === null) throw new Error(`task ${id} already exists in Redis`);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    if (typeof taskId !== 'string' || !TASK_ID.test(taskId)) return undefined;
    const key = this.key(taskId);
    const text = replyText(await this.command(['GET', key], key));
    const record = text === undefined ? undefined : parseRecord(text, taskId);
    if (record === undefined || (record.expiresAt !== null && record.expiresAt <= Date.now())) return undefined;
    return this.orphaned(record, key);
  }

  /** With a lease: the running instance goes into the record, for others to check on. */
  private stamp(record: TaskRecord): TaskRecord {
    return this.lease ? ({ ...record, instance: this.lease.instanceId } as LeasedRecord) : record;
  }

  /** A task left unfinished by an instance that is gone becomes `failed` (once, for everyone). */
  private async orphaned(record: LeasedRecord, key: string): Promise<TaskRecord> {
    const { instance, ...plain } = record;
    const status = plain.task.status;
    if (!this.lease || instance === undefined || status === 'completed' || status === 'failed' || status === 'cancelled') return plain;
    if (await this.lease.alive(instance)) return plain;
    const task = {
      ...plain.task,
      status: 'failed' as const,
      statusMessage: ORPHANED_TASK_MESSAGE,
      lastUpdatedAt: new Date().toISOString(),
      error: { code: -32603, message: ORPHANED_TASK_MESSAGE },
    };
    const failed: TaskRecord = { ...plain, task };
    delete (failed.task as { inputRequests?: unknown }).inputRequests;
    // The script keeps a terminal state another instance wrote meanwhile; read back what won.
    await this.command(['EVAL', PUT_SCRIPT, '1', key, JSON.stringify(failed)], key);
    const text = replyText(await this.command(['GET', key], key));
    const now = text === undefined ? undefined : parseRecord(text, plain.task.taskId);
    if (now === undefined) return failed;
    const { instance: _, ...stored } = now as LeasedRecord;
    return stored;
  }

  async put(record: TaskRecord): Promise<void> {
    const key = this.key(record.task.taskId);
    await this.command(['EVAL', PUT_SCRIPT, '1', key, JSON.stringify(this.stamp(record))], key);
  }

  async delete(taskId: string): Promise<void> {
    if (typeof taskId !== 'string' || !TASK_ID.test(taskId)) return;
    const key = this.key(taskId);
    await this.command(['DEL', key], key);
  }
}

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/**
 * What is read back is checked, not trusted: a value another program left under our key must not
 * become a task (nor someone else's task under this id).
 */
function parseRecord(text: string, taskId: string): TaskRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Partial<TaskRecord>;
  const t = r.task as Partial<TaskRecord['task']> | undefined;
  if (typeof t !== 'object' || t === null || t.taskId !== taskId || !STATUSES.has(t.status as string)) return undefined;
  if (typeof t.createdAt !== 'string' || typeof t.lastUpdatedAt !== 'string') return undefined;
  if (r.owner !== null && typeof r.owner !== 'string') return undefined;
  if (r.expiresAt !== null && typeof r.expiresAt !== 'number') return undefined;
  return r as TaskRecord;
}
