// mcpkit bridge --stdio-to-http URL | --http -- COMMAND ARGS
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/messages.js';
import { HttpStatusError, SessionExpiredError } from '../../transports/http/client/http-common.js';
import { SseClientTransport } from '../../transports/http/client/sse-legacy.js';
import { StreamableHttpClientTransport } from '../../transports/http/client/streamable.js';
import { StdioServerTransport } from '../../transports/stdio/server.js';
import type { SendOptions, Transport } from '../../engine/transport.js';
import { requestEra } from '../../protocol/era.js';
import { OAuthClientAuth } from '../../client/auth/oauth.js';
import { CommandError, envFrom, flag, headersFrom, OAUTH_OPTIONS, parse, str, strs, UsageError } from '../args.js';
import { exitBehind, ServerExitedError } from '../../client/era.js';
import { cliOAuth, OAUTH_HELP } from '../oauth.js';
import { bridgeHttp } from '../bridge-http.js';
import { cliLine } from '../self.js';
import { StatusLine } from '../term.js';
import type { CliIo } from '../io.js';
import { Tracer } from '../trace.js';
import { compose, type MessageMiddleware } from '../../engine/middleware.js';
import { OBSERVABILITY_HELP, OBSERVABILITY_OPTIONS, startObservability, type Observability } from '../observability.js';
import { HTTP_HELP, HTTP_OPTIONS, httpOptions, listeningText } from './serve.js';

const MODERN: SendOptions = Object.freeze({ era: 'modern' });

const USAGE = `Usage:
  mcpkit bridge --stdio-to-http URL [-H "K: V"]...   a stdio server forwarding to a remote HTTP server
  mcpkit bridge --http [options] -- COMMAND [ARGS]   a stdio server exposed over HTTP

--stdio-to-http: for hosts that only speak stdio. Every message crosses as is (requests,
  notifications, progress, cancellation, server-to-client requests); headers (e.g. the
  Authorization a remote server wants) are sent with every HTTP request. Streamable HTTP, or
  the deprecated HTTP+SSE when the server refuses the first POST.
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

const FALLBACK = new Set([400, 404, 405]);

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
 * Pipes our stdin/stdout (a stdio server, to the host) to a remote HTTP MCP server, message by
 * message. Requests the remote side can no longer answer get an error reply, so the host is
 * never left waiting.
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
  const stdio = new StdioServerTransport({ stdin: io.stdin, stdout: io.stdout });
  let finish!: (code: number) => void;
  const finished = new Promise<number>((r) => (finish = r));
  const traced = tracer?.fetch();
  // One sign-in for both transports (and the re-initializations after a lost session).
  const fetchFn = auth ? auth.wrap(traced ?? ((input, init) => fetch(input, init))).fetch : traced;
  // The tracer nearest the wire (it shows messages as sent), then the OpenTelemetry client spans.
  const middleware: MessageMiddleware[] = [...(tracer ? [tracer.middleware('client', 'http')] : []), ...(await observed.clientMiddleware('http', url))];
  /** Requests from the host not yet answered. */
  const open = new Set<RequestId>();
  let upstream: Transport = new StreamableHttpClientTransport({ url, headers, fetch: fetchFn });
  /**
   * Sends go out in order; a notification or response is delivered before anything after it
   * (`notifications/initialized` must precede the requests that follow), while a request does
   * not hold up later messages (its answer may take long). `initialize` and the 2026-07-28 probe
   * hold everything up: their answer decides the transport and the era.
   */
  let gate: Promise<void> = Promise.resolve();
  let closing = false;
  let legacy = false;

  const down = (m: JsonRpcMessage): void => {
    if (!('method' in m) && m.id !== null && m.id !== undefined) open.delete(m.id);
    const send = (x: JsonRpcMessage) => stdio.send(x);
    void (middleware.length > 0 ? compose(middleware, 'incoming', send)(m) : send(m)).catch(() => {});
  };
  const reply = (id: RequestId, code: number, message: string) => {
    if (open.has(id)) down({ jsonrpc: '2.0', id, error: { code, message } });
  };
  const fail = (m: JsonRpcMessage, err: Error) => {
    if ('method' in m && 'id' in m) reply(m.id, -32603, `mcpkit bridge: ${err.message}`);
  };
  const attach = (t: Transport) => {
    t.onmessage = (frame) => {
      for (const m of asMessages(frame)) {
        // The answer to a re-initialization of our own is not for the host.
        const replyId = !('method' in m) && typeof m.id === 'string' ? m.id : undefined;
        const mine = replyId === undefined ? undefined : replays.get(replyId);
        if (mine) {
          replays.delete(replyId!);
          if ('error' in m) mine.reject(new Error(`re-initialization refused: ${m.error.message}`));
          else mine.resolve();
        } else down(m);
      }
    };
    t.onrequestlost = (id, err) => {
      if (!retrying.has(id)) reply(id, -32603, `mcpkit bridge: ${err.message}`);
    };
    t.onerror = (err) => status.print(status.style.dim(`mcpkit bridge: ${err.message}`));
    t.onclose = () => {
      if (closing) return;
      status.print(status.style.red('mcpkit bridge: the remote server closed the connection'));
      finish(1);
    };
  };
  /**
   * The bridge relays messages it did not build, so it decides what each one is, with the same
   * predicate a server uses, and says so to the transport. A cancellation carries no envelope: it
   * is the host's era, which is 2026-07-28 until the host sends `initialize`.
   */
  const optionsFor = (m: JsonRpcMessage): SendOptions | undefined => {
    if (!('method' in m)) return undefined;
    const modern = m.method === 'notifications/cancelled' ? initMessage === undefined : requestEra(m.method, m.params) === 'modern';
    return modern ? MODERN : undefined;
  };
  const up = (m: JsonRpcMessage) => {
    const o = optionsFor(m);
    const send = (x: JsonRpcMessage) => upstream.send(x, o);
    return middleware.length > 0 ? compose(middleware, 'outgoing', send)(m) : send(m);
  };

  /**
   * The host's handshake, replayed when the remote server ends the session (it restarted, or
   * expired an idle session): the host keeps its connection, as with a server that never left.
   */
  let initMessage: JsonRpcMessage | undefined;
  let initializedMessage: JsonRpcMessage | undefined;
  const replays = new Map<string, { resolve(): void; reject(e: Error): void }>();
  let reinitializing: Promise<void> | undefined;
  /** Requests being sent again in the new session: the transport's "lost" report is not final. */
  const retrying = new Set<RequestId>();
  const reinitialize = () =>
    (reinitializing ??= (async () => {
      status.print(status.style.dim('mcpkit bridge: the remote session ended; starting a new one'));
      const id = `mcpkit-bridge-reinit-${replays.size + 1}-${Date.now()}`;
      const answered = new Promise<void>((resolve, reject) => replays.set(id, { resolve, reject }));
      await up({ ...(initMessage as JsonRpcMessage & { id: RequestId }), id });
      await answered;
      if (initializedMessage) await up(initializedMessage);
    })().finally(() => (reinitializing = undefined)));

  const sendOne = async (m: JsonRpcMessage) => {
    if ('method' in m && m.method === 'initialize') initMessage = m;
    if ('method' in m && m.method === 'notifications/initialized') initializedMessage = m;
    if (reinitializing) await reinitializing.catch(() => {});
    const method = 'method' in m ? m.method : undefined;
    const id = 'method' in m && 'id' in m ? m.id : undefined;
    // HTTP+SSE is a handshake-era transport: the 2026-07-28 probe is not for it.
    if (legacy && method === 'server/discover' && id !== undefined) return reply(id, -32601, 'Method not found: server/discover (HTTP+SSE server)');
    try {
      await up(m);
    } catch (err) {
      if (err instanceof SessionExpiredError && initMessage && method !== 'initialize') {
        if (id !== undefined) retrying.add(id);
        try {
          await reinitialize();
          await up(m);
        } finally {
          if (id !== undefined) retrying.delete(id);
        }
        return;
      }
      if (!(err instanceof HttpStatusError) || !FALLBACK.has(err.status)) throw err;
      // The endpoint refused a stateless-era request: to the host, that era is not spoken here.
      if (method === 'server/discover' && id !== undefined) return reply(id, -32601, `Method not found: server/discover (HTTP ${err.status})`);
      if (method !== 'initialize' || legacy) throw err;
      // No Streamable HTTP here: the deprecated HTTP+SSE transport, as the spec's fallback says.
      status.print(status.style.dim(`mcpkit bridge: ${url} refused Streamable HTTP (${err.status}); trying HTTP+SSE`));
      legacy = true;
      const old = upstream;
      old.onclose = old.onmessage = old.onerror = old.onrequestlost = undefined;
      await old.close().catch(() => {});
      upstream = new SseClientTransport({ url, headers, fetch: fetchFn });
      attach(upstream);
      await upstream.start();
      await up(m);
    }
  };

  attach(upstream);
  await upstream.start();
  stdio.onmessage = (frame) => {
    for (const m of asMessages(frame)) {
      const isRequest = 'method' in m && 'id' in m;
      if (isRequest) open.add(m.id);
      const done = gate.then(() => sendOne(m)).catch((err: Error) => fail(m, err));
      if (!isRequest || m.method === 'initialize' || m.method === 'server/discover') gate = done;
    }
  };
  stdio.onclose = () => {
    closing = true;
    void upstream
      .close()
      .then(() => observed.shutdown())
      .finally(() => {
        tracer?.close();
        finish(0);
      });
  };
  await stdio.start();
  if (io.stderr.isTTY) status.print(status.style.dim(`mcpkit bridge: stdio ⇄ ${url}`));
  return finished;
}

function asMessages(frame: unknown): JsonRpcMessage[] {
  let v = frame;
  if (typeof frame === 'string') {
    try {
      v = JSON.parse(frame);
    } catch {
      return [];
    }
  }
  const list = Array.isArray(v) ? v : [v];
  return list.filter((m): m is JsonRpcMessage => !!m && typeof m === 'object' && (m as { jsonrpc?: unknown }).jsonrpc === '2.0');
}
