import { Console } from 'node:console';
import type { McpServer } from '../server/mcp-server.js';
import { servingPort, type ServerPort } from '../server/server.js';
import type { ServerSession } from '../server/session.js';
import { StdioServerTransport, type StdioServerTransportOptions } from '../transports/stdio/server.js';

export interface ServeStdioOptions extends StdioServerTransportOptions {
  /**
   * Exit the process when the client closes stdin (default true): the spec asks stdio servers to
   * exit promptly on EOF, and a stray timer in user code would otherwise keep it alive.
   */
  exitOnClose?: boolean;
  /**
   * Where `console.log`, `info`, `debug`, `dir` and `table` write while serving on this process's
   * stdout: `'stderr'` (default) keeps a stray `console.log` in a tool from corrupting the protocol
   * stream; `'keep'` leaves the console alone. Ignored when `stdout` is another stream.
   */
  console?: 'stderr' | 'keep';
}

/** Serves `server` on this process's stdin/stdout. Logs belong on stderr from here on. */
export async function serveStdio(server: McpServer | ServerPort, options: ServeStdioOptions = {}): Promise<ServerSession> {
  const { exitOnClose = true, console: consoleMode = 'stderr', ...transportOptions } = options;
  if (consoleMode === 'stderr' && (transportOptions.stdout === undefined || transportOptions.stdout === process.stdout)) consoleToStderr();
  const low = servingPort(server);
  const session = await low.connect(new StdioServerTransport(transportOptions));
  if (exitOnClose) session.onClose(() => setImmediate(() => process.exit(0)));
  return session;
}

/** On a stdio server stdout is the protocol stream: console output that would go there goes to stderr. */
function consoleToStderr(): void {
  // node:console, not the global's `console.Console`: Deno's global console has no constructor.
  const err = new Console({ stdout: process.stderr, stderr: process.stderr });
  console.log = err.log.bind(err);
  console.info = err.info.bind(err);
  console.debug = err.debug.bind(err);
  console.dir = err.dir.bind(err);
  console.table = err.table.bind(err);
}
