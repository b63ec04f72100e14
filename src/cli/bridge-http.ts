// `mcpkit bridge --http -- COMMAND ARGS`: a stdio server exposed over HTTP.
//
// ONE child process, reached through one McpClient spoken to in the handshake era (list changes,
// subscriptions and a connection-wide log level are what relaying to many sessions is built on),
// behind the relay core's Bridge (gateway/bridge.ts): a Server with the child's identity that
// serves any number of sessions in both eras, over Streamable HTTP and HTTP+SSE, with API keys and
// Origin checks. What crosses, and how the child's questions find the HTTP client whose call they
// belong to (or are refused), is the relay's; this file starts the child and serves the bridge.
// Limits: state the child keeps per connection is shared by every HTTP session (it has one).
import { McpClient } from '../client/client.js';
import { exitBehind } from '../client/era.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { Bridge } from '../gateway/bridge.js';
import { serve, type ServeOptions } from '../serving/node.js';
import type { Server } from '../server/server.js';
import { StdioClientTransport } from '../transports/stdio/client.js';
import { version } from './args.js';

export interface ProxyServer {
  server: Server;
  client: McpClient;
  /** Resolves once no forwarded request is in flight and the answers given have been sent. */
  answered(): Promise<void>;
  close(): Promise<void>;
}

/** Connects to the stdio server and builds the Server that forwards to it. */
export async function createProxyServer(command: string, args: string[], env: Record<string, string>, stderr: NodeJS.WritableStream): Promise<ProxyServer> {
  const bridge = new Bridge({
    name: 'stdio server',
    words: {
      idle: (_s, what) => `Bridge: the stdio server sent ${what ?? 'a request'} while no HTTP request was in progress to route it to`,
      ambiguous: (_s, clients, what) =>
        `Bridge: the stdio server asked for input (${what ?? 'a request'}) without saying for which call, and ${clients} HTTP clients ` +
        'have calls in progress; refused rather than shown to the wrong one (a handshake-era stdio server cannot say whose call it asks for)',
    },
    // The caller is told at once, in words, rather than left waiting for a server that is gone.
    reword: (err, method) => {
      const exit = exitBehind(err);
      return exit && new McpError(ErrorCode.InternalError, `Bridge: the stdio server exited (${exit.how}) before answering ${method}`);
    },
  });
  // The child's stderr is its log: it goes to ours (the command's, which may not be the process's).
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  transport.stderr?.pipe(stderr, { end: false });
  const client = new McpClient({
    name: 'mcpkit-bridge',
    version: version(),
    era: 'handshake',
    requestTimeoutMs: 0,
    elicitationUrl: true,
    ...bridge.clientHandlers(),
  });
  await client.connect(transport);
  const server = await bridge.open(client);
  return {
    server,
    client,
    answered: () => bridge.answered(),
    close: () => bridge.close(),
  };
}

/** Starts the proxy and serves it over HTTP. */
export async function bridgeHttp(command: string, args: string[], env: Record<string, string>, options: ServeOptions, stderr: NodeJS.WritableStream) {
  const proxy = await createProxyServer(command, args, env, stderr);
  const running = await serve(proxy.server, options);
  return { proxy, running };
}
