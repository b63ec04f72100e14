import { ErrorCode, LocalError, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import type { RequestOptions } from '../../engine/peer.js';
import { unrefTimer, type Clock, type TimerHandle } from '../../engine/clock.js';
import type { LoggingLevel, ServerTasksCapability } from '../../protocol/types.js';
import { TERMINAL_STATUSES, type TaskStatus } from '../../protocol/tasks.js';
import { features } from '../../protocol/versions.js';
import { ServerContext, type RequestContext, type Session } from '../../server/context.js';

export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** What a 2025-11-25 server with task tools declares in its initialize result. */
export const LEGACY_TASKS_CAPABILITY: ServerTasksCapability = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** The 2025-11-25 Task: `ttl` and `pollInterval` (2026-07-28 renamed them `ttlMs`, `pollIntervalMs`). */
export interface LegacyTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

/** Whether a request is served with 2025-11-25 core tasks (a handshake session at that revision). */
export function usesLegacyTasks(ctx: RequestContext): ctx is ServerContext {
  // Only a ServerContext is of the handshake era.
  return ctx.era === 'handshake' && features.coreTasks(ctx.protocolVersion);
}

export interface LegacyLimits {
  ttlMs: number | null;
  pollIntervalMs: number;
  maxTasks: number;
  clock: Clock;
}

/** Tasks kept at once (finished ones included), as the extension's default store. */
const MAX_STORED = 10_000;
const PAGE_SIZE = 100;
const MAX_TIMER_MS = 2_147_483_647;
const NOT_FOUND = 'Invalid params: no task with this taskId (it is unknown, expired, or not yours)';

/** A question of the handler, waiting for a `tasks/result` stream to carry it. */
interface Question {
  method: string;
  params: JsonObject | undefined;
  options: RequestOptions | undefined;
  resolve(v: JsonObject): void;
  reject(e: unknown): void;
}

type Outcome = { result: JsonObject } | { error: McpError };

/** One 2025-11-25 task: its state, its outcome, and the questions it waits on. */
class Run {
  status: TaskStatus = 'working';
  statusMessage: string | undefined;
  lastUpdatedAt: string;
  readonly createdAt: string;
  readonly expiresAt: number | null;
  outcome: Outcome | undefined;
  readonly controller = new AbortController();
  readonly queue: Question[] = [];
  /** Questions sent and not yet answered. */
  asking = 0;
  /** Pending `tasks/result` requests: the streams questions may travel on. */
  readonly waiters = new Set<ServerContext>();
  private readonly ended: Array<() => void> = [];
  timer: TimerHandle | undefined;

  constructor(
    readonly taskId: string,
    /** The principal, or (unauthenticated) the session: nobody else may see the task. */
    readonly owner: string | Session,
    readonly session: Session,
    readonly ttl: number | null,
    readonly pollInterval: number,
    private readonly clock: Clock,
  ) {
    const now = clock.now();
    this.createdAt = this.lastUpdatedAt = new Date(now).toISOString();
    this.expiresAt = ttl === null ? null : now + ttl;
  }

  get terminal(): boolean {
    return TERMINAL_STATUSES.has(this.status);
  }

  wire(): LegacyTask {
    const t: LegacyTask = {
      taskId: this.taskId,
      status: this.status,
      createdAt: this.createdAt,
      lastUpdatedAt: this.lastUpdatedAt,
      ttl: this.ttl,
      pollInterval: this.pollInterval,
    };
    if (this.statusMessage !== undefined) t.statusMessage = this.statusMessage;
    return t;
  }

  /** Resolves once the task is terminal. */
  done(): Promise<void> {
    return this.terminal ? Promise.resolve() : new Promise((r) => this.ended.push(r));
  }

  set(status: TaskStatus, message?: string): void {
    if (this.terminal) return;
    this.status = status;
    this.statusMessage = message;
    this.lastUpdatedAt = new Date().toISOString();
    if (this.terminal) {
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      if (status !== 'completed') this.controller.abort(new LocalError('aborted', message ?? `The task is ${status}`));
      for (const q of this.queue.splice(0)) q.reject(new LocalError('aborted', `The task is ${status}`));
      for (const r of this.ended.splice(0)) r();
    }
    // Optional per spec (clients keep polling); a closed connection just misses it.
    if (this.session.ready) {
      this.session.notify('notifications/tasks/status', this.wire() as unknown as JsonObject).catch(() => undefined);
    }
  }
}

/**
 * 2025-11-25 experimental core tasks (SEP-1686) for handshake sessions at that revision:
 * task-augmented `tools/call`, `tasks/get|result|list|cancel`, and questions of a task's handler
 * sent to the client on the stream of a pending `tasks/result`. Tasks live in this process only:
 * the handshake era's sessions do too.
 */
export class LegacyTasks {
  private readonly runs = new Map<string, Run>();
  private running = 0;
  private readonly watched = new WeakSet<Session>();

  constructor(private readonly limits: LegacyLimits) {}

  /** A tools/call with `params.task`: answers with the CreateTaskResult and runs `execute` behind it. */
  create(ctx: ServerContext, taskParam: unknown, execute: (ctx: RequestContext) => Promise<JsonObject> | JsonObject): JsonObject {
    if (taskParam === null || typeof taskParam !== 'object' || Array.isArray(taskParam)) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "task" must be an object');
    }
    const asked = (taskParam as { ttl?: unknown }).ttl;
    if (asked !== undefined && asked !== null && !(typeof asked === 'number' && Number.isInteger(asked) && asked > 0)) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "task.ttl" must be a positive integer (ms)');
    }
    if (this.running >= this.limits.maxTasks)
      throw new McpError(ErrorCode.InternalError, `Cannot start a task: ${this.limits.maxTasks} tasks are already running`);
    if (this.runs.size >= MAX_STORED) this.sweep();
    if (this.runs.size >= MAX_STORED) throw new McpError(ErrorCode.InternalError, `Cannot start a task: ${MAX_STORED} tasks are kept already`);
    // The client may shorten the TTL, never lengthen it past the server's cap.
    const cap = this.limits.ttlMs;
    const ttl = typeof asked === 'number' ? (cap === null ? asked : Math.min(asked, cap)) : cap;
    const session = ctx.session;
    const principal = ctx.authInfo?.principal;
    const run = new Run(globalThis.crypto.randomUUID(), principal ?? session, session, ttl, this.limits.pollIntervalMs, this.limits.clock);
    this.runs.set(run.taskId, run);
    this.running++;
    if (principal === undefined) this.forgetOnClose(session);
    if (ttl !== null && ttl <= MAX_TIMER_MS) {
      // Past its TTL the task is gone; work still running has nobody left to report to.
      run.timer = this.limits.clock.setTimeout(() => {
        this.finish(run, { error: new McpError(ErrorCode.InternalError, 'The task expired before it finished') }, 'failed');
        this.runs.delete(run.taskId);
      }, ttl);
      unrefTimer(run.timer);
    }
    const taskCtx = new LegacyTaskContext(ctx, run, (m, p, o) => this.ask(run, m, p, o));
    queueMicrotask(() => {
      let out: Promise<JsonObject> | JsonObject;
      try {
        out = execute(taskCtx);
      } catch (err) {
        this.settle(run, err);
        return;
      }
      Promise.resolve(out).then(
        (r) => this.finish(run, { result: r }, r.isError === true ? 'failed' : 'completed'),
        (e: unknown) => this.settle(run, e),
      );
    });
    return { task: run.wire() as unknown as JsonObject };
  }

  get(params: JsonObject | undefined, ctx: ServerContext): JsonObject {
    return this.lookup('tasks/get', params, ctx).wire() as unknown as JsonObject;
  }

  /** Blocks until the task is terminal, carrying its questions to the client meanwhile. */
  async result(params: JsonObject | undefined, ctx: ServerContext): Promise<JsonObject> {
    const run = this.lookup('tasks/result', params, ctx);
    if (!run.terminal) {
      run.waiters.add(ctx);
      try {
        this.pump(run);
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => reject(ctx.signal.reason);
          if (ctx.signal.aborted) return onAbort();
          ctx.signal.addEventListener('abort', onAbort, { once: true });
          void run.done().then(() => {
            ctx.signal.removeEventListener('abort', onAbort);
            resolve();
          });
        });
      } finally {
        run.waiters.delete(ctx);
      }
    }
    const related = { [RELATED_TASK]: { taskId: run.taskId } };
    const outcome = run.outcome;
    if (outcome === undefined) throw new McpError(ErrorCode.InternalError, `The task was ${run.status}`, { _meta: related });
    if ('error' in outcome) throw outcome.error;
    const meta = outcome.result._meta;
    return { ...outcome.result, _meta: { ...(meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? meta : {}), ...related } };
  }

  list(params: JsonObject | undefined, ctx: ServerContext): JsonObject {
    const owner = ownerOf(ctx);
    const now = this.limits.clock.now();
    const mine = [...this.runs.values()].filter((r) => r.owner === owner && (r.expiresAt === null || r.expiresAt > now));
    let start = 0;
    const cursor = params?.cursor;
    if (cursor !== undefined) {
      start = typeof cursor === 'string' ? mine.findIndex((r) => r.taskId === cursor) : -1;
      if (start < 0) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown cursor');
    }
    const page = mine.slice(start, start + PAGE_SIZE);
    const out: JsonObject = { tasks: page.map((r) => r.wire()) as unknown as JsonObject[] };
    if (start + PAGE_SIZE < mine.length) out.nextCursor = mine[start + PAGE_SIZE].taskId;
    return out;
  }

  cancel(params: JsonObject | undefined, ctx: ServerContext): JsonObject {
    const run = this.lookup('tasks/cancel', params, ctx);
    if (run.terminal) throw new McpError(ErrorCode.InvalidParams, `Invalid params: the task is already ${run.status}`);
    this.finish(run, undefined, 'cancelled', 'Cancelled by the client');
    return run.wire() as unknown as JsonObject;
  }

  /** Stops every running task (server shutdown). */
  close(): void {
    for (const run of this.runs.values())
      this.finish(run, { error: new McpError(ErrorCode.InternalError, 'The server shut down before the task finished') }, 'failed');
  }

  /** A question from a task's handler: queued until a `tasks/result` carries it. */
  private ask(run: Run, method: string, params: JsonObject | undefined, options: RequestOptions | undefined): Promise<JsonObject> {
    if (run.terminal) return Promise.reject(new LocalError('aborted', `The task is ${run.status}`));
    const meta = params?._meta;
    const tagged: JsonObject = {
      ...params,
      _meta: { ...(meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? meta : {}), [RELATED_TASK]: { taskId: run.taskId } },
    };
    return new Promise<JsonObject>((resolve, reject) => {
      run.queue.push({ method, params: tagged, options, resolve, reject });
      if (run.status !== 'input_required') run.set('input_required');
      this.pump(run);
    });
  }

  /** Sends queued questions on the stream of a pending `tasks/result`, if there is one. */
  private pump(run: Run): void {
    while (run.queue.length > 0) {
      const waiter = [...run.waiters].find((w) => !w.signal.aborted);
      if (waiter === undefined) return;
      const q = run.queue.shift()!;
      run.asking++;
      waiter.sendRelated(q.method, q.params, q.options).then(
        (answer) => {
          run.asking--;
          q.resolve(answer);
          if (run.asking === 0 && run.queue.length === 0 && run.status === 'input_required') run.set('working');
        },
        (err: unknown) => {
          run.asking--;
          // The stream went away before the answer came: the next tasks/result asks again.
          if (waiter.signal.aborted && !run.terminal) {
            run.queue.unshift(q);
            this.pump(run);
          } else q.reject(err);
        },
      );
    }
  }

  private settle(run: Run, err: unknown): void {
    const e = err instanceof McpError ? err : new McpError(ErrorCode.InternalError, err instanceof Error ? err.message || err.name : String(err));
    this.finish(run, { error: e }, 'failed');
  }

  private finish(run: Run, outcome: Outcome | undefined, status: 'completed' | 'failed' | 'cancelled', message?: string): void {
    if (run.terminal) return;
    run.outcome = outcome;
    this.running--;
    run.set(status, message ?? (outcome !== undefined && 'error' in outcome ? outcome.error.message : undefined));
  }

  private lookup(method: string, params: JsonObject | undefined, ctx: ServerContext): Run {
    const id = params?.taskId;
    if (typeof id !== 'string' || id === '') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${method} needs "taskId" (a string)`);
    const run = this.runs.get(id);
    // Someone else's task answers exactly like an unknown one: ids are not an oracle.
    if (run === undefined || run.owner !== ownerOf(ctx)) throw new McpError(ErrorCode.InvalidParams, NOT_FOUND);
    if (run.expiresAt !== null && run.expiresAt <= this.limits.clock.now()) {
      this.runs.delete(id);
      throw new McpError(ErrorCode.InvalidParams, NOT_FOUND);
    }
    return run;
  }

  /** Tasks bound to a session (no principal) are unreachable once it closes: they stop and go. */
  private forgetOnClose(session: Session): void {
    if (this.watched.has(session)) return;
    this.watched.add(session);
    session.onClose(() => {
      for (const run of this.runs.values()) {
        if (run.owner !== session) continue;
        this.finish(run, undefined, 'cancelled', 'The connection closed');
        this.runs.delete(run.taskId);
      }
    });
  }

  private sweep(): void {
    const now = this.limits.clock.now();
    for (const [id, r] of this.runs) if (r.terminal && r.expiresAt !== null && r.expiresAt <= now) this.runs.delete(id);
  }
}

function ownerOf(ctx: ServerContext): string | Session {
  return ctx.authInfo?.principal ?? ctx.session;
}

/**
 * The context of a handler running as a 2025-11-25 task. The tools/call was answered with the
 * task already, so nothing may travel on its stream: questions wait for `tasks/result`, and
 * progress and logs go out on the session, tagged with the task.
 */
class LegacyTaskContext extends ServerContext {
  constructor(
    origin: ServerContext,
    private readonly run: Run,
    private readonly question: (method: string, params: JsonObject | undefined, options: RequestOptions | undefined) => Promise<JsonObject>,
  ) {
    const { inbound, envelope } = origin.origin;
    super(origin.session, inbound, envelope);
  }

  override get signal(): AbortSignal {
    return this.run.controller.signal;
  }

  override get taskId(): string {
    return this.run.taskId;
  }

  override progress(progress: number, total?: number, message?: string): Promise<void> {
    // The request's progress token stays valid until the task is terminal (2025-11-25).
    const token = this.meta?.progressToken;
    if ((typeof token !== 'string' && typeof token !== 'number') || this.run.terminal) return Promise.resolve();
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return this.session.notify('notifications/progress', this.tag(params));
  }

  override log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!this.session.wantsLog(level)) return Promise.resolve();
    const params: JsonObject = { level, data: data as JsonObject };
    if (logger !== undefined) params.logger = logger;
    return this.session.notify('notifications/message', this.tag(params));
  }

  override notify(method: string, params?: JsonObject): Promise<void> {
    return this.session.notify(method, this.tag(params ?? {}));
  }

  protected override ask(method: string, params: JsonObject | undefined, options?: RequestOptions): Promise<JsonObject> {
    return this.question(method, params, options);
  }

  private tag(params: JsonObject): JsonObject {
    return { ...params, _meta: { ...(params._meta as JsonObject | undefined), [RELATED_TASK]: { taskId: this.run.taskId } } };
  }
}
