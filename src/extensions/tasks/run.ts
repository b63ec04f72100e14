import { ErrorCode, LocalError, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject, JsonRpcErrorObject } from '../../jsonrpc/messages.js';
import type { InputRequest, InputRequests } from '../../protocol/params.js';
import { TERMINAL_STATUSES, type DetailedTask, type TaskStatus } from '../../protocol/tasks.js';
import { answerProblem, INPUT_KEY_PREFIX } from '../../server/mrtr.js';
import type { TaskRecord, TaskStore } from '../../state/task-store.js';
import { unrefTimer, type Clock, type TimerHandle } from '../../engine/clock.js';

/** What a running task needs from the server that owns it. */
export interface TaskHost {
  readonly store: TaskStore;
  /** Where TTLs read the time and arm their timers. */
  readonly clock: Clock;
  /** Every new state, once written (status notifications on listen streams). */
  publish(task: DetailedTask): void;
  /** The task reached a terminal status: it no longer counts as running. */
  finished(run: TaskRun): void;
  onerror(error: Error): void;
}

/** A question the handler is waiting on. */
interface Pending {
  request: InputRequest;
  method: InputRequest['method'];
  resolve: (answer: unknown) => void;
  reject: (err: unknown) => void;
  /** Set once the client answered; the answer is handed over when nothing else is pending. */
  answered: boolean;
  answer: unknown;
}

/** Node's timers overflow past 2^31-1 ms (they would fire at once): longer TTLs get no timer. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One task running in this process: its state machine, the questions its handler waits on and
 * the abort signal `tasks/cancel` fires. Every change is written to the store (in order, one
 * write per tick however many changes the tick made) and then published.
 */
export class TaskRun {
  private readonly controller = new AbortController();
  private status: TaskStatus = 'working';
  private statusMessage: string | undefined;
  private lastUpdatedAt: string;
  private result: JsonObject | undefined;
  private error: JsonRpcErrorObject | undefined;
  private readonly pending = new Map<string, Pending>();
  /** Every input key this task ever used: keys are unique for the task's lifetime (SEP-2663). */
  private readonly usedKeys = new Set<string>();
  private readonly counts: Record<string, number> = {};
  private writes: Promise<void> = Promise.resolve();
  private dirty = false;
  private timer: TimerHandle | undefined;
  readonly createdAt: string;
  readonly expiresAt: number | null;

  constructor(
    private readonly host: TaskHost,
    readonly taskId: string,
    readonly owner: string | null,
    readonly ttlMs: number | null,
    readonly pollIntervalMs: number,
  ) {
    const now = host.clock.now();
    this.createdAt = this.lastUpdatedAt = new Date(now).toISOString();
    this.expiresAt = ttlMs === null ? null : now + ttlMs;
    if (ttlMs !== null && ttlMs <= MAX_TIMER_MS) {
      // Past its TTL the record is gone; the work has nobody left to report to.
      this.timer = host.clock.setTimeout(() => this.end('failed', new McpError(ErrorCode.InternalError, 'The task expired before it finished')), ttlMs);
      unrefTimer(this.timer);
    }
  }

  /** Fires on `tasks/cancel`, expiry and server shutdown. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get terminal(): boolean {
    return TERMINAL_STATUSES.has(this.status);
  }

  /** The task as `tasks/get` and `notifications/tasks` show it now. */
  snapshot(): DetailedTask {
    const t: DetailedTask = {
      taskId: this.taskId,
      status: this.status,
      createdAt: this.createdAt,
      lastUpdatedAt: this.lastUpdatedAt,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    if (this.statusMessage !== undefined) t.statusMessage = this.statusMessage;
    if (this.status === 'input_required') t.inputRequests = this.questions();
    else if (this.status === 'completed') t.result = this.result;
    else if (this.status === 'failed') t.error = this.error;
    return t;
  }

  record(): TaskRecord {
    return { task: this.snapshot(), owner: this.owner, expiresAt: this.expiresAt };
  }

  /** The CreateTaskResult: the task's seed state, flat, without result, error or inputRequests. */
  created(): JsonObject {
    const r: JsonObject = {
      resultType: 'task',
      taskId: this.taskId,
      status: this.status,
      createdAt: this.createdAt,
      lastUpdatedAt: this.lastUpdatedAt,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    if (this.statusMessage !== undefined) r.statusMessage = this.statusMessage;
    return r;
  }

  /** Runs the request's work; its outcome becomes the task's terminal state. */
  start(execute: () => Promise<JsonObject> | JsonObject): void {
    let out: Promise<JsonObject> | JsonObject;
    try {
      out = execute();
    } catch (err) {
      this.fail(err);
      return;
    }
    Promise.resolve(out).then(
      (r) => this.complete(r),
      (e: unknown) => this.fail(e),
    );
  }

  /** The request returned: `completed` with the result inlined (an `isError` result too). */
  complete(result: JsonObject): void {
    if (this.terminal) return;
    this.result = result;
    this.end('completed');
  }

  /**
   * The request failed at the protocol level: `failed` with its JSON-RPC error. Anything else
   * that escapes the handler (the tool layer already turned ordinary exceptions into `isError`
   * results) is an internal error.
   */
  fail(err: unknown): void {
    if (this.terminal) return;
    const e = err instanceof McpError ? err : new McpError(ErrorCode.InternalError, err instanceof Error ? err.message || err.name : String(err));
    this.end('failed', e);
  }

  /** `tasks/cancel`: the status is `cancelled` from now on, whatever the handler does next. */
  cancel(): Promise<void> {
    if (!this.terminal) this.end('cancelled');
    return this.settled();
  }

  /** The server is shutting down: the work stops and the task fails. */
  shutdown(): Promise<void> {
    if (!this.terminal) this.end('failed', new McpError(ErrorCode.InternalError, 'The server shut down before the task finished'));
    return this.settled();
  }

  /**
   * A question from the handler (ctx.elicit/sample/roots): the task waits in `input_required`
   * until `tasks/update` answers it. Keys follow the MRTR defaults (`elicit-1`...) but are never
   * reused within the task, so a client can deduplicate across polls.
   */
  need(method: InputRequest['method'], params: unknown, named?: string): Promise<unknown> {
    if (this.terminal) return Promise.reject(new LocalError('aborted', `The task is ${this.status}`));
    let key = named;
    if (key === undefined) {
      const prefix = INPUT_KEY_PREFIX[method];
      do key = `${prefix}-${(this.counts[prefix] = (this.counts[prefix] ?? 0) + 1)}`;
      while (this.usedKeys.has(key));
    } else if (this.usedKeys.has(key)) {
      return Promise.reject(new TypeError(`Input key "${key}" was already used by this task; keys must be unique for a task's lifetime`));
    }
    this.usedKeys.add(key);
    const request = (params === undefined ? { method } : { method, params }) as InputRequest;
    return new Promise((resolve, reject) => {
      this.pending.set(key!, { request, method, resolve, reject, answered: false, answer: undefined });
      this.status = 'input_required';
      this.changed();
    });
  }

  /**
   * `tasks/update`: answers to pending questions. Unknown or already answered keys are ignored;
   * a malformed answer to a pending key is -32602 and nothing is applied. The handler gets its
   * answers once every pending question has one (until then the task stays `input_required`
   * and lists the unanswered ones). Resolves once the new state is stored.
   */
  answer(responses: Record<string, unknown>): Promise<void> {
    if (this.terminal || this.pending.size === 0) return this.settled();
    const accepted: Array<[Pending, unknown]> = [];
    for (const key of Object.keys(responses)) {
      const p = this.pending.get(key);
      if (p === undefined || p.answered) continue;
      const problem = answerProblem(p.method, key, responses[key]);
      if (problem !== undefined) return Promise.reject(new McpError(ErrorCode.InvalidParams, problem));
      accepted.push([p, responses[key]]);
    }
    if (accepted.length === 0) return this.settled();
    for (const [p, value] of accepted) {
      p.answered = true;
      p.answer = value;
    }
    let open = false;
    for (const p of this.pending.values()) if (!p.answered) open = true;
    if (!open) {
      const all = [...this.pending.values()];
      this.pending.clear();
      this.status = 'working';
      for (const p of all) p.resolve(p.answer);
    }
    this.changed();
    return this.settled();
  }

  private questions(): InputRequests {
    const out: InputRequests = {};
    for (const [key, p] of this.pending) if (!p.answered) out[key] = p.request;
    return out;
  }

  private end(status: 'completed' | 'failed' | 'cancelled', error?: McpError): void {
    this.status = status;
    if (error) {
      this.error = error.toJSON();
      this.statusMessage = error.message;
    } else if (status === 'cancelled') this.statusMessage = 'Cancelled by the client';
    if (this.timer !== undefined) this.host.clock.clearTimeout(this.timer);
    // Whoever still waits on an answer is told the task is over.
    const waiting = [...this.pending.values()];
    this.pending.clear();
    if (status !== 'completed') this.controller.abort(new LocalError('aborted', this.statusMessage ?? `The task is ${status}`));
    for (const p of waiting) p.reject(new LocalError('aborted', `The task is ${status}`));
    this.host.finished(this);
    this.changed();
  }

  /** Schedules one write (and notification) of the current state for this tick's changes. */
  private changed(): void {
    this.lastUpdatedAt = new Date().toISOString();
    if (this.dirty) return;
    this.dirty = true;
    queueMicrotask(() => {
      this.dirty = false;
      const record = this.record();
      this.writes = this.writes
        .then(() => this.host.store.put(record))
        .then(
          () => this.host.publish(record.task),
          (e: unknown) => this.host.onerror(e instanceof Error ? e : new Error(String(e))),
        );
    });
  }

  /** Settles once every change made so far is stored. */
  private settled(): Promise<void> {
    // A microtask first: the write of this tick's changes is queued as one.
    return new Promise<void>((resolve) => queueMicrotask(() => void this.writes.then(resolve)));
  }
}
