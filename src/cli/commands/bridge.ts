// mcpkit bridge --stdio-to-http URL | --http -- COMMAND ARGS
import { StdioServerTransport } from '../../transports/stdio/server.js';
import { OAuthClientAuth } from '../../client/auth/oauth.js';
import { connectHttp } from '../../client/connect-http.js';
import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import { Bridge } from '../../gateway/bridge.js';
import { ServerUnavailableError } from '../../pool/errors.js';
import { CommandError, envFrom, flag, headersFrom, OAUTH_OPTIONS, parse, str, strs, UsageError, version } from '../args.js';
import { exitBehind, ServerExitedError } from '../../client/era.js';
import { cliOAuth, OAUTH_HELP } from '../oauth.js';
import { bridgeHttp } from '../bridge-http.js';
import { cliLine } from '../self.js';
import { StatusLine } from '../term.js';
import type { CliIo } from '../io.js';
import { Tracer } from '../trace.js';
import type { MessageMiddleware } from '../../engine/middleware.js';
import { OBSERVABILITY_HELP, OBSERVABILITY_OPTIONS, startObservability, type Observability } from '../observability.js';
import { HTTP_HELP, HTTP_OPTIONS, httpOptions, listeningText } from './serve.js';

const USAGE = `Usage:
  mcpkit bridge --stdio-to-http URL [-H "K: V"]...   a stdio server forwarding to a remote HTTP server
  mcpkit bridge --http [options] -- COMMAND [ARGS]   a stdio server exposed over HTTP

--stdio-to-http: for hosts that only speak stdio. Answers the host as the remote server, in
  either protocol era: tools, prompts, resources, completions, progress, logs, cancellation and
  the server's questions (elicitation, sampling, roots) cross; headers (e.g. the Authorization
  a remote server wants) are sent with every HTTP request. Streamable HTTP, or the deprecated
  HTTP+SSE when the server refuses the first POST.
--http: starts COMMAND once and serves it at /mcp (Streamable HTTP, both protocol eras) and /sse
  (HTTP+SSE) for any number of HTTP clients, with the same security options as serve. What
  COMMAND asks of its client (elicitation, sampling, roots) is asked of the HTTP client whose
  request it is working on, when only one client has requests in progress; with several, a
  stdio server cannot say whose it is, and the question is refused (COMMAND gets an error).
  An HTTP client's roots/list_changed is passed on to COMMAND.

Options:
  -H, --header "K: V"      header for the remote server (repeatable; --stdio-to-http); a
                           server that asks for OAuth gets a browser sign-in (see below)
  -e, --env KEY=VALUE      environment variable for COMMAND (repeatable; --http)
  --trace                  print the traffic on stderr
  --trace-file FILE        append the traffic to FILE as JSON lines
${OBSERVABILITY_HELP}${HTTP_HELP}
${OAUTH_HELP}`;

export async function bridgeCommand(argv: string[], io: CliIo): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const { values, positionals } = parse('bridge', own, {
    ...HTTP_OPTIONS,
    'stdio-to-http': { type: 'string' },
    http: { type: 'boolean' },
    header: { type: 'string', multiple: true, short: 'H' },
    env: { type: 'string', multiple: true, short: 'e' },
    ...OAUTH_OPTIONS,
    trace: { type: 'boolean' },
    'trace-file': { type: 'string' },
    ...OBSERVABILITY_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  });
  if (flag(values, 'help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  const status = new StatusLine(io.stderr, io.env);
  const traceFile = str(values, 'trace-file');
  const tracer = flag(values, 'trace') || traceFile !== undefined ? new Tracer({ pretty: flag(values, 'trace'), file: traceFile }, status) : undefined;
  const url = str(values, 'stdio-to-http');
  const observed = await startObservability(values, 'mcpkit-bridge', io);
  if (url !== undefined) {
    if (flag(values, 'http') || command.length > 0 || positionals.length > 0) throw new UsageError('bridge --stdio-to-http URL takes no command');
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new UsageError(`bridge --stdio-to-http: not an http(s) URL: ${url}`);
    // A host that starts the bridge (a desktop app) has a person in front of it but no
    // terminal: signing in through the browser is the default here, not only with --oauth.
    const oauth = await cliOAuth(url, { ...values, oauth: !flag(values, 'no-oauth') && !flag(values, 'client-credentials') }, status, io);
    const auth = oauth ? new OAuthClientAuth(url, oauth.auth) : undefined;
    return stdioToHttp(url, headersFrom(strs(values, 'header')), status, tracer, auth, io, observed);
  }
  if (flag(values, 'http')) {
    const cmd = command.length > 0 ? command : positionals;
    if (cmd.length === 0) throw new UsageError('bridge --http: give the stdio server to run after --, e.g. mcpkit bridge --http -- node server.js');
    const { proxy, running } = await bridgeHttp(cmd[0], cmd.slice(1), envFrom(strs(values, 'env')), httpOptions(values), io.stderr).catch((err: unknown) => {
      throw startFailure(err, cmd);
    });
    if (tracer) {
      proxy.server.use(tracer.middleware('server', 'http'));
      tracer.httpServer(running.httpServer);
    }
    await observed.instrumentServer(proxy.server);
    const name = proxy.client.serverInfo?.name ?? 'bridged';
    if (observed.json) observed.log('info', 'listening', { server: name, url: running.url });
    else io.stdout.write(listeningText(name, running.url, values, new StatusLine(io.stdout, io.env), false, cliLine(io.env)));
    // Runs until SIGINT/SIGTERM (exit 0) or until the stdio server exits (exit 1).
    return new Promise<number>((resolveCode) => {
      let unsubscribe = () => {};
      proxy.client.onClose((reason) => {
        const exit = exitBehind(reason);
        status.print(status.style.red(`✖ the stdio server exited${exit ? ` (${exit.how})` : reason ? `: ${reason.message}` : ''}; the bridge stops`));
        // Calls in flight are answered with the error first, not cut off by the shutdown.
        void proxy
          .answered()
          .then(() => running.close())
          .then(() => observed.shutdown())
          .finally(() => {
            unsubscribe();
            resolveCode(1);
          });
      });
      unsubscribe = io.onSignal(
        () =>
          void Promise.allSettled([running.close(), proxy.close()])
            .then(() => observed.shutdown())
            .finally(() => {
              unsubscribe();
              resolveCode(0);
            }),
      );
    });
  }
  throw new UsageError('bridge: say which way: --stdio-to-http URL, or --http -- COMMAND');
}

/** Why `bridge --http` could not start its command, in one line (the server's stderr, if any, is above). */
function startFailure(err: unknown, cmd: string[]): unknown {
  const line = cmd.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
  if (err instanceof ServerExitedError) {
    const how = err.signal ? `was killed by ${err.signal}` : `exited with code ${err.exitCode}`;
    return new CommandError(`bridge --http: the stdio server (${line}) ${how} before answering ${err.method}; what it wrote on stderr, if anything, is above`, {
      cause: err,
    });
  }
  // The spawn error (command not found, permission denied) already says what and which command.
  const code = (err as { cause?: NodeJS.ErrnoException } | undefined)?.cause?.code;
  if (err instanceof Error && (code === 'ENOENT' || code === 'EACCES')) {
    return new CommandError(`bridge --http: ${err.message}: check the command after --`, { cause: err });
  }
  return err;
}

/**
 * A stdio server (to the host) in front of a remote HTTP MCP server: the relay core's Bridge over
 * one HTTP connection, which `connectHttp` opens (Streamable HTTP, or the deprecated HTTP+SSE when
 * the server refuses it) and the client keeps (a lost session is started again by the client, and
 * what was asked in the old one is not answered into the new one). Requests the remote side can
 * no longer answer get an error reply, so the host is never left waiting.
 */
async function stdioToHttp(
  url: string,
  headers: Record<string, string>,
  status: StatusLine,
  tracer: Tracer | undefined,
  auth: OAuthClientAuth | undefined,
  io: CliIo,
  observed: Observability,
): Promise<number> {
  const traced = tracer?.fetch();
  // One sign-in for both transports (and the re-initializations after a lost session).
  const fetchFn = auth ? auth.wrap(traced ?? ((input, init) => fetch(input, init))).fetch : traced;
  // The tracer nearest the wire (it shows messages as sent), then the OpenTelemetry client spans.
  const middleware: MessageMiddleware[] = [...(tracer ? [tracer.middleware('client', 'http')] : []), ...(await observed.clientMiddleware('http', url))];
  const bridge = new Bridge({
    name: 'remote server',
    // A remote server that cannot be reached answers the call with an error, not a tool result.
    reword: (err) => (err instanceof ServerUnavailableError ? new McpError(ErrorCode.InternalError, `mcpkit bridge: ${err.message}`) : undefined),
  });
  const { client } = await connectHttp(
    url,
    {
      name: 'mcpkit-bridge',
      version: version(),
      requestTimeoutMs: 0,
      elicitationUrl: true,
      middleware,
      ...bridge.clientHandlers(),
      onreinitialize: () => status.print(status.style.dim('mcpkit bridge: the remote session ended; a new one was started')),
    },
    {
      headers,
      ...(fetchFn ? { fetch: fetchFn } : {}),
      onfallback: (refused) => status.print(status.style.dim(`mcpkit bridge: ${url} refused Streamable HTTP (${refused.status}); trying HTTP+SSE`)),
    },
  );
  const server = await bridge.open(client);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((r) => (finish = r));
  let closing = false;
  const stop = (code: number) => {
    closing = true;
    void bridge
      .close()
      .then(() => observed.shutdown())
      .finally(() => {
        tracer?.close();
        finish(code);
      });
  };
  client.onClose(() => {
    if (closing) return;
    status.print(status.style.red('mcpkit bridge: the remote server closed the connection'));
    stop(1);
  });
  const session = await server.connect(new StdioServerTransport({ stdin: io.stdin, stdout: io.stdout }));
  session.onClose(() => {
    if (!closing) stop(0);
  });
  if (io.stderr.isTTY) status.print(status.style.dim(`mcpkit bridge: stdio ⇄ ${url}`));
  return finished;
}
