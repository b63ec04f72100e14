// mcpkit call TARGET TOOL [args], mcpkit read TARGET URI, mcpkit prompt TARGET NAME [args]:
// one request, its progress drawn on stderr, its result on stdout.
import type { McpClient } from '../../client/client.js';
import { LOGGING_LEVELS, type LoggingLevel } from '../../protocol/types.js';
import { flag, isPairs, parseArguments, str, UsageError } from '../args.js';
import { coerceArgument } from '../coerce.js';
import { CLIENT_HELP } from '../connection.js';
import { renderCallResult, renderContent, renderPrompt, renderRead } from '../render.js';
import type { ClientCommand } from '../run-client.js';

const LOG_HELP = `  --log-level LEVEL      ask the server for log messages from LEVEL up (debug, info, ...)
`;

async function applyLogLevel(client: McpClient, level: string | undefined): Promise<void> {
  if (level === undefined) return;
  if (!(LOGGING_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level: one of ${LOGGING_LEVELS.join(', ')}`);
  if (client.serverCapabilities?.logging) await client.setLoggingLevel(level as LoggingLevel);
}

/**
 * The tool's inputSchema, to type `key=value` arguments by; undefined when the server does not
 * list it (then values are guessed from how they look, as without a schema).
 */
async function inputSchemaOf(client: McpClient, tool: string): Promise<unknown> {
  if (!client.serverCapabilities?.tools) return undefined;
  try {
    return (await client.listAllTools()).find((t) => t.name === tool)?.inputSchema;
  } catch {
    return undefined;
  }
}

function json(out: NodeJS.WritableStream, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}

export const callCommand: ClientCommand = {
  name: 'call',
  minArgs: 2,
  options: { 'log-level': { type: 'string' }, 'no-tasks': { type: 'boolean' } },
  usage: `Usage: mcpkit call TARGET TOOL [ARGS] [options]

Calls a tool and prints its result. ARGS is one JSON object ('{"n":5}') or key=value pairs
(n=5 message=hi), typed by the tool's inputSchema: a string parameter gets the text as typed
(message=123 sends "123"), numbers and booleans are parsed, arrays and objects are JSON. For
parameters the schema does not type, values that parse as JSON are sent as such.
Progress is drawn as a bar on a terminal, as lines otherwise; log messages go to stderr.
A 2026-07-28 server may run the call as a task: its status changes are shown on stderr while
it is polled, and Ctrl-C cancels it (tasks/cancel). --timeout then applies to each poll.
A 2025-11-25 server's task tools (execution.taskSupport) are called as tasks too; there
--timeout covers the whole wait for the result (--timeout 0 for long tasks).
Exit code 1 when the tool reports an error (isError) or the call fails.

${CLIENT_HELP}${LOG_HELP}  --no-tasks             no tasks: do not declare the 2026-07-28 extension, and call a 2025-11-25
                         server's optional task tools plainly (the server must answer at once)
`,
  async run(conn, [tool, ...rest], values) {
    const schema = isPairs(rest) ? await inputSchemaOf(conn.client, tool) : undefined;
    const args = parseArguments(rest, schema === undefined ? {} : { coerce: (key, raw) => coerceArgument(key, raw, schema) });
    await applyLogLevel(conn.client, str(values, 'log-level'));
    const { status } = conn;
    status.begin(tool);
    let shown = '';
    const result = await conn.client.callTool(tool, args, {
      onprogress: (p) => status.progress(p),
      resetTimeoutOnProgress: true,
      signal: conn.interrupt.signal,
      ontask: (task) => {
        // Every poll may bring a new update time; a person wants to see the status move.
        const line = `task ${task.taskId} ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`;
        if (line !== shown) status.print(status.style.dim((shown = line)));
      },
    });
    status.end(!result.isError);
    if (flag(values, 'json')) json(conn.io.stdout, result);
    if (result.isError) {
      const s = status.style;
      const text = renderContent(result.content ?? []);
      status.print(`${s.red(s.bold(`✖ Tool "${tool}" returned an error`))} ${s.dim('(isError: true)')}${text ? `\n${text}` : ''}`);
      return 1;
    }
    if (!flag(values, 'json')) conn.io.stdout.write(renderCallResult(result));
    return 0;
  },
};

export const readCommand: ClientCommand = {
  name: 'read',
  minArgs: 2,
  maxArgs: 2,
  options: { 'log-level': { type: 'string' } },
  usage: `Usage: mcpkit read TARGET URI [options]

Reads a resource and prints its contents (binary contents are summarised; use --json for them).

${CLIENT_HELP}${LOG_HELP}`,
  async run(conn, [uri], values) {
    await applyLogLevel(conn.client, str(values, 'log-level'));
    conn.status.begin(uri);
    const r = await conn.client.readResource(uri, { onprogress: (p) => conn.status.progress(p) });
    conn.status.end(true);
    conn.io.stdout.write(flag(values, 'json') ? `${JSON.stringify(r, null, 2)}\n` : renderRead(r));
    return 0;
  },
};

export const promptCommand: ClientCommand = {
  name: 'prompt',
  minArgs: 2,
  options: { 'log-level': { type: 'string' } },
  usage: `Usage: mcpkit prompt TARGET NAME [ARGS] [options]

Gets a prompt and prints its messages. ARGS are key=value pairs or one JSON object; prompt
arguments are strings.

${CLIENT_HELP}${LOG_HELP}`,
  async run(conn, [name, ...rest], values) {
    const raw = parseArguments(rest, { stringsOnly: true });
    const args: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) args[k] = typeof v === 'string' ? v : JSON.stringify(v);
    await applyLogLevel(conn.client, str(values, 'log-level'));
    conn.status.begin(name);
    const r = await conn.client.getPrompt(name, args, { onprogress: (p) => conn.status.progress(p) });
    conn.status.end(true);
    conn.io.stdout.write(flag(values, 'json') ? `${JSON.stringify(r, null, 2)}\n` : renderPrompt(r));
    return 0;
  },
};
