import type { JsonObject, JsonRpcErrorObject } from '../jsonrpc/messages.js';
import type { InputRequests } from './params.js';
import type { ClientCapabilities } from './types.js';

/**
 * The `io.modelcontextprotocol/tasks` extension of 2026-07-28 (SEP-2663): a server may answer a
 * request with a task instead of its result; the client polls `tasks/get`, answers input with
 * `tasks/update` and stops it with `tasks/cancel`. Declared under `capabilities.extensions` on
 * both sides (per request by the client, in `server/discover` by the server).
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
export type TaskMethod = (typeof TASK_METHODS)[number];

/** The 2025-11-25 methods the extension removed: -32601 in the stateless era. */
export const REMOVED_TASK_METHODS: ReadonlySet<string> = new Set(['tasks/result', 'tasks/list']);

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/**
 * Whether a tool may, or must, be run as a task. The server's registration decides, never the
 * client: a client only declares that it can handle a task. `required`: a request that did not
 * declare the extension is refused with -32021.
 */
export type TaskSupport = 'optional' | 'required';

/** Whether a request's capabilities declare the tasks extension (the per-request opt-in). */
export function declaresTasks(caps: ClientCapabilities | undefined): boolean {
  const v = caps?.extensions?.[TASKS_EXTENSION];
  return v !== null && typeof v === 'object';
}

/** What every task carries. Timestamps are ISO 8601; durations are integer milliseconds. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the task stays readable after it was created; null: no limit. */
  ttlMs: number | null;
  /** How often the server suggests polling `tasks/get`. */
  pollIntervalMs?: number;
}

/** The result of a request the server chose to run as a task: flat, `resultType: "task"`. */
export interface CreateTaskResult extends Task {
  resultType: 'task';
  _meta?: JsonObject;
}

/** `tasks/get`: the task, plus what its status implies. */
export interface DetailedTask extends Task {
  /** Present while `status` is `input_required`: the questions not yet answered. */
  inputRequests?: InputRequests;
  /** Present when `completed`: the request's result (a tool error is still `completed`). */
  result?: JsonObject;
  /** Present when `failed`: the JSON-RPC error the request ended with. */
  error?: JsonRpcErrorObject;
}

export interface TaskIdParams {
  taskId: string;
}

export interface UpdateTaskParams extends TaskIdParams {
  /** Answers by input key; keys that are not pending are ignored. */
  inputResponses: JsonObject;
}

/** `notifications/tasks`: the whole task, as `tasks/get` would return it at that moment. */
export type TaskNotificationParams = DetailedTask & { _meta?: JsonObject };

/** The `subscriptions/listen` filter key for status notifications (`notifications/tasks`). */
export const TASK_NOTIFICATION = 'notifications/tasks';
