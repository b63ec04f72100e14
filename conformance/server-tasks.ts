// The conformance server's fixtures for the io.modelcontextprotocol/tasks scenarios (SEP-2663):
// a client that declares the extension gets a CreateTaskResult from the task tools and polls
// tasks/get; one that does not gets the ordinary result (optional tools) or -32021 (required ones).
import { z } from 'zod';
import { ErrorCode, McpError, type McpServer } from '../src/entries/server.js';

export const NAME_FORM = {
  message: 'What is your name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sleeps `ms`, or less when `signal` fires first. */
function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Registers the task fixtures (the server must have the tasks extension installed). */
export function registerTaskTools(server: McpServer): void {
  // The fixtures of the io.modelcontextprotocol/tasks scenarios. A client that declares the
  // extension gets a CreateTaskResult from the task tools and polls tasks/get; one that does not
  // gets the ordinary result (optional tools) or -32021 (required ones).

  server.tool('greet', { description: 'Sync-only: returns Hello, {name}!', input: { name: z.string() } }, ({ name }) => `Hello, ${name}!`);

  server.tool(
    'slow_compute',
    {
      description: 'Task-supporting: sleeps `seconds`, then answers; stops (cancelled) on tasks/cancel',
      input: { seconds: z.number().min(0), label: z.string().optional() },
      task: 'optional',
    },
    async ({ seconds, label }, ctx) => {
      await sleepUnlessAborted(seconds * 1000, ctx.signal);
      ctx.signal.throwIfAborted();
      return `Computed ${label ?? 'result'} in ${seconds}s`;
    },
  );

  server.tool('failing_job', { description: 'Task-only: fails with a tool error (isError) after about a second', task: 'required' }, async (_args, ctx) => {
    await sleepUnlessAborted(1000, ctx.signal);
    throw new Error('failing_job failed, as it always does');
  });

  server.tool('protocol_error_job', { description: 'Task-supporting: ends in a JSON-RPC error (a failed task)', task: 'optional' }, async () => {
    await sleep(100);
    throw new McpError(ErrorCode.InternalError, 'protocol_error_job hit a protocol-level failure');
  });

  server.tool(
    'confirm_delete',
    { description: 'Task-supporting: asks for a confirmation (one elicitation), then answers', input: { filename: z.string() }, task: 'optional' },
    async ({ filename }, ctx) => {
      const r = await ctx.elicit({
        message: `Delete ${filename}?`,
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', description: 'Really delete it' } }, required: ['confirm'] },
      });
      return r.action === 'accept' && r.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename} (${r.action})`;
    },
  );

  server.tool('multi_input', { description: 'Task-supporting: asks two questions at once', task: 'optional' }, async (_args, ctx) => {
    const form = {
      type: 'object' as const,
      properties: { name: { type: 'string' as const }, confirm: { type: 'boolean' as const } },
    };
    const [a, b] = await Promise.all([
      ctx.elicit({ message: 'First question', requestedSchema: form }),
      ctx.elicit({ message: 'Second question', requestedSchema: form }),
    ]);
    return `Answers: ${String(a.content?.name ?? a.action)}, ${String(b.content?.name ?? b.action)}`;
  });

  // MRTR first (a plain input_required round, no task yet), then the handler makes the task.
  server.tool(
    'test_tool_with_task',
    { description: 'Asks for a name over MRTR, then continues as a task (taskSupport required)', task: { support: 'required', start: 'handler' } },
    async (_args, ctx) => {
      const r = await ctx.elicit(NAME_FORM, { key: 'user_name' });
      await ctx.startTask();
      await sleep(100);
      return `Hello, ${String(r.content?.name ?? 'stranger')}, from task ${ctx.taskId ?? '(none)'}`;
    },
  );
}
