import { LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { RequestOptions } from '../engine/peer.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { ServerCapabilities, Tool, ToolExecution } from '../protocol/types.js';
import { features } from '../protocol/versions.js';
import type { CallOptions } from './calls.js';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

type Support = NonNullable<ToolExecution['taskSupport']>;

/** What {@link CoreTasks} borrows from the client. */
export interface CoreTaskHost {
  /** Sends a request as the client does (capability checks, session recovery), never augmented. */
  request(method: string, params: JsonObject | undefined, options: RequestOptions | undefined): Promise<JsonObject>;
  /** Whether the `tasks` client option asks for tasks where a tool makes them optional. */
  optIn(): boolean;
  /** Best-effort `tasks/cancel`, which close() waits a moment for. */
  cancel(taskId: string): void;
  warn(message: string): void;
}

/**
 * 2025-11-25 core tasks in the handshake era: a tools/call the tool requires (or allows, and the
 * caller wants) to be a task is sent with `params.task`, then `tasks/result` blocks until the
 * task ends. The server's questions of the task come meanwhile as ordinary requests, on the
 * `tasks/result` stream, so the client's handlers answer them without help from here.
 */
export class CoreTasks {
  /** Set for a session at 2025-11-25 whose server runs tools/call as tasks. */
  active = false;
  private readonly support = new Map<string, Support>();
  /** Every page of tools/list read since the last change: an unknown tool then has no task support. */
  private complete = false;
  private listing: Promise<void> | undefined;

  constructor(private readonly host: CoreTaskHost) {}

  /** A new (or re-initialized) session: what the old one said about tools may no longer hold. */
  reset(protocolVersion: string | undefined, caps: ServerCapabilities | undefined): void {
    this.active = protocolVersion !== undefined && features.coreTasks(protocolVersion) && !!caps?.tasks?.requests?.tools?.call;
    this.forget();
  }

  /** notifications/tools/list_changed: a tool's task support may have changed with it. */
  forget(): void {
    this.support.clear();
    this.complete = false;
    this.listing = undefined;
  }

  /** Notes which tools allow or need tasks, from every handshake-era tools/list result. */
  observe(method: string, result: JsonObject): JsonObject {
    if (this.active && method === 'tools/list' && Array.isArray(result.tools)) {
      for (const tool of result.tools as unknown as Tool[]) {
        const s = tool?.execution?.taskSupport;
        if (typeof tool?.name !== 'string') continue;
        if (s === 'optional' || s === 'required') this.support.set(tool.name, s);
        else this.support.set(tool.name, 'forbidden');
      }
    }
    return result;
  }

  /** A tools/call in the handshake era: plain, or as a task followed to its end. */
  async call(params: JsonObject, options: CallOptions | undefined): Promise<JsonObject> {
    const name = typeof params.name === 'string' ? params.name : '';
    const asked = options?.task;
    const wanted = asked === false ? false : await this.wants(name, asked !== undefined || this.host.optIn(), options);
    if (!wanted) return this.host.request('tools/call', params, options);
    const ttl = typeof asked === 'object' ? asked.ttlMs : undefined;
    const { signal, timeoutMs, ontask } = options ?? {};
    // Progress of a task outlives the tools/call request, so it is not asked for here.
    const created = await this.host.request('tools/call', { ...params, task: ttl === undefined ? {} : { ttl } }, { signal, timeoutMs });
    const task = created.task as JsonObject | undefined;
    const taskId = task?.taskId;
    // A server may still answer at once (it need not honour the augmentation).
    if (task === undefined && Array.isArray(created.content)) return created;
    if (typeof taskId !== 'string' || taskId === '')
      throw new LocalError('protocol', `The server answered a task-augmented tools/call without a task: ${JSON.stringify(created).slice(0, 300)}`);
    tell(ontask, task!, this.host);
    let over = false;
    const cancel = () => {
      if (!over) this.host.cancel(taskId);
      over = true;
    };
    // At once, not when the rejection is handled: a caller that aborts and then closes the
    // client (Ctrl-C in the CLI) must find the tasks/cancel already on its way.
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const result = await this.host.request(
        'tasks/result',
        { taskId },
        { signal, timeoutMs, resetTimeoutOnProgress: options?.resetTimeoutOnProgress, maxTotalTimeoutMs: options?.maxTotalTimeoutMs },
      );
      over = true;
      if (ontask) await this.showEnd(taskId, ontask);
      return withoutRelated(result);
    } catch (err) {
      // The server's answer means the task is over (failed or cancelled): nothing to cancel.
      if (err instanceof McpError) {
        over = true;
        if (ontask) await this.showEnd(taskId, ontask);
        throw err;
      }
      // Timed out, aborted, or the connection went: nobody else knows the task's id.
      if (!(err instanceof LocalError && err.kind === 'closed')) cancel();
      throw err;
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  /** Whether to augment: always for 'required' tools, for 'optional' ones when asked. */
  private async wants(name: string, optIn: boolean, options: CallOptions | undefined): Promise<boolean> {
    if (!this.support.has(name) && !this.complete) await this.listAll(options);
    const s = this.support.get(name);
    return s === 'required' || (s === 'optional' && optIn);
  }

  /** Reads tools/list once (shared by concurrent calls), so observe() learns every tool. */
  private listAll(options: CallOptions | undefined): Promise<void> {
    this.listing ??= (async () => {
      let cursor: string | undefined;
      for (let page = 0; page < 1000; page++) {
        const r = await this.host.request('tools/list', cursor === undefined ? undefined : { cursor }, {
          signal: options?.signal,
          timeoutMs: options?.timeoutMs,
        });
        if (typeof r.nextCursor !== 'string') break;
        cursor = r.nextCursor;
      }
      this.complete = true;
    })().catch((err: unknown) => {
      // The call goes on plainly; the next one tries again.
      this.listing = undefined;
      this.host.warn(`tools/list (to learn which tools need tasks) failed: ${err instanceof Error ? err.message : String(err)}`);
    });
    return this.listing;
  }

  /** ontask sees the terminal state too (one tasks/get, best effort). */
  private async showEnd(taskId: string, ontask: NonNullable<CallOptions['ontask']>): Promise<void> {
    try {
      tell(ontask, await this.host.request('tasks/get', { taskId }, { timeoutMs: 10_000 }), this.host);
    } catch {
      // The result is what matters; a task already gone just goes unreported.
    }
  }
}

function tell(ontask: CallOptions['ontask'], raw: JsonObject, host: CoreTaskHost): void {
  if (!ontask) return;
  try {
    ontask(modernNames(raw));
  } catch (err) {
    host.warn(`ontask threw: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A 2025-11-25 Task (`ttl`, `pollInterval`) with the extension's names added, the originals kept. */
export function modernNames(raw: JsonObject): DetailedTask {
  const t: Record<string, unknown> = { ...raw };
  if (t.ttlMs === undefined && (typeof t.ttl === 'number' || t.ttl === null)) t.ttlMs = t.ttl;
  if (t.pollIntervalMs === undefined && typeof t.pollInterval === 'number') t.pollIntervalMs = t.pollInterval;
  return t as unknown as DetailedTask;
}

/** The tool's result as a plain call returns it: without the related-task tag tasks/result adds. */
function withoutRelated(result: JsonObject): JsonObject {
  const meta = result._meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta) || !(RELATED_TASK in meta)) return result;
  const { [RELATED_TASK]: _r, ...rest } = meta;
  const { _meta: _m, ...plain } = result;
  return Object.keys(rest).length > 0 ? { ...plain, _meta: rest } : plain;
}
