import { systemClock, type Clock } from '../engine/clock.js';
import type { DetailedTask } from '../protocol/tasks.js';

/** One task as a store keeps it: its wire state plus what access control and expiry need. */
export interface TaskRecord {
  /** The task as `tasks/get` returns it (without `resultType`). */
  task: DetailedTask;
  /** The principal that created the task (null when unauthenticated): nobody else may see it. */
  owner: string | null;
  /** When the task may be dropped (ms since epoch); null: never. */
  expiresAt: number | null;
}

/**
 * Where task state lives. The live part of a task (its running handler, the promises its
 * questions wait on) stays in the process that runs it; the store holds what any instance needs
 * to answer `tasks/get`. Every method may be asynchronous, so a shared store fits behind it.
 */
export interface TaskStore {
  /**
   * Stores a new task. Resolve only once `get` finds it: SEP-2663 forbids sending the
   * CreateTaskResult before then. Reject when the task cannot be stored (e.g. the store is full).
   */
  create(record: TaskRecord): Promise<void>;
  /** The task, or undefined when it is unknown or past `expiresAt`. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Replaces a task's record after a change of state. A task already dropped stays dropped. */
  put(record: TaskRecord): Promise<void>;
  delete(taskId: string): Promise<void>;
}

/** Thrown by `TaskStore.create` (and the server's own running-task cap) when no task may start. */
export class TaskLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskLimitError';
  }
}

export interface InMemoryTaskStoreOptions {
  /** Records kept at once, finished ones included (default 10 000). Beyond it `create` rejects. */
  maxTasks?: number;
  /** Where expiry reads the time (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
}

/** How often expired records are swept out, at most (a sweep walks the whole map). */
const SWEEP_EVERY_MS = 60_000;

/**
 * The default store: one process's memory. Expired records disappear from `get` at once and
 * from memory on the next sweep (run by `create`, no timers). A task is never dropped before
 * its `expiresAt`: when full of unexpired tasks the store refuses new ones instead.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();
  private readonly max: number;
  private nextSweep = 0;
  private readonly clock: Clock;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.max = options.maxTasks ?? 10_000;
    this.clock = options.clock ?? systemClock;
    if (!(this.max >= 1)) throw new TypeError('InMemoryTaskStore: maxTasks must be at least 1');
  }

  async create(record: TaskRecord): Promise<void> {
    const now = this.clock.now();
    if (now >= this.nextSweep || this.records.size >= this.max) this.sweep(now);
    if (this.records.size >= this.max) throw new TaskLimitError(`the task store is full (${this.max} tasks)`);
    this.records.set(record.task.taskId, record);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const r = this.records.get(taskId);
    if (r === undefined) return undefined;
    if (r.expiresAt !== null && r.expiresAt <= this.clock.now()) {
      this.records.delete(taskId);
      return undefined;
    }
    return r;
  }

  async put(record: TaskRecord): Promise<void> {
    if (this.records.has(record.task.taskId)) this.records.set(record.task.taskId, record);
  }

  async delete(taskId: string): Promise<void> {
    this.records.delete(taskId);
  }

  /** Records held, expired ones not yet swept included. */
  get size(): number {
    return this.records.size;
  }

  private sweep(now: number): void {
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [id, r] of this.records) if (r.expiresAt !== null && r.expiresAt <= now) this.records.delete(id);
  }
}
