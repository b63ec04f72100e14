import type { McpServer } from '../server/mcp-server.js';
import { lowLevelServer, type Server } from '../server/server.js';
import type { ServerSession } from '../server/session.js';
import { StdioServerTransport, type StdioServerTransportOptions } from '../transports/stdio/server.js';

export interface ServeStdioOptions extends StdioServerTransportOptions {
  /**
   * Exit the process when the client closes stdin (default true): the spec asks stdio servers to
   * exit promptly on EOF, and a stray timer in user code would otherwise keep it alive.
   */
  exitOnClose?: boolean;
}

/** Serves `server` on this process's stdin/stdout. Logs belong on stderr from here on. */
export async function serveStdio(server: McpServer | Server, options: ServeStdioOptions = {}): Promise<ServerSession> {
  const { exitOnClose = true, ...transportOptions } = options;
  const low = lowLevelServer(server);
  const session = await low.connect(new StdioServerTransport(transportOptions));
  if (exitOnClose) session.onClose(() => setImmediate(() => process.exit(0)));
  return session;
}
