import type { TaskRecord, TaskStore } from '../task-store.js';
import { checkPrefix, replyText, toCommand, type RedisClientLike, type RedisCommand } from './client.js';

export interface RedisTaskStoreOptions {
  /** An ioredis or node-redis client (connected), or a raw command function. */
  client: RedisClientLike;
  /** Namespace of every key; a task's key is `<prefix>task:<taskId>`. Default 'mcpkit:'. */
  keyPrefix?: string;
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

  constructor(options: RedisTaskStoreOptions) {
    this.command = toCommand(options.client);
    this.prefix = `${checkPrefix(options.keyPrefix ?? 'mcpkit:')}task:`;
  }

  /** The Redis key of a task (for inspection and tests). */
  key(taskId: string): string {
    return this.prefix + taskId;
  }

  async create(record: TaskRecord): Promise<void> {
    const id = record.task.taskId;
    if (typeof id !== 'string' || !TASK_ID.test(id)) throw new TypeError('taskId must be 1 to 256 visible ASCII characters');
    const args = ['SET', this.key(id), JSON.stringify(record), 'NX'];
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
    return record;
  }

  async put(record: TaskRecord): Promise<void> {
    const key = this.key(record.task.taskId);
    await this.command(['EVAL', PUT_SCRIPT, '1', key, JSON.stringify(record)], key);
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
