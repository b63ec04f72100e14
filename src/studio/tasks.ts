// The tasks the studio follows, in both flavours a server may speak:
//   - the 2026-07-28 extension (`io.modelcontextprotocol/tasks`, SEP-2663): tasks/get at the
//     server's poll interval; its `inputRequests` put to the person (the same dialog as every
//     other question) and each answer sent with tasks/update; the result comes with tasks/get;
//   - 2025-11-25 core tasks (SEP-1686, handshake era): tasks/get for the status, and one
//     tasks/result request held open from the start, which carries the task's questions (answered
//     by the pool's handlers, the same dialog) and ends with the result or the error.
// tasks/cancel on either, tasks/list where the server has it (core), and a task followed by id.
// The hub owns one tracker; the page sees each change as a `task` event.
import { modernNames } from '../client/core-tasks.js';
import type { McpClient } from '../client/client.js';
import { unrefTimer, type Clock } from '../engine/clock.js';
import { McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { CreateMessageParams, ElicitParams } from '../protocol/params.js';
import type { Root } from '../protocol/types.js';
import type { TaskView } from './api-types.js';
import { errorOf } from './errors.js';
import type { InputQueue } from './inputs.js';

export interface TrackerHost {
  clock: Clock;
  client(server: string): McpClient | undefined;
  inputs: InputQueue;
  roots(): Root[];
  emit(view: TaskView): void;
  removed(server: string, taskId: string): void;
}

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** The poll interval, whatever the server suggests: never a busy loop, never a stale page. */
const MIN_POLL_MS = 250;
const MAX_POLL_MS = 5_000;
const DEFAULT_POLL_MS = 1_000;
/** How long one tasks/result may stay open (a core task's whole life, in practice). */
const RESULT_WAIT_MS = 24 * 3_600_000;
/** Tasks kept in the list at most (the oldest finished ones go first). */
const MAX_TASKS = 500;

interface Followed {
  view: TaskView;
  timer: unknown;
  /** Aborted when the studio stops following (server removed, task dismissed, studio closed). */
  ctl: AbortController;
  polling: boolean;
  /** 2025-11-25: whether tasks/result has answered (the task's outcome is known). */
  settled: boolean;
}

const keyOf = (server: string, taskId: string) => `${server}\n${taskId}`;

export class TaskTracker {
  private readonly tasks = new Map<string, Followed>();

  constructor(private readonly host: TrackerHost) {}

  list(): TaskView[] {
    return [...this.tasks.values()].map((f) => f.view);
  }

  get(server: string, taskId: string): TaskView | undefined {
    return this.tasks.get(keyOf(server, taskId))?.view;
  }

  /**
   * Starts following a task the server just created (a CreateTaskResult, or the `task` of a
   * 2025-11-25 CreateTaskResult) or one found by id. Returns its view at once.
   */
  adopt(
    server: string,
    raw: Record<string, unknown>,
    flavour: TaskView['flavour'],
    origin: { tool?: string; arguments?: Record<string, unknown> } = {},
  ): TaskView {
    const taskId = typeof raw.taskId === 'string' ? raw.taskId : '';
    if (taskId === '') throw new Error(`The server sent a task without a taskId: ${JSON.stringify(raw).slice(0, 200)}`);
    const key = keyOf(server, taskId);
    const had = this.tasks.get(key);
    if (had) {
      this.apply(had, raw);
      return had.view;
    }
    this.trim();
    const f: Followed = {
      view: { server, taskId, flavour, ...origin, status: 'working', polls: 0, asking: [], answered: [], following: true, since: this.host.clock.now() },
      timer: undefined,
      ctl: new AbortController(),
      polling: false,
      settled: false,
    };
    this.tasks.set(key, f);
    this.apply(f, raw);
    if (flavour === 'core') this.awaitResult(f);
    this.schedule(f, raw.status === 'completed' || raw.status === 'failed' ? 0 : undefined);
    return f.view;
  }

  /** One tasks/get now, whatever the schedule. */
  async poll(server: string, taskId: string): Promise<TaskView> {
    const f = this.need(server, taskId);
    await this.pollOnce(f);
    return f.view;
  }

  /** Asks the server to stop the task (tasks/cancel), then looks at it again. */
  async cancel(server: string, taskId: string): Promise<TaskView> {
    const f = this.need(server, taskId);
    const client = this.clientOf(f);
    await client.cancelTask(taskId, { timeoutMs: 30_000 });
    await this.pollOnce(f);
    return f.view;
  }

  /** Follows a task known by its id (created elsewhere, or before a reconnection). */
  async follow(server: string, client: McpClient, taskId: string, flavour: TaskView['flavour']): Promise<TaskView> {
    const raw = (await client.getTask(taskId, { timeoutMs: 30_000 })) as unknown as Record<string, unknown>;
    const view = this.adopt(server, raw, flavour);
    return view;
  }

  /** 2025-11-25: every task tasks/list shows, followed from now on. */
  async listOnServer(server: string, client: McpClient): Promise<TaskView[]> {
    const found: TaskView[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const r = (await client.request('tasks/list', cursor === undefined ? {} : { cursor }, { timeoutMs: 30_000 })) as JsonObject;
      for (const t of (r.tasks as JsonObject[] | undefined) ?? []) {
        if (t && typeof t.taskId === 'string') found.push(this.adopt(server, t, 'core'));
      }
      if (typeof r.nextCursor !== 'string' || r.nextCursor === '') break;
      cursor = r.nextCursor;
    }
    return found;
  }

  /** Stops following a task and drops it from the list (the server keeps it). */
  dismiss(server: string, taskId: string): boolean {
    const key = keyOf(server, taskId);
    const f = this.tasks.get(key);
    if (!f) return false;
    this.stop(f);
    this.tasks.delete(key);
    this.host.removed(server, taskId);
    return true;
  }

  /** The server went away (removed, reconnected): its tasks stay listed, no longer followed. */
  forget(server: string, why: string): void {
    for (const f of this.tasks.values()) {
      if (f.view.server !== server || !f.view.following) continue;
      this.stop(f);
      f.view = { ...f.view, following: false, asking: [], problem: why };
      this.host.emit(f.view);
    }
  }

  close(): void {
    for (const f of this.tasks.values()) this.stop(f);
  }

  private need(server: string, taskId: string): Followed {
    const f = this.tasks.get(keyOf(server, taskId));
    if (!f) throw new Error(`The studio does not follow task ${taskId} of "${server}"`);
    return f;
  }

  private clientOf(f: Followed): McpClient {
    const c = this.host.client(f.view.server);
    if (!c) throw new Error(`Server "${f.view.server}" is not connected`);
    return c;
  }

  private stop(f: Followed): void {
    if (f.timer !== undefined) this.host.clock.clearTimeout(f.timer);
    f.timer = undefined;
    f.ctl.abort(new Error('no longer followed'));
  }

  /** Drops the oldest finished tasks past the limit. */
  private trim(): void {
    if (this.tasks.size < MAX_TASKS) return;
    for (const [key, f] of this.tasks) {
      if (f.view.following) continue;
      this.tasks.delete(key);
      this.host.removed(f.view.server, f.view.taskId);
      if (this.tasks.size < MAX_TASKS) return;
    }
  }

  /** A task state from the server (CreateTaskResult, tasks/get, tasks/list) onto the view. */
  private apply(f: Followed, raw: Record<string, unknown>, fromGet = false): void {
    const t = (f.view.flavour === 'core' ? modernNames(raw as JsonObject) : raw) as unknown as Record<string, unknown>;
    const v: TaskView = { ...f.view };
    if (typeof t.status === 'string' && STATUSES.has(t.status)) v.status = t.status as TaskView['status'];
    if (typeof t.statusMessage === 'string') v.statusMessage = t.statusMessage;
    else delete v.statusMessage;
    if (typeof t.createdAt === 'string') v.createdAt = t.createdAt;
    if (typeof t.lastUpdatedAt === 'string') v.lastUpdatedAt = t.lastUpdatedAt;
    if (typeof t.ttlMs === 'number' || t.ttlMs === null) v.ttlMs = t.ttlMs as number | null;
    if (typeof t.pollIntervalMs === 'number') v.pollIntervalMs = t.pollIntervalMs;
    const requests = t.inputRequests;
    if (v.status === 'input_required' && requests && typeof requests === 'object' && !Array.isArray(requests)) {
      v.inputRequests = requests as TaskView['inputRequests'];
    } else delete v.inputRequests;
    if (t.result && typeof t.result === 'object') v.result = t.result as Record<string, unknown>;
    if (t.error && typeof t.error === 'object') v.error = t.error as TaskView['error'];
    // Over once nothing more can come: an extension task's tasks/get carries its outcome (a
    // CreateTaskResult does not: read once more); a core task's outcome is on tasks/result.
    if (TERMINAL.has(v.status)) {
      const outcome = v.flavour === 'core' ? f.settled : fromGet || v.result !== undefined || v.error !== undefined || v.status === 'cancelled';
      if (outcome) v.following = false;
    }
    f.view = v;
    this.host.emit(v);
    if (v.flavour === 'extension' && v.status === 'input_required') this.answer(f);
  }

  private schedule(f: Followed, ms?: number): void {
    if (f.timer !== undefined) this.host.clock.clearTimeout(f.timer);
    f.timer = undefined;
    if (!f.view.following || f.ctl.signal.aborted) return;
    const asked = f.view.pollIntervalMs;
    const wait = ms ?? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, typeof asked === 'number' && Number.isFinite(asked) ? asked : DEFAULT_POLL_MS));
    f.timer = this.host.clock.setTimeout(() => {
      f.timer = undefined;
      void this.pollOnce(f).catch(() => {});
    }, wait);
    unrefTimer(f.timer);
  }

  private async pollOnce(f: Followed): Promise<void> {
    if (f.polling) return;
    f.polling = true;
    try {
      const client = this.clientOf(f);
      f.view = { ...f.view, polls: f.view.polls + 1 };
      const raw = (await client.getTask(f.view.taskId, { signal: f.ctl.signal, timeoutMs: 30_000 })) as unknown as Record<string, unknown>;
      f.view = { ...f.view, polledAt: this.host.clock.now() };
      delete f.view.problem;
      this.apply(f, raw, true);
    } catch (err) {
      if (f.ctl.signal.aborted) return;
      f.view = { ...f.view, problem: `tasks/get failed: ${errorOf(err).message}` };
      this.host.emit(f.view);
    } finally {
      f.polling = false;
      if (!f.ctl.signal.aborted) this.schedule(f);
    }
  }

  /** 2026-07-28: puts each new input request to the person, and sends each answer as it comes. */
  private answer(f: Followed): void {
    const requests = f.view.inputRequests ?? {};
    for (const [key, req] of Object.entries(requests)) {
      if (f.view.asking.includes(key) || f.view.answered.includes(key)) continue;
      f.view = { ...f.view, asking: [...f.view.asking, key] };
      this.host.emit(f.view);
      void this.answerOne(f, key, req);
    }
  }

  private async answerOne(f: Followed, key: string, req: { method: string; params?: Record<string, unknown> }): Promise<void> {
    const { server, taskId } = f.view;
    const signal = f.ctl.signal;
    try {
      let response: unknown;
      if (req.method === 'elicitation/create') response = await this.host.inputs.elicit(server, (req.params ?? {}) as unknown as ElicitParams, signal);
      else if (req.method === 'sampling/createMessage')
        response = await this.host.inputs.sample(server, (req.params ?? {}) as unknown as CreateMessageParams, signal);
      else if (req.method === 'roots/list') response = { roots: this.host.roots() };
      else throw new Error(`the studio cannot answer ${req.method}`);
      await this.clientOf(f).updateTask(taskId, { [key]: response } as never, { signal, timeoutMs: 30_000 });
      f.view = { ...f.view, asking: f.view.asking.filter((k) => k !== key), answered: [...f.view.answered, key] };
      this.host.emit(f.view);
      this.schedule(f, 0);
    } catch (err) {
      if (signal.aborted) return;
      f.view = { ...f.view, asking: f.view.asking.filter((k) => k !== key) };
      // tasks/update carries answers only: a question refused leaves the task stuck, so it is stopped.
      const refused = err instanceof McpError;
      f.view.problem = refused
        ? `You refused "${key}" (${req.method}); tasks/update cannot carry a refusal, so the studio sent tasks/cancel`
        : `Answering "${key}" failed: ${errorOf(err).message}`;
      this.host.emit(f.view);
      if (refused) {
        try {
          await this.clientOf(f).cancelTask(taskId, { timeoutMs: 30_000 });
        } catch {
          // Gone already, or the server refused: the next poll shows where it stands.
        }
      }
      this.schedule(f, 0);
    }
  }

  /** 2025-11-25: tasks/result, held open from the start (the task's questions travel on it). */
  private awaitResult(f: Followed): void {
    const client = this.host.client(f.view.server);
    if (!client) return;
    const signal = f.ctl.signal;
    client.request('tasks/result', { taskId: f.view.taskId }, { signal, timeoutMs: RESULT_WAIT_MS, resetTimeoutOnProgress: true }).then(
      (result) => {
        if (signal.aborted) return;
        f.settled = true;
        f.view = { ...f.view, result: result as Record<string, unknown> };
        if (!TERMINAL.has(f.view.status)) f.view.status = 'completed';
        this.host.emit(f.view);
        this.schedule(f, 0);
      },
      (err: unknown) => {
        if (signal.aborted) return;
        f.settled = true;
        if (err instanceof McpError) f.view = { ...f.view, error: errorOf(err) };
        else f.view = { ...f.view, problem: `tasks/result failed: ${errorOf(err).message}` };
        this.host.emit(f.view);
        this.schedule(f, 0);
      },
    );
  }
}
