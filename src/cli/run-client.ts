// The frame every client command runs in: parse options, connect, run, show failures, close.
import { exitBehind } from '../client/era.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { HttpStatusError } from '../transports/http/client/http-common.js';
import { CLIENT_OPTIONS, flag, isUsageError, parse, UsageError, type OptionSpecs } from './args.js';
import { openConnection, type Connection } from './connection.js';
import { StatusLine } from './term.js';
import type { CliIo } from './io.js';

type Values = ReturnType<typeof parse>['values'];

export interface ClientCommand {
  name: string;
  usage: string;
  /** Positionals after the command name, at least (TARGET counts). */
  minArgs: number;
  maxArgs?: number;
  options?: OptionSpecs;
  run(conn: Connection, args: string[], values: Values): Promise<number>;
  /**
   * Reports a failure to connect instead of the usual one-line error (inspect runs the
   * connection doctor); resolves to the exit code.
   */
  connectFailed?(target: string, err: unknown, values: Values, status: StatusLine, io: CliIo): Promise<number>;
}

/** Runs a client command; resolves to the exit code. */
export async function runClientCommand(cmd: ClientCommand, argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(cmd.name, argv, { ...CLIENT_OPTIONS, ...cmd.options });
  if (flag(values, 'help')) {
    io.stdout.write(cmd.usage);
    return 0;
  }
  if (positionals.length < cmd.minArgs || (cmd.maxArgs !== undefined && positionals.length > cmd.maxArgs)) {
    throw new UsageError(`${cmd.name}: wrong number of arguments\n${cmd.usage.split('\n').find((l) => l.includes('mcpkit')) ?? ''}`);
  }
  const status = new StatusLine(io.stderr, io.env);
  const json = flag(values, 'json');
  let conn: Connection;
  try {
    conn = await openConnection(positionals[0], values, status, io);
  } catch (err) {
    if (isUsageError(err)) throw err;
    if (cmd.connectFailed) return cmd.connectFailed(positionals[0], err, values, status, io);
    showError(err, status, json, io, 'Could not connect');
    return 1;
  }
  let interrupted = false;
  const onSignal = (signal: string) => {
    if (signal !== 'SIGINT') return;
    if (interrupted) return io.exitNow(130);
    interrupted = true;
    status.clear();
    status.print(status.style.yellow('Interrupted: closing the connection (Ctrl-C again to quit at once)'));
    conn.interrupt.abort(new Error('interrupted (Ctrl-C)'));
    void conn.close().finally(() => io.exitNow(130));
  };
  const unsubscribe = io.onSignal(onSignal);
  try {
    return await cmd.run(conn, positionals.slice(1), values);
  } catch (err) {
    status.end(false);
    if (isUsageError(err)) throw err;
    // Ctrl-C already said what happened; the aborted call's error would only repeat it.
    if (interrupted) return 130;
    showError(err, status, json, io);
    return 1;
  } finally {
    unsubscribe();
    await conn.close();
  }
}

/** A failure, said plainly on stderr (and as `{"error": ..., ...extra}` on stdout with --json). */
export function showError(err: unknown, status: StatusLine, json: boolean, io: CliIo, prefix?: string, extra?: Record<string, unknown>): void {
  const s = status.style;
  if (json) {
    const body = err instanceof McpError ? err.toJSON() : { message: err instanceof Error ? err.message : String(err) };
    io.stdout.write(`${JSON.stringify({ error: body, ...extra }, null, 2)}\n`);
  }
  let text: string;
  if (err instanceof McpError) {
    text = `${s.red(s.bold(`✖ JSON-RPC error ${err.code}`))}: ${err.message}`;
    if (err.data !== undefined) text += `\n  ${s.dim('data:')} ${JSON.stringify(err.data)}`;
  } else if (err instanceof LocalError) {
    // A stdio server's stderr was shown as it came: the error need not quote it again.
    const exit = exitBehind(err);
    const message = exit?.stderr ? err.message.replace(`; last stderr: ${exit.stderr}`, ' (its stderr is above)') : err.message;
    text = `${s.red(s.bold('✖'))} ${prefix ? `${prefix}: ` : ''}${message}`;
  } else if (err instanceof HttpStatusError) {
    // The message begins "HTTP 503 Service Unavailable from ...": said once.
    text = `${s.red(s.bold('✖'))} ${prefix ? `${prefix}: ` : ''}${err.message}`;
  } else if (err instanceof AggregateError) {
    text = `${s.red(s.bold('✖'))} ${err.message}`;
  } else {
    text = `${s.red(s.bold('✖'))} ${prefix ? `${prefix}: ` : ''}${err instanceof Error ? err.message : String(err)}`;
  }
  status.print(text);
}
