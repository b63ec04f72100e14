// mcpkit serve [MODULE|conformance]: the demo server, a module's server, or the conformance
// server, over Streamable HTTP + HTTP+SSE on one port, or over stdio.
import { resolve } from 'node:path';
import type { McpServer } from '../../server/mcp-server.js';
import type { Server } from '../../server/server.js';
import { apiKeyGuard, isLoopbackHost } from '../../serving/http/security.js';
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS, serve, type ServeOptions } from '../../serving/node.js';
import { serveStdio } from '../../serving/stdio.js';
import { flag, int, parse, seconds, str, strs, UsageError, type OptionSpecs } from '../args.js';
import { createDemoServer } from '../demo/server.js';
import { hasConformanceServer, loadConformanceServer, loadServerModule, lowLevel } from '../module.js';
import { cliCommand, cliLine, reachableUrl, shellQuote } from '../self.js';
import { configSnippet } from '../../pool/targets.js';
import { StatusLine } from '../term.js';
import type { CliIo } from '../io.js';
import { skillsServer } from '../skills-folder.js';
import { OPENAPI_HELP, OPENAPI_OPTIONS, openApiServer, openApiStdioArgs, wantsOpenApi } from '../openapi.js';
import { Tracer } from '../trace.js';
import { RESTARTED_ENV, superviseWatch, WATCHED_ENV } from '../watch.js';
import { OBSERVABILITY_HELP, OBSERVABILITY_OPTIONS, startObservability } from '../observability.js';
import { REDIS_HELP, REDIS_OPTIONS, redisUrl, scaleOut, shutdownGraceMs, type ScaledOut } from '../redis.js';

export const HTTP_OPTIONS: OptionSpecs = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  stateless: { type: 'boolean' },
  'json-response': { type: 'boolean' },
  'api-key': { type: 'string', multiple: true },
  'session-timeout': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'body-timeout': { type: 'string' },
  cors: { type: 'string', multiple: true },
};

export const HTTP_HELP = `HTTP options:
  -p, --port N             port (default 3000; 0 picks a free one)
  --host HOST              interface to bind (default 127.0.0.1)
  --stateless              no sessions: every POST stands alone
  --json-response          answer POSTs with JSON, no SSE (a 2026-07-28 listen still streams)
  --api-key KEY            require this key (Authorization: Bearer KEY or X-API-Key; repeatable)
  --session-timeout SECS   close sessions idle this long (default 3600)
  --headers-timeout SECS   a client slower to send a request's headers gets 408 and is
                           disconnected (default 20; 0: no limit)
  --body-timeout SECS      likewise for a whole request, headers and body (default 60; 0: no
                           limit); responses, SSE streams included, are not limited
  --cors ORIGIN            allow browser requests from ORIGIN (repeatable; "*" allows any)
`;

// "conformance" only where it works: a source checkout (the package does not ship it).
const usage = (
  conformance = hasConformanceServer(),
) => `Usage: mcpkit serve [MODULE${conformance ? ' | conformance' : ''} | --skills DIR | --openapi SPEC] [options]

Serves an MCP server: with no MODULE the built-in demo server (tools, resources, templates,
prompts, completions, logging, progress, elicitation, sampling, list changes); with MODULE the
server a .js or .ts file exports (default export or "server"); --skills DIR serves the skills in
DIR (every folder with a SKILL.md; the io.modelcontextprotocol/skills extension).${conformance ? '\n"conformance" serves the conformance fixture server (in a source checkout).' : ''}
Over HTTP: Streamable HTTP at /mcp and HTTP+SSE at /sse, one port.

Options:
  --stdio                  serve over stdin/stdout instead of HTTP (messages: stdout; logs: stderr)
  --skills DIR             serve the skills in DIR instead of a MODULE
  --watch                  restart when MODULE's directory changes
  --server-card            serve its Server Card at /mcp/server-card and
                           /.well-known/mcp/server-card.json (needs a reverse-DNS name and a
                           description; see mcpkit card)
  --trace                  print every message on stderr (over HTTP also each request: method,
                           path, status, MCP headers)
  --trace-file FILE        append the same to FILE as JSON lines
${OBSERVABILITY_HELP}${HTTP_HELP}
${REDIS_HELP}
${OPENAPI_HELP}`;

type Values = ReturnType<typeof parse>['values'];

/** serve()'s options from the HTTP flags (shared with `mcpkit bridge --http`). */
export function httpOptions(values: Values): ServeOptions {
  const keys = strs(values, 'api-key');
  const cors = strs(values, 'cors');
  const o: ServeOptions = {
    port: int(values, 'port', 3000, 0, 65535),
    host: str(values, 'host') ?? '127.0.0.1',
    stateful: !flag(values, 'stateless'),
    responseMode: flag(values, 'json-response') ? 'json' : 'auto',
    sessionIdleMs: int(values, 'session-timeout', 3600, 1, 365 * 86_400) * 1000,
    headersTimeoutMs: seconds(values, 'headers-timeout', DEFAULT_HEADERS_TIMEOUT_MS / 1000, 0, 3600) * 1000,
    bodyTimeoutMs: seconds(values, 'body-timeout', DEFAULT_BODY_TIMEOUT_MS / 1000, 0, 86_400) * 1000,
  };
  const { headersTimeoutMs: headers = 0, bodyTimeoutMs: body = 0 } = o;
  if (headers > 0 && body > 0 && headers > body)
    throw new UsageError('--headers-timeout: must not exceed --body-timeout (the headers are part of the request)');
  if (keys.length > 0) o.authenticate = apiKeyGuard({ keys });
  if (cors.length > 0) o.allowedOrigins = cors.includes('*') ? '*' : cors;
  return o;
}

/** Where it listens and how to connect: the lines `serve` and `bridge --http` print. */
export function listeningText(
  name: string,
  boundUrl: string,
  values: Values,
  status: StatusLine,
  demo: boolean,
  cli: string,
  card = false,
  serving?: { health: boolean; scaled?: { url: string; instanceId: string } },
): string {
  const scaled = serving?.scaled;
  const s = status.style;
  // Bound to every interface (0.0.0.0, ::): clients on this machine come in through loopback.
  const url = reachableUrl(boundUrl);
  const base = url.replace(/\/mcp$/, '');
  const keys = strs(values, 'api-key');
  const entry: Record<string, unknown> = { url };
  if (keys.length > 0) entry.headers = { Authorization: `Bearer ${keys[0]}` };
  const mode = [
    flag(values, 'stateless') ? 'stateless' : 'stateful',
    flag(values, 'json-response') ? 'JSON responses' : 'JSON or SSE responses',
    keys.length ? 'API key required' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const header = keys.length ? ` -H ${shellQuote(`Authorization: Bearer ${keys[0]}`)}` : '';
  return [
    `${s.green('●')} ${s.bold(name)} listening on ${s.cyan(url)}${url === boundUrl ? '' : s.dim(` (bound to ${boundUrl.replace(/^https?:\/\/|\/mcp$/g, '')})`)}`,
    `  Streamable HTTP  ${url}  ${s.dim(`(${mode})`)}`,
    `  HTTP+SSE         ${base}/sse  ${s.dim('(deprecated transport, for old clients)')}`,
    ...(card ? [`  Server Card      ${url}/server-card  ${s.dim('(also /.well-known/mcp/server-card.json)')}`] : []),
    ...(serving?.health ? [`  Health           ${base}/healthz, ${base}/readyz`] : []),
    ...(scaled ? [`  Redis            ${scaled.url}  ${s.dim(`(instance ${scaled.instanceId}; sessions, events, tasks and notifications shared)`)}`] : []),
    '',
    s.dim('Connect a client (mcpServers config):'),
    configSnippet(name, entry),
    '',
    `${s.dim('Try:')} ${cli} tools ${url}${header}`,
    demo ? `     ${cli} call ${url}${header} count '{"n":5}'` : `     ${cli} inspect ${url}${header}`,
    s.dim('Press Ctrl-C to stop.'),
    '',
  ].join('\n');
}

/** The command line a host runs to start this server over stdio, from any directory. */
function stdioEntry(module: string | undefined, watch: boolean, cwd: string, skillsDir?: string): { command: string; args: string[] } {
  const target = skillsDir !== undefined ? ['--skills', skillsDir] : module === undefined ? [] : module === 'conformance' ? [module] : [resolve(cwd, module)];
  return cliCommand(['serve', '--stdio', ...target, ...(watch ? ['--watch'] : [])]);
}

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('serve', argv, {
    ...HTTP_OPTIONS,
    stdio: { type: 'boolean' },
    watch: { type: 'boolean' },
    'server-card': { type: 'boolean' },
    trace: { type: 'boolean' },
    'trace-file': { type: 'string' },
    skills: { type: 'string' },
    ...OBSERVABILITY_OPTIONS,
    ...OPENAPI_OPTIONS,
    ...REDIS_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  });
  if (flag(values, 'help')) {
    io.stdout.write(usage());
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`serve: one MODULE at most (got ${positionals.join(' ')})`);
  const module = positionals[0];
  const stdio = flag(values, 'stdio');
  if (stdio && flag(values, 'server-card'))
    throw new UsageError('serve: --server-card is for HTTP (the card names HTTP endpoints); drop --stdio, or print it with mcpkit card');
  const options = stdio ? undefined : httpOptions(values);
  const redis = redisUrl(values, io.env);
  if (redis !== undefined && str(values, 'redis') !== undefined) {
    if (stdio) throw new UsageError('serve --redis: shares HTTP sessions between instances; a stdio server has one client (drop --stdio or --redis)');
    if (flag(values, 'watch')) throw new UsageError('serve --redis: not with --watch (a development loop runs one instance)');
  }
  const graceMs = shutdownGraceMs(values);
  if (flag(values, 'watch')) {
    if (!module || module === 'conformance') throw new UsageError('serve --watch: needs a MODULE to watch');
    return superviseWatch(
      module,
      argv.filter((a) => a !== '--watch'),
      stdio,
      io,
    );
  }
  const skillsArg = str(values, 'skills');
  const skillsDir = skillsArg === undefined ? undefined : resolve(io.cwd, skillsArg);
  if (skillsDir !== undefined && module !== undefined)
    throw new UsageError('serve --skills: serves a folder of skills on its own (a MODULE adds skills() to its server)');
  const openapi = wantsOpenApi(values);
  if (openapi && (module !== undefined || skillsDir !== undefined))
    throw new UsageError('serve --openapi: serves a REST API on its own (no MODULE or --skills)');
  const status = new StatusLine(io.stderr, io.env);
  let server: McpServer | Server;
  if (openapi) server = await openApiServer(values, io);
  else if (skillsDir !== undefined) server = await skillsServer(skillsDir, status);
  else if (module === undefined) server = createDemoServer();
  else if (module === 'conformance') server = await loadConformanceServer();
  else server = await loadServerModule(module, io.cwd);
  const low = lowLevel(server);
  const traceFile = str(values, 'trace-file');
  const tracer = flag(values, 'trace') || traceFile !== undefined ? new Tracer({ pretty: flag(values, 'trace'), file: traceFile }, status) : undefined;
  if (tracer) low.use(tracer.middleware('server', stdio ? 'stdio' : 'http'));
  const name = low.info.name;
  const observed = await startObservability(values, name, io);
  await observed.instrumentServer(low);
  if (stdio) {
    const session = await serveStdio(server, { stdin: io.stdin, stdout: io.stdout, exitOnClose: false });
    // Under --watch this is the supervised child: the host should start the supervisor.
    const entry = openapi ? cliCommand(openApiStdioArgs(argv, io.cwd)) : stdioEntry(module, io.env[WATCHED_ENV] === '1', io.cwd, skillsDir);
    if (io.env[RESTARTED_ENV] === '1') {
      // Under --watch, restarted: the config was shown at the first start.
    } else if (io.stderr.isTTY) {
      status.print(`${status.style.green('●')} ${status.style.bold(name)} on stdio. Config for a host:\n${configSnippet(name, entry)}`);
    } else {
      status.print(`mcpkit: serving ${name} over stdio; config: ${JSON.stringify({ mcpServers: { [name]: entry } })}`);
    }
    // Done when the client closes our stdin.
    await new Promise<void>((r) => session.onClose(() => r()));
    await observed.shutdown();
    return 0;
  }
  if (options && !isLoopbackHost(options.host ?? '127.0.0.1') && !options.authenticate) {
    status.print(status.style.yellow(`! Listening on ${options.host} without --api-key: anyone who can reach this address can use the server.`));
  }
  const card = flag(values, 'server-card');
  if (card && options) options.serverCard = true;
  let scaled: ScaledOut | undefined;
  if (redis !== undefined && options && (options.stateful || str(values, 'redis') !== undefined)) {
    if (!options.stateful) throw new UsageError('serve --redis: shares sessions, which --stateless has none of (drop one of them)');
    scaled = await scaleOut(redis, values, io);
    Object.assign(options, scaled.options);
    scaled.share(low);
  } else if (options) options.health = true;
  let running: Awaited<ReturnType<typeof serve>>;
  try {
    running = await serve(server, options);
  } catch (err) {
    await scaled?.close();
    // A card the server's definition cannot make: what to change, in one line.
    if (card && err instanceof TypeError && err.message.startsWith('server card: '))
      throw new UsageError(`serve --server-card: ${err.message.slice('server card: '.length)} (set it on the server; mcpkit card shows the card)`);
    throw err;
  }
  tracer?.httpServer(running.httpServer);
  if (observed.json)
    observed.log('info', 'listening', { server: name, url: running.url, ...(scaled ? { redis: scaled.url, instance: scaled.instanceId } : {}) });
  else if (io.env[RESTARTED_ENV] === '1') {
    // Under --watch, restarted: one line; the banner was shown at the first start.
    const out = new StatusLine(io.stdout, io.env).style;
    io.stdout.write(`${out.green('●')} ${out.bold(name)} listening on ${out.cyan(reachableUrl(running.url))} ${out.dim('(restarted)')}\n`);
  } else
    io.stdout.write(
      listeningText(
        name,
        running.url,
        values,
        new StatusLine(io.stdout, io.env),
        module === undefined && !openapi && skillsDir === undefined,
        cliLine(io.env),
        card,
        { health: true, scaled },
      ),
    );
  // Runs until SIGINT/SIGTERM: drains (running requests may finish within the grace), then
  // stops; a second signal quits without waiting.
  return new Promise<number>((resolveCode) => {
    let stopping = false;
    const unsubscribe = io.onSignal(() => {
      if (stopping) return resolveCode(130);
      stopping = true;
      // Idle streams end at once; only real work is waited for, and then it is said.
      const busy = running.requestsInFlight;
      if (busy > 0 && graceMs > 0) {
        const what = `${busy} request${busy === 1 ? '' : 's'} still running`;
        if (observed.json) observed.log('info', 'draining', { requests: busy, graceMs });
        else status.print(`Draining: ${what}, given up to ${graceMs / 1000} s to finish (Ctrl-C again stops now)…`);
      }
      void running
        .drain(graceMs)
        // Tasks still running end as failed; the bus lets go. Sessions stay in Redis for others.
        .then(() => (scaled ? low.close() : undefined))
        .then(() => scaled?.close())
        .then(() => observed.shutdown())
        .finally(() => {
          unsubscribe();
          resolveCode(0);
        });
    });
  });
}
