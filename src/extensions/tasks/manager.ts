import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import { declaresTasks, TASK_NOTIFICATION, TASKS_EXTENSION, TERMINAL_STATUSES, type DetailedTask, type TaskSupport } from '../../protocol/tasks.js';
import { missingCapability } from '../../protocol/modern.js';
import type { RequestContext } from '../../server/context.js';
import type { ContextBinding, ExtensionApi } from '../../server/extension.js';
import type { ModernContext } from '../../server/modern-context.js';
import { systemClock, type Clock } from '../../engine/clock.js';
import { TaskRun, type TaskHost } from './run.js';
import { InMemoryTaskStore, TaskLimitError, type TaskRecord, type TaskStore } from '../../state/task-store.js';

/** Server options of the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28). */
export interface TaskServerOptions {
  /**
   * How long a task stays readable after it was created, in ms (`ttlMs` on the wire); null for
   * no limit. A task still running when it expires is stopped. Default one hour.
   */
  ttlMs?: number | null;
  /** The polling interval suggested to clients (`pollIntervalMs`), in ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * Tasks running at once in this process (default 1000). Past it an `optional` tool runs
   * synchronously and a `required` one fails with -32603.
   */
  maxTasks?: number;
  /** Where task state lives. Default: an InMemoryTaskStore (10 000 tasks at most). */
  store?: TaskStore;
  /** Where TTLs read the time and arm their timers (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
}

/**
 * How a tool takes part in the tasks extension. `start: 'request'` (the default) creates the
 * task before the handler runs; `start: 'handler'` runs the handler as an ordinary request
 * (it may ask for input through MRTR rounds first) until it calls `ctx.startTask()`, which
 * answers the request with the task while the handler carries on in the background.
 */
export interface ToolTaskOptions {
  support: TaskSupport;
  start?: 'request' | 'handler';
}

/** The error for a task-only request from a client that did not declare the extension. */
export function tasksExtensionRequired(what: string): McpError {
  return missingCapability({ extensions: { [TASKS_EXTENSION]: {} } }, `extensions["${TASKS_EXTENSION}"] (${what})`);
}

const NOT_FOUND = 'Invalid params: no task with this taskId (it is unknown, expired, or not yours)';

/**
 * How a tools/call handler is tied to a task: `run` once the task exists; `start` when the
 * handler itself may create it (`ctx.startTask()`). Attached to the request's context.
 */
class TaskBinding implements ContextBinding {
  run: TaskRun | undefined = undefined;
  start: (() => Promise<void>) | undefined = undefined;
  get signal(): AbortSignal | undefined {
    return this.run?.signal;
  }
  get taskId(): string | undefined {
    return this.run?.taskId;
  }
  get detached(): boolean {
    return this.run !== undefined;
  }
  input(method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', params: unknown, key: string | undefined): Promise<unknown> {
    return this.run!.need(method, params, key);
  }
}

/** The tasks settings of a tool (`task` in its config), normalized; undefined for an ordinary tool. */
export function toolTaskOptions(name: string, task: unknown): Required<ToolTaskOptions> | undefined {
  if (task === undefined) return undefined;
  const o = (typeof task === 'string' ? { support: task } : task) as ToolTaskOptions;
  if (o === null || typeof o !== 'object' || (o.support !== 'optional' && o.support !== 'required')) {
    throw new TypeError(`Tool "${name}": task support must be 'optional' or 'required'`);
  }
  const start = o.start ?? 'request';
  if (start !== 'request' && start !== 'handler') throw new TypeError(`Tool "${name}": task start must be 'request' or 'handler'`);
  return { support: o.support, start };
}

/** Checks the shared settings of both task flavours. */
export function taskLimits(options: TaskServerOptions = {}): { ttlMs: number | null; pollIntervalMs: number; maxTasks: number; clock: Clock } {
  const ttl = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
  if (ttl !== null && !(Number.isInteger(ttl) && ttl > 0)) throw new TypeError('tasks.ttlMs must be a positive integer (ms) or null');
  const poll = options.pollIntervalMs ?? 1000;
  if (!(Number.isInteger(poll) && poll > 0)) throw new TypeError('tasks.pollIntervalMs must be a positive integer (ms)');
  const max = options.maxTasks ?? 1000;
  if (!(Number.isInteger(max) && max > 0)) throw new TypeError('tasks.maxTasks must be a positive integer');
  return { ttlMs: ttl, pollIntervalMs: poll, maxTasks: max, clock: options.clock ?? systemClock };
}

/**
 * The default store: the deployment's (`Server.share`, e.g. `mcpkit serve --redis`) when there
 * is one, asked on every call since it may be set after the extension was installed.
 */
function sharedOrMemory(api: ExtensionApi, memory: TaskStore): TaskStore {
  if (api.sharedTaskStore === undefined) return memory;
  const pick = (): TaskStore => api.sharedTaskStore?.() ?? memory;
  return {
    create: (record) => pick().create(record),
    get: (taskId) => pick().get(taskId),
    put: (record) => pick().put(record),
    delete: (taskId) => pick().delete(taskId),
  };
}

/**
 * The server side of the tasks extension: decides per tools/call whether a task is made, runs
 * task handlers in the background, and serves `tasks/get`, `tasks/update` and `tasks/cancel`.
 * Tasks are bound to the caller's principal and identified by random UUIDs.
 */
export class TaskManager {
  readonly store: TaskStore;
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  readonly maxTasks: number;
  /** Tasks running in this process, by id. */
  private readonly runs = new Map<string, TaskRun>();
  private readonly host: TaskHost;

  constructor(
    private readonly api: ExtensionApi,
    options: TaskServerOptions = {},
  ) {
    const limits = taskLimits(options);
    this.ttlMs = limits.ttlMs;
    this.pollIntervalMs = limits.pollIntervalMs;
    this.maxTasks = limits.maxTasks;
    const clock = limits.clock;
    this.store = options.store ?? sharedOrMemory(api, new InMemoryTaskStore({ clock }));
    this.host = {
      store: this.store,
      clock,
      publish: (task) => {
        this.publish(task);
        this.api.relay({ task: task as unknown as JsonObject });
      },
      finished: (run) => this.runs.delete(run.taskId),
      onerror: (e) => this.api.onerror(e),
    };
  }

  /** A task's new state (`notifications/tasks`) to the listen streams following it. */
  publish(task: DetailedTask): void {
    this.api.publish(TASK_NOTIFICATION, task as unknown as JsonObject, (f) => f.taskIds?.includes(task.taskId) ?? false);
  }

  /** What this extension on another instance relayed: a task's state, answers or a cancel for a task running here. */
  relayed(data: JsonObject): void {
    const { task, update, r, cancel } = data as { task?: unknown; update?: unknown; r?: unknown; cancel?: unknown };
    if (isObject(task) && typeof task.taskId === 'string') this.publish(task as unknown as DetailedTask);
    else if (typeof update === 'string' && isObject(r)) this.relayedUpdate(update, r);
    else if (typeof cancel === 'string') this.relayedCancel(cancel);
    else this.api.onerror(new Error('message bus: ignored a malformed tasks message'));
  }

  /** Tasks running in this process now. */
  get running(): number {
    return this.runs.size;
  }

  /**
   * A tools/call of a tool registered with `task`. Only a 2026-07-28 request that declares the
   * extension may get a task; otherwise an `optional` tool runs as an ordinary request and a
   * `required` one is refused with -32021 (the handshake era has no such extension: there every
   * task tool is an ordinary tool).
   */
  callTool(task: ToolTaskOptions, ctx: RequestContext, execute: () => Promise<JsonObject> | JsonObject): Promise<JsonObject> | JsonObject {
    if (ctx.era !== 'modern') return execute();
    if (!declaresTasks(ctx.clientCapabilities)) {
      if (task.support === 'required') throw tasksExtensionRequired('this tool runs only as a task');
      return execute();
    }
    // A modern request's context is always the modern era's own.
    const modern = ctx as ModernContext;
    return task.start === 'handler' ? this.startedByHandler(task, modern, execute) : this.startedFirst(task, modern, execute);
  }

  /** The default: the task exists before the handler runs, and the request answers with it. */
  private async startedFirst(task: ToolTaskOptions, ctx: RequestContext, execute: () => Promise<JsonObject> | JsonObject): Promise<JsonObject> {
    const run = await this.open(task, ctx);
    if (run === undefined) return execute();
    const binding = new TaskBinding();
    binding.run = run;
    (ctx as ModernContext).binding = binding;
    const created = run.created();
    run.start(execute);
    return created;
  }

  /**
   * The handler decides: until it calls ctx.startTask() this is an ordinary request (its input
   * rounds are MRTR rounds); from then on the request's answer is the task, and what the
   * handler returns or throws goes to the task.
   */
  private startedByHandler(task: ToolTaskOptions, ctx: RequestContext, execute: () => Promise<JsonObject> | JsonObject): Promise<JsonObject> {
    return new Promise<JsonObject>((resolve, reject) => {
      const binding = new TaskBinding();
      let starting: Promise<void> | undefined;
      /** Set once the request was answered without a task. */
      let answered = false;
      binding.start = () =>
        (starting ??= this.open(task, ctx).then((run) => {
          // Full and optional: the handler carries on synchronously.
          if (run === undefined) return;
          if (answered) {
            // The handler returned before its task existed (startTask() not awaited): nobody
            // will ever ask for this task.
            run
              .cancel()
              .then(() => this.store.delete(run.taskId))
              .catch((e: unknown) => this.api.onerror(e instanceof Error ? e : new Error(String(e))));
            return;
          }
          binding.run = run;
          resolve(run.created());
        }));
      (ctx as ModernContext).binding = binding;
      const settle = (fn: () => void) => {
        answered = true;
        fn();
      };
      let out: Promise<JsonObject> | JsonObject;
      try {
        out = execute();
      } catch (err) {
        settle(() => reject(err));
        return;
      }
      Promise.resolve(out).then(
        (r) => (binding.run ? binding.run.complete(r) : settle(() => resolve(r))),
        (e: unknown) => (binding.run ? binding.run.fail(e) : settle(() => reject(e))),
      );
    });
  }

  /**
   * Creates a task and waits until the store has it (so a tasks/get right after the
   * CreateTaskResult finds it). When none may be created: undefined for an `optional` tool
   * (it then runs synchronously), -32603 for a `required` one.
   */
  private async open(task: ToolTaskOptions, ctx: RequestContext): Promise<TaskRun | undefined> {
    let run: TaskRun | undefined;
    try {
      if (this.runs.size >= this.maxTasks) throw new TaskLimitError(`${this.maxTasks} tasks are already running`);
      run = new TaskRun(this.host, globalThis.crypto.randomUUID(), ctx.authInfo?.principal ?? null, this.ttlMs, this.pollIntervalMs);
      // Counted from now: concurrent creations must not overshoot the cap.
      this.runs.set(run.taskId, run);
      await this.store.create(run.record());
      return run;
    } catch (err) {
      if (run !== undefined) {
        this.runs.delete(run.taskId);
        void run.cancel();
      }
      const e = err instanceof Error ? err : new Error(String(err));
      if (!(err instanceof TaskLimitError)) this.api.onerror(e);
      if (task.support === 'optional') return undefined;
      throw new McpError(ErrorCode.InternalError, `Cannot start a task: ${e.message}`);
    }
  }

  // ------------------------------------------------------------------ tasks/* methods

  async get(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> {
    const record = await this.lookup('tasks/get', params, ctx);
    return { ...record.task } as unknown as JsonObject;
  }

  async update(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> {
    this.admit('tasks/update', ctx);
    const responses = params?.inputResponses;
    if (responses === null || typeof responses !== 'object' || Array.isArray(responses)) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: tasks/update needs "inputResponses" (an object)');
    }
    const record = await this.lookup('tasks/update', params, ctx);
    const run = this.runs.get(record.task.taskId);
    if (run !== undefined) await run.answer(responses as Record<string, unknown>);
    // Running in another process: the bus (if any) takes the answers there; they are checked
    // there, and a malformed one is reported to that server's onerror.
    else this.api.relay({ update: record.task.taskId, r: responses as JsonObject });
    return {};
  }

  async cancel(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> {
    const record = await this.lookup('tasks/cancel', params, ctx);
    if (TERMINAL_STATUSES.has(record.task.status)) return {};
    const run = this.runs.get(record.task.taskId);
    if (run !== undefined) await run.cancel();
    else {
      await this.cancelRecord(record);
      // The record says cancelled from now on; the bus (if any) stops the work where it runs.
      this.api.relay({ cancel: record.task.taskId });
    }
    return {};
  }

  /** Answers for a task of this process, sent through the bus by the instance the client asked. */
  relayedUpdate(taskId: string, responses: Record<string, unknown>): void {
    this.runs
      .get(taskId)
      ?.answer(responses)
      .catch((e: unknown) => this.api.onerror(e instanceof Error ? e : new Error(String(e))));
  }

  /** A cancel for a task of this process, sent through the bus by the instance the client asked. */
  relayedCancel(taskId: string): void {
    this.runs
      .get(taskId)
      ?.cancel()
      .catch((e: unknown) => this.api.onerror(e instanceof Error ? e : new Error(String(e))));
  }

  /** The ids among `ids` that this principal may follow (for a listen stream's `taskIds`). */
  async visible(ids: unknown[], principal: string | undefined): Promise<string[]> {
    const out: string[] = [];
    for (const id of ids) {
      if (typeof id !== 'string' || out.includes(id)) continue;
      const r = await this.store.get(id);
      if (r !== undefined && r.owner === (principal ?? null)) out.push(id);
    }
    return out;
  }

  /** Stops every task running here (they fail: the work is lost), and waits for their records. */
  async close(): Promise<void> {
    await Promise.all([...this.runs.values()].map((r) => r.shutdown()));
  }

  /** Tasks run in the 2026-07-28 era only, for requests that declare the extension. */
  private admit(method: string, ctx: RequestContext): void {
    if (ctx.era !== 'modern') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    if (!declaresTasks(ctx.clientCapabilities)) throw tasksExtensionRequired(method);
  }

  private async lookup(method: string, params: JsonObject | undefined, ctx: RequestContext): Promise<TaskRecord> {
    this.admit(method, ctx);
    const id = params?.taskId;
    if (typeof id !== 'string' || id === '') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${method} needs "taskId" (a string)`);
    const record = await this.store.get(id);
    // Someone else's task answers exactly like an unknown one: ids are not an oracle.
    if (record === undefined || record.owner !== (ctx.authInfo?.principal ?? null)) throw new McpError(ErrorCode.InvalidParams, NOT_FOUND);
    return record;
  }

  /** Cancels a task whose work is not in this process: only its record can change. */
  private async cancelRecord(record: TaskRecord): Promise<void> {
    const { inputRequests: _dropped, ...rest } = record.task;
    const task: DetailedTask = { ...rest, status: 'cancelled', statusMessage: 'Cancelled by the client', lastUpdatedAt: new Date().toISOString() };
    await this.store.put({ ...record, task });
    this.publish(task);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
