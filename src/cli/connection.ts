// Opens a client connection to a TARGET for the client commands: the transport (stdio or
// HTTP), tracing, log notifications on stderr, the server's own stderr, and the handlers that
// answer elicitation and sampling.
import { createInterface } from 'node:readline';
import { McpClient, type ClientOptions } from '../client/client.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import { exitBehind, ProbeClosedError, ServerExitedError } from '../client/era.js';
import { connectHttp } from '../client/connect-http.js';
import { HttpStatusError } from '../transports/http/client/http-common.js';
import { StdioClientTransport } from '../transports/stdio/client.js';
import { defaultEnvironment } from '../transports/stdio/process.js';
import { envFrom, eraOf, flag, headersFrom, int, str, strs, version, type EraChoice, type OptionSpecs } from './args.js';
import { elicitationHandler, samplingHandler } from './interact.js';
import { cliOAuth, explainUnauthorized, OAUTH_HELP } from './oauth.js';
import { resolveTarget, type Target } from '../pool/targets.js';
import { formatLog, type StatusLine } from './term.js';
import { Tracer } from './trace.js';
import type { CliIo } from './io.js';

type Values = Parameters<typeof str>[0];

export interface Connection {
  client: McpClient;
  target: Target;
  /** How we reached the server. */
  transport: 'stdio' | 'streamable-http' | 'sse';
  status: StatusLine;
  /** What --era asked for (the era settled on is `client.era`). */
  eraRequested: EraChoice;
  /** Milliseconds from starting the transport to a finished handshake (or server/discover). */
  connectMs: number;
  /** Aborted on Ctrl-C, before the connection closes: a running task gets its tasks/cancel. */
  interrupt: AbortController;
  /** The streams, environment and signals the command runs with. */
  io: CliIo;
  close(): Promise<void>;
}

export type { OptionSpecs };

/** Connects to the TARGET with the client options from the command line. */
export async function openConnection(spec: string, values: Values, status: StatusLine, io: CliIo): Promise<Connection> {
  const era = eraOf(values);
  const target = resolveTarget(spec, {
    config: str(values, 'config'),
    headers: headersFrom(strs(values, 'header')),
    env: envFrom(strs(values, 'env')),
    cwd: io.cwd,
    home: io.env.HOME || undefined,
  });
  const traceFile = str(values, 'trace-file');
  const tracer = flag(values, 'trace') || traceFile !== undefined ? new Tracer({ pretty: flag(values, 'trace'), file: traceFile }, status) : undefined;
  const middleware: MessageMiddleware[] = tracer && target.kind === 'stdio' ? [tracer.middleware('client', 'stdio')] : [];
  const options: ClientOptions = {
    name: 'mcpkit-cli',
    version: version(),
    requestTimeoutMs: int(values, 'timeout', 60, 0, 86_400) * 1000,
    era,
    protocolVersion: str(values, 'protocol-version'),
    // The CLI can poll, so it takes tasks unless told not to (--no-tasks on `call`).
    tasks: !flag(values, 'no-tasks'),
    elicitation: elicitationHandler(status, io),
    sampling: samplingHandler(status, io),
    middleware,
    onerror: (err) => {
      if (tracer) status.print(status.style.dim(`mcpkit: ${err.message}`));
    },
  };
  const started = performance.now();
  let oauth: Awaited<ReturnType<typeof cliOAuth>>;
  let client: McpClient;
  let transport: Connection['transport'];
  try {
    if (target.kind === 'http') {
      oauth = await cliOAuth(target.url, values, status, io);
      const r = await connectHttp(target.url, options, { headers: target.headers, fetch: tracer?.fetch(), auth: oauth?.auth });
      client = r.client;
      transport = r.transport;
    } else {
      client = await connectStdio(target, options, status, io);
      transport = 'stdio';
    }
  } catch (err) {
    tracer?.close();
    await oauth?.close();
    throw await explainConnectFailure(err, target, era, values);
  }
  const connectMs = performance.now() - started;
  client.on('notifications/message', (p) => status.print(formatLog(p, status.style)));
  return {
    client,
    target,
    transport,
    status,
    eraRequested: era,
    connectMs,
    interrupt: new AbortController(),
    io,
    async close() {
      await client.close().catch(() => {});
      await oauth?.close();
      tracer?.close();
    },
  };
}

/**
 * Starts the command and connects. A server that exits on the era probe (a handshake-era one
 * that exits on requests it does not know) is started once more, and initialized; one that
 * exits for a reason of its own is not. Its stderr is shown as it comes, so the error that
 * follows does not quote it again.
 */
async function connectStdio(target: Target & { kind: 'stdio' }, options: ClientOptions, status: StatusLine, io: CliIo): Promise<McpClient> {
  for (let attempt = 1; ; attempt++) {
    const t = new StdioClientTransport({
      command: target.command,
      args: target.args,
      env: { ...defaultEnvironment(io.env), ...target.env },
      cwd: target.cwd ?? io.cwd,
      stderr: 'pipe',
    });
    const drained = forwardStderr(t, status);
    const client = new McpClient(options);
    try {
      await client.connect(t);
      return client;
    } catch (err) {
      // Its last words belong above the error, not after it.
      if (exitBehind(err)) await drained;
      if (err instanceof ProbeClosedError && attempt === 1) {
        status.print(
          status.style.dim('mcpkit: the server exited on the server/discover era probe; starting it again with initialize (--era handshake skips the probe)'),
        );
        continue;
      }
      throw err;
    }
  }
}

/** The server's stderr (its log channel) shown dimmed above the status line; resolves at its end. */
function forwardStderr(t: StdioClientTransport, status: StatusLine): Promise<void> {
  if (!t.stderr) return Promise.resolve();
  const rl = createInterface({ input: t.stderr, crlfDelay: Infinity });
  rl.on('line', (line) => status.print(status.style.dim(`server │ ${line}`)));
  return new Promise((resolve) => rl.once('close', resolve));
}

/** How the server's exit reads on the command line: its stderr was shown already, above. */
function exitText(e: ServerExitedError): string {
  const what = e.signal ? `was killed by ${e.signal}` : `exited with code ${e.exitCode}`;
  let text = `the server ${what} before answering ${e.method}`;
  if (e.stderr) text += ' (its stderr is above)';
  else if (e.method === 'server/discover')
    text += '; it wrote nothing on stderr. If it is a handshake-era server that exits on requests it does not know, try --era handshake';
  else text += '; it wrote nothing on stderr';
  return text;
}

async function explainConnectFailure(err: unknown, target: Target, era: EraChoice, values: Values): Promise<Error> {
  const e = err instanceof Error ? err : new Error(String(err));
  // A bare "-32601 Method not found" would not say which method, nor what to do about it.
  if (e instanceof ServerExitedError) return new LocalError('closed', exitText(e), { cause: e });
  if (era === 'modern' && e instanceof McpError && e.code === ErrorCode.MethodNotFound) {
    return new Error(
      `the server does not speak the 2026-07-28 era: it answered server/discover with ${e.code} ${e.message}. Try --era auto or --era handshake`,
      { cause: e },
    );
  }
  if (target.kind === 'stdio' && /command not found/.test(e.message) && target.args.length === 0) {
    return new Error(`${e.message} (and no config file names a server "${target.command}"; use --config FILE to point at one)`, { cause: e });
  }
  if (target.kind === 'http' && e instanceof HttpStatusError && e.status === 401) {
    return new Error(await explainUnauthorized(target.url, e.headers.get('www-authenticate'), target.headers, values), { cause: e });
  }
  if (target.kind === 'http' && /fetch failed|ECONNREFUSED/.test(e.message)) {
    return new Error(`Cannot reach ${target.url}: ${e.message}. Is the server running?`, { cause: e });
  }
  return e;
}

/** Client options in the help texts. */
export const CLIENT_HELP = `Target options:
  --config FILE          mcpServers config to find server names in (default: ./.mcp.json,
                         ~/.cursor/mcp.json, Claude Desktop's config)
  -H, --header "K: V"    HTTP header for URL targets (repeatable), e.g. -H "Authorization: Bearer x"
  -e, --env KEY=VALUE    environment variable for command targets (repeatable)
  --timeout SECONDS      request timeout (default 60; 0 waits forever)
  --era ERA              auto (default): try the stateless 2026-07-28 era (server/discover),
                         fall back to initialize; modern: stateless only; handshake: initialize
                         and a session, as before 2026-07-28
  --protocol-version V   pin this protocol revision (a 2025 one implies the handshake era)
${OAUTH_HELP}Output options:
  --json                 print the raw JSON result on stdout
  --trace                print every message (stdio) or HTTP exchange on stderr
  --trace-file FILE      append the trace to FILE as JSON lines
`;
