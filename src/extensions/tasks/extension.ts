import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import { declaresTasks, TASKS_EXTENSION, type TaskSupport } from '../../protocol/tasks.js';
import type { Tool } from '../../protocol/types.js';
import { features } from '../../protocol/versions.js';
import type { ServerExtension } from '../../server/extension.js';
import { LEGACY_TASKS_CAPABILITY, LegacyTasks, usesLegacyTasks } from './legacy.js';
import { TaskManager, taskLimits, tasksExtensionRequired, toolTaskOptions, type TaskServerOptions, type ToolTaskOptions } from './manager.js';

export type { TaskServerOptions, ToolTaskOptions };

declare module '../../server/tools.js' {
  interface ToolConfig {
    /**
     * Tasks (installed with `tasks()`): the tool may (`'optional'`) or must (`'required'`) run
     * as a task. 2026-07-28 (`io.modelcontextprotocol/tasks`): for clients that declare the
     * extension; without it an optional tool runs as usual and a required one is refused with
     * -32021. Handshake sessions at 2025-11-25 see it as `execution.taskSupport` (core tasks:
     * the client augments the call with `task`; a plain call to a required tool is -32601);
     * older revisions run it as an ordinary tool. The object form picks who creates the task
     * (see ToolTaskOptions). An `McpError` thrown by a task tool is a protocol error (a failed
     * task, or a JSON-RPC error when run synchronously), not an `isError` result.
     */
    task?: TaskSupport | ToolTaskOptions;
  }
}

/**
 * Both task flavours with one set of limits: the 2026-07-28 extension and 2025-11-25 core
 * tasks. `new McpServer({ name, version, extensions: [tasks({ pollIntervalMs: 500 })] })`.
 */
export function tasks(options: TaskServerOptions = {}): ServerExtension[] {
  return [modernTasks(options), coreTasks(options)];
}

/**
 * The `io.modelcontextprotocol/tasks` extension (2026-07-28, SEP-2663): `server/discover`
 * advertises it, task tools answer clients that declare it with a task, and `tasks/get`,
 * `tasks/update` and `tasks/cancel` are served; listen streams may follow tasks (`taskIds`).
 */
export function modernTasks(options: TaskServerOptions = {}): ServerExtension {
  taskLimits(options); // bad settings fail where they are written
  return {
    name: TASKS_EXTENSION,
    setup(api) {
      const m = new TaskManager(api, options);
      const era = { era: 'modern' } as const;
      api.setRequestHandler('tasks/get', (p, ctx) => m.get(p, ctx), era);
      api.setRequestHandler('tasks/update', (p, ctx) => m.update(p, ctx), era);
      api.setRequestHandler('tasks/cancel', (p, ctx) => m.cancel(p, ctx), era);
      return {
        discover: () => ({}),
        async listen(want, request) {
          if (want.taskIds === undefined) return undefined;
          if (!declaresTasks(request.clientCapabilities)) throw tasksExtensionRequired('notifications/tasks');
          // Only the caller's own tasks: someone else's id is acknowledged no more than an unknown one.
          return Array.isArray(want.taskIds) ? { taskIds: await m.visible(want.taskIds, request.principal) } : {};
        },
        toolOptions: ['task'],
        tool(name, config) {
          const task = toolTaskOptions(name, config.task);
          if (task === undefined) return undefined;
          return { call: (_params, ctx, next) => m.callTool(task, ctx, () => next(ctx)), protocolErrors: true };
        },
        relayed: (data) => m.relayed(data),
        close: () => m.close(),
      };
    },
  };
}

/**
 * 2025-11-25 experimental core tasks (SEP-1686) for handshake sessions at that revision: the
 * `tasks` capability, `execution.taskSupport` in tools/list, task-augmented `tools/call`, and
 * `tasks/get|result|list|cancel`. Older revisions never see any of it.
 */
export function coreTasks(options: TaskServerOptions = {}): ServerExtension {
  const limits = taskLimits(options);
  return {
    name: 'mcpkit/core-tasks',
    setup(api) {
      const legacy = new LegacyTasks(limits);
      const era = { era: 'handshake' } as const;
      const only = (method: string, fn: (p: JsonObject | undefined, ctx: Parameters<typeof usesLegacyTasks>[0]) => Promise<JsonObject> | JsonObject) =>
        api.setRequestHandler(
          method,
          (p, ctx) => {
            if (!usesLegacyTasks(ctx)) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
            return fn(p, ctx);
          },
          era,
        );
      only('tasks/get', (p, ctx) => legacy.get(p, ctx as never));
      only('tasks/result', (p, ctx) => legacy.result(p, ctx as never));
      only('tasks/list', (p, ctx) => legacy.list(p, ctx as never));
      only('tasks/cancel', (p, ctx) => legacy.cancel(p, ctx as never));
      return {
        initialize: (version) => (features.coreTasks(version) ? { tasks: LEGACY_TASKS_CAPABILITY } : undefined),
        toolOptions: ['task'],
        tool(name, config) {
          const task = toolTaskOptions(name, config.task);
          if (task === undefined) {
            // An ordinary tool: a task-augmented call is refused; anything else runs as usual.
            return {
              call: (params, ctx, next) => {
                if (params?.task !== undefined && usesLegacyTasks(ctx))
                  throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" does not support task-augmented calls`);
                return next(ctx);
              },
            };
          }
          let listed: Tool | undefined;
          return {
            // `execution` is a 2025-11-25 field (absent: forbidden); 2026-07-28 dropped it.
            list: (wire, ctx) => (usesLegacyTasks(ctx) ? (listed ??= { ...wire, execution: { taskSupport: task.support } }) : wire),
            call: (params, ctx, next) => {
              if (!usesLegacyTasks(ctx)) return next(ctx);
              // The client decides by augmenting, within what the tool allows.
              if (params?.task !== undefined) return legacy.create(ctx, params.task, (c) => next(c));
              if (task.support === 'required') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" must be called as a task (params.task)`);
              return next(ctx);
            },
            protocolErrors: true,
          };
        },
        close: () => legacy.close(),
      };
    },
  };
}
