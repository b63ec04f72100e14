import { LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import { type Clock, systemClock } from '../engine/clock.js';
import type { RequestOptions } from '../engine/peer.js';
import type { DetailedTask, Task, TaskStatus } from '../protocol/tasks.js';
import type { ClientCapabilities } from '../protocol/types.js';
import type { InputRequests } from '../protocol/params.js';
import type { CallOptions } from './calls.js';
import type { ClientInputs } from './inputs.js';

/**
 * How the client runs the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`), given
 * as `tasks` in the client options. Poll intervals are the server's `pollIntervalMs`, kept
 * within `minPollIntervalMs`..`maxPollIntervalMs`.
 */
export interface TaskOptions {
  /** Used when the server suggests no interval. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Floor for the server's suggestion (a server saying 0 must not get a busy loop). Default 100 ms. */
  minPollIntervalMs?: number;
  /** Ceiling for the server's suggestion, so a long one does not hide a finished task. Default 30 000 ms. */
  maxPollIntervalMs?: number;
  /**
   * Open a `subscriptions/listen` stream (`taskIds: [id]`) for each task the client drives, so
   * that `notifications/tasks` ends the wait before the next poll. Costs one long-lived
   * request per running task. Default false: polling only (notifications from streams you
   * open yourself wake the poller either way).
   */
  listen?: boolean;
}

/**
 * The server ended the task as `cancelled` (after a `tasks/cancel` from elsewhere, or on its
 * own). A LocalError, as the call produced no answer; `task` is the last state seen.
 */
export class TaskCancelledError extends LocalError {
  readonly task: DetailedTask;
  constructor(task: DetailedTask) {
    super('aborted', `Task ${task.taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
    this.name = 'TaskCancelledError';
    this.task = task;
  }
}

/** What the driver borrows from the client. */
export interface TaskHost {
  /** Sends a request the way the client does (envelope, capability checks). */
  request(method: string, params: JsonObject, options: RequestOptions): Promise<JsonObject>;
  readonly inputs: ClientInputs;
  declared(): ClientCapabilities;
  /** Opens a listen stream for one task's notifications (see {@link TaskOptions.listen}). */
  listen(taskId: string): { acknowledged: Promise<unknown>; close(): Promise<void> } | undefined;
  warn(message: string): void;
  /** Where the waits between polls are timed (the client's `clock`), so that tests drive them by hand. */
  readonly clock?: Clock;
}

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
/** How long a best-effort tasks/cancel may keep close() waiting. */
const CANCEL_GRACE_MS = 2000;

/**
 * Drives tasks to their end: polls `tasks/get` at the server's pace, answers input requests
 * once per key, and turns the terminal state into a result or an error, so that a caller of
 * `callTool` sees the same thing as for an immediate answer.
 */
export class TaskDriver {
  /** Sleeping pollers by task id: a `notifications/tasks` ends their wait early. */
  private readonly sleepers = new Map<string, Set<() => void>>();
  /** Best-effort cancellations still in flight: close() gives them a moment to leave. */
  private readonly cancelling = new Set<Promise<unknown>>();
  private readonly min: number;
  private readonly max: number;
  private readonly fallback: number;

  constructor(
    private readonly host: TaskHost,
    private readonly options: TaskOptions = {},
  ) {
    this.min = nonNegative(options.minPollIntervalMs, 100);
    this.max = Math.max(this.min, nonNegative(options.maxPollIntervalMs, 30_000));
    this.fallback = nonNegative(options.pollIntervalMs, 1000);
  }

  /** The wait before the next poll: the server's suggestion, within bounds. */
  interval(task: Task): number {
    const asked = typeof task.pollIntervalMs === 'number' && Number.isFinite(task.pollIntervalMs) ? task.pollIntervalMs : this.fallback;
    return Math.min(this.max, Math.max(this.min, asked));
  }

  /**
   * Follows a task until it is over and returns the request's result (without `resultType`).
   * `failed` throws the task's JSON-RPC error as an McpError, `cancelled` a
   * {@link TaskCancelledError}. An abort, a failed poll or an input this client cannot give
   * sends `tasks/cancel` (best effort: nobody else may know the task id) and rejects.
   */
  async drive(first: Task, options: CallOptions = {}): Promise<JsonObject> {
    const taskId = first.taskId;
    if (typeof taskId !== 'string' || taskId === '')
      throw new LocalError('protocol', `The server created a task without a taskId: ${JSON.stringify(first).slice(0, 300)}`);
    const { signal, ontask } = options;
    // Each poll gets the call's own timeout; the task as a whole has none (only the signal).
    const each: RequestOptions = { signal, timeoutMs: options.timeoutMs };
    const answered = new Set<string>();
    let task: DetailedTask = checked(first, taskId);
    const stream = this.options.listen ? this.host.listen(taskId) : undefined;
    // What changed before the stream was acknowledged was never sent on it: look once then.
    stream?.acknowledged.then(
      () => this.notified({ taskId }),
      () => {},
    );
    let shown: string | undefined;
    let polled = false;
    let over = false;
    let cancelled = false;
    const cancel = () => {
      if (over || cancelled) return;
      cancelled = true;
      this.cancel(taskId);
    };
    // At once, not when the rejection is handled: a caller that aborts and then closes the
    // client (Ctrl-C in the CLI) must find the tasks/cancel already on its way.
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        const mark = `${task.status}\n${task.statusMessage ?? ''}\n${task.lastUpdatedAt}`;
        if (mark !== shown) {
          shown = mark;
          this.tell(ontask, task);
        }
        // A CreateTaskResult carries no result or error: a task created finished is read at once.
        const bare = !polled && ((task.status === 'completed' && task.result === undefined) || (task.status === 'failed' && task.error === undefined));
        if (!bare) {
          if (task.status === 'completed') {
            over = true;
            return resultOf(task);
          }
          if (task.status === 'failed') {
            over = true;
            throw failureOf(task);
          }
          if (task.status === 'cancelled') {
            over = true;
            throw new TaskCancelledError(task);
          }
          if (task.status === 'input_required') await this.answer(task, answered, each);
          await this.pause(taskId, this.interval(task), signal);
        }
        task = checked(await this.host.request('tasks/get', { taskId }, each), taskId);
        polled = true;
      }
    } catch (err) {
      if (over) throw err;
      cancel();
      if (signal?.aborted) throw new LocalError('aborted', `Task ${taskId} was abandoned (tasks/cancel sent): ${reasonOf(signal)}`, { cause: err });
      throw err;
    } finally {
      signal?.removeEventListener('abort', cancel);
      if (stream) void stream.close().catch(() => {});
    }
  }

  /** Answers the input requests not answered before (keys are unique for a task's life). */
  private async answer(task: DetailedTask, answered: Set<string>, each: RequestOptions): Promise<void> {
    const requests = task.inputRequests;
    // input_required without the requests yet: the next poll will bring them.
    if (requests === undefined) return;
    if (requests === null || typeof requests !== 'object' || Array.isArray(requests)) {
      throw new LocalError('protocol', `The server sent invalid inputRequests for task ${task.taskId}: ${JSON.stringify(requests).slice(0, 300)}`);
    }
    let fresh: InputRequests | undefined;
    for (const key of Object.keys(requests)) {
      if (answered.has(key)) continue;
      (fresh ??= {})[key] = requests[key];
    }
    if (fresh === undefined) return;
    const signal = each.signal ?? new AbortController().signal;
    const responses = await this.host.inputs.fulfil(fresh, this.host.declared(), signal);
    if (signal.aborted) throw new LocalError('aborted', `Task ${task.taskId}: aborted while answering its input requests`);
    for (const key of Object.keys(fresh)) answered.add(key);
    await this.host.request('tasks/update', { taskId: task.taskId, inputResponses: responses as unknown as JsonObject }, each);
  }

  /** Waits `ms`, or less if a notification about the task arrives; rejects on abort. */
  private pause(taskId: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let set = this.sleepers.get(taskId);
      if (!set) this.sleepers.set(taskId, (set = new Set()));
      const sleepers = set;
      const clock = this.host.clock ?? systemClock;
      const finish = (err?: unknown) => {
        clock.clearTimeout(timer);
        sleepers.delete(wake);
        if (sleepers.size === 0 && this.sleepers.get(taskId) === sleepers) this.sleepers.delete(taskId);
        signal?.removeEventListener('abort', onAbort);
        if (err === undefined) resolve();
        else reject(err);
      };
      const wake = () => finish();
      const onAbort = () => finish(signal!.reason ?? new Error('aborted'));
      const timer = clock.setTimeout(wake, ms);
      sleepers.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A `notifications/tasks` arrived: whoever polls that task polls now. */
  notified(params: JsonObject | undefined): void {
    const id = params?.taskId;
    if (typeof id !== 'string') return;
    const set = this.sleepers.get(id);
    if (set) for (const wake of [...set]) wake();
  }

  /** Sends `tasks/cancel` without waiting for it; its failure is only worth a warning. */
  cancel(taskId: string): void {
    const sent = this.host.request('tasks/cancel', { taskId }, { timeoutMs: 10_000 }).then(
      () => {},
      (err: unknown) => this.host.warn(`tasks/cancel for task ${taskId} failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.cancelling.add(sent);
    void sent.finally(() => this.cancelling.delete(sent));
  }

  /** Lets cancellations in flight leave before the connection closes, for a moment at most. */
  async settle(): Promise<void> {
    if (this.cancelling.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled([...this.cancelling]), new Promise<void>((r) => (timer = setTimeout(r, CANCEL_GRACE_MS)))]);
    clearTimeout(timer);
  }

  private tell(ontask: CallOptions['ontask'], task: DetailedTask): void {
    if (!ontask) return;
    try {
      ontask(task);
    } catch (err) {
      this.host.warn(`ontask threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** A task as the server sent it, checked enough to be driven (and without `resultType`). */
function checked(raw: unknown, taskId: string): DetailedTask {
  const t = raw as Record<string, unknown> | null;
  if (!t || typeof t !== 'object' || typeof t.status !== 'string' || !STATUSES.has(t.status)) {
    throw new LocalError('protocol', `The server sent an invalid task for ${taskId}: ${JSON.stringify(raw).slice(0, 300)}`);
  }
  if (t.taskId !== undefined && t.taskId !== taskId) {
    throw new LocalError('protocol', `Asked for task ${taskId}, the server answered with task ${JSON.stringify(t.taskId)}`);
  }
  const { resultType: _r, ...task } = t;
  return { ...task, taskId } as unknown as DetailedTask;
}

function resultOf(task: DetailedTask): JsonObject {
  const r = task.result;
  if (!r || typeof r !== 'object' || Array.isArray(r)) {
    throw new LocalError('protocol', `Task ${task.taskId} completed without a result`);
  }
  if (!('resultType' in r)) return r;
  const { resultType: _r, ...plain } = r;
  return plain;
}

function failureOf(task: DetailedTask): Error {
  const e = task.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  if (e && typeof e.code === 'number' && typeof e.message === 'string') return new McpError(e.code, e.message, e.data);
  return new LocalError(
    'protocol',
    `Task ${task.taskId} failed, but the server sent no JSON-RPC error${task.statusMessage ? ` (status message: ${task.statusMessage})` : ''}`,
  );
}

function reasonOf(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return r instanceof Error ? r.message : r === undefined ? 'aborted' : String(r);
}

function nonNegative(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
}
