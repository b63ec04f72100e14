// mcpkit gateway --config FILE: every server of an mcpServers config behind one Streamable HTTP
// endpoint (and /sse), both eras, reloaded when the file changes or on SIGHUP.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createGateway, type GatewayEvent } from '../../gateway/gateway.js';
import { PolicyConfigError } from '../../gateway/policy/config.js';
import { createPolicy, type Policy } from '../../gateway/policy/create.js';
import { isLoopbackHost } from '../../serving/http/security.js';
import type { MessageBus } from '../../state/bus.js';
import { flag, parse, str, UsageError } from '../args.js';
import type { CliIo } from '../io.js';
import { OBSERVABILITY_HELP, OBSERVABILITY_OPTIONS, startObservability } from '../observability.js';
import { StatusLine } from '../term.js';
import { HTTP_HELP, HTTP_OPTIONS, httpOptions } from './serve.js';

const USAGE = `Usage: mcpkit gateway --config FILE [options]

Serves every server of an mcpServers config (stdio commands and URLs) behind one endpoint:
Streamable HTTP at /mcp and HTTP+SSE at /sse, for clients of both protocol eras. Tools and
prompts are named <server>_<tool>, resource URIs mcpgw://<server>/<uri>. The file is watched:
servers added, removed or changed in it are started and stopped without dropping sessions
(SIGHUP reloads it too). See docs/gateway.md for the config keys (session, headers with
\${ENV}, bearerEnv, auth: "passthrough", allow, deny), and for its "policy" section, read at
start: API keys or OAuth in front, who sees which tools, rate limits, the call log.

Options:
  --config FILE            the mcpServers config (required)
  --separator SEP          joins server and tool names (default "_")
  --no-watch               do not reload when FILE changes (SIGHUP still does)
  --redis URL              share list changes with other gateway instances (needs ioredis)
  --code-mode              offer clients two tools, search_api and run_code, instead of the
                           backends' tools: programs call the tools in a sandbox, each call
                           judged by the policy as a direct one, run_code itself too (also
                           "gateway.codeMode" in FILE, which reloads follow)
${OBSERVABILITY_HELP}${HTTP_HELP}`;

/** A RedisBus on `url`, through the optional peer ioredis. */
async function redisBus(url: string): Promise<{ bus: MessageBus; close(): Promise<void> }> {
  let Redis: new (url: string) => { duplicate(): unknown; quit(): Promise<unknown> };
  try {
    // A variable specifier: ioredis is an optional peer, absent unless --redis is used.
    const name = 'ioredis';
    Redis = ((await import(name)) as { default: typeof Redis }).default;
  } catch {
    throw new UsageError('gateway --redis: needs the ioredis package (npm install ioredis)');
  }
  const { RedisBus } = await import('../../state/redis/bus.js');
  const client = new Redis(url);
  const subscriber = client.duplicate() as { quit(): Promise<unknown> };
  const bus = new RedisBus({ client: client as never, subscriber: subscriber as never, keyPrefix: 'mcpkit-gateway:' });
  return {
    bus,
    async close() {
      await Promise.all([client.quit(), subscriber.quit()]).catch(() => {});
    },
  };
}

/**
 * The config file's `policy` section (docs/gateway.md#policies) as a policy; undefined when it has
 * none, or when the file cannot be read (createGateway then says what is wrong with it).
 */
function policyOf(file: string, env: Record<string, string | undefined>, apiKeyFlag: boolean): Policy | undefined {
  let section: unknown;
  try {
    section = (JSON.parse(readFileSync(file, 'utf8')) as { policy?: unknown } | null)?.policy;
  } catch {
    return undefined;
  }
  if (section === undefined) return undefined;
  let policy: Policy;
  try {
    policy = createPolicy(section, { env });
  } catch (e) {
    if (e instanceof PolicyConfigError) throw new UsageError(`gateway: ${file}: ${e.message}`);
    throw e;
  }
  if (apiKeyFlag && (policy.front.authenticate || policy.front.oauth)) {
    void policy.close();
    throw new UsageError('gateway: --api-key cannot be combined with the config\'s "policy.auth": put the keys in "policy.auth.apiKeys"');
  }
  return policy;
}

function describe(e: GatewayEvent): string | undefined {
  if (e.type === 'reloaded') return `reloaded: +[${e.added.join(', ')}] -[${e.removed.join(', ')}] ~[${e.changed.join(', ')}]`;
  if (e.type === 'reloadFailed') return `reload failed: ${e.error.message} (the previous servers keep running)`;
  const ev = e.event;
  const who = e.owner === 'shared' ? ev.server : `${ev.server} (${e.owner})`;
  if (ev.type === 'connected') return `${who}: connected (${ev.era}, ${ev.tools} tool${ev.tools === 1 ? '' : 's'})`;
  if (ev.type === 'failed') return `${who}: failed: ${ev.error.message}${ev.retryInMs === undefined ? '' : `; retrying in ${ev.retryInMs} ms`}`;
  if (ev.type === 'closed' && ev.error) return `${who}: lost: ${ev.error.message}`;
  return undefined;
}

export async function gatewayCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('gateway', argv, {
    ...HTTP_OPTIONS,
    config: { type: 'string', short: 'c' },
    separator: { type: 'string' },
    'no-watch': { type: 'boolean' },
    redis: { type: 'string' },
    'code-mode': { type: 'boolean' },
    ...OBSERVABILITY_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  });
  if (flag(values, 'help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`gateway: unexpected ${positionals.join(' ')} (the servers come from --config FILE)`);
  const config = str(values, 'config');
  if (config === undefined) throw new UsageError('gateway: --config FILE is required (an mcpServers config)');
  const options = httpOptions(values);
  const status = new StatusLine(io.stderr, io.env);
  const policy = policyOf(resolve(io.cwd, config), io.env, options.authenticate !== undefined);
  const redisUrl = str(values, 'redis');
  const redis = redisUrl === undefined ? undefined : await redisBus(redisUrl);
  const observed = await startObservability(values, 'mcpkit-gateway', io);
  // With telemetry on: a client span per forwarded request, under the front's span.
  const clientMiddleware = await observed.poolMiddleware();
  let gateway: ReturnType<typeof createGateway>;
  try {
    gateway = createGateway({
      ...(clientMiddleware ? { clientMiddleware } : {}),
      config: resolve(io.cwd, config),
      policy,
      cwd: io.cwd,
      env: io.env,
      separator: str(values, 'separator'),
      watch: !flag(values, 'no-watch'),
      bus: redis?.bus,
      ...(flag(values, 'code-mode') ? { codeMode: true } : {}),
      onEvent: (e) => {
        const line = describe(e);
        if (line === undefined) return;
        if (observed.json) observed.log(e.type === 'reloadFailed' ? 'error' : 'info', line, {});
        else status.print(`mcpkit gateway: ${line}`);
      },
    });
  } catch (e) {
    // Its Redis connection would keep the process alive after the usage error.
    await policy?.close();
    throw e;
  }
  await observed.instrumentServer(gateway.server);
  if (policy) Object.assign(options, policy.front);
  if (!isLoopbackHost(options.host ?? '127.0.0.1') && !options.authenticate && !options.oauth) {
    status.print(status.style.yellow(`! Listening on ${options.host} without --api-key: anyone who can reach this address can use every backend.`));
  }
  let running: Awaited<ReturnType<typeof gateway.listen>>;
  try {
    running = await gateway.listen(options);
  } catch (e) {
    // Refused (per-client servers with nobody identified, a port in use): no backend left behind.
    await gateway.close().catch(() => {});
    await redis?.close();
    throw e;
  }
  await gateway.ready;
  if (observed.json) observed.log('info', 'listening', { server: 'mcpkit-gateway', url: running.url });
  else io.stdout.write(`mcpkit gateway listening on ${running.url} (HTTP+SSE: ${running.url.replace(/\/mcp$/, '/sse')})\n`);
  const onHup = () => {
    gateway.reload().catch((error: Error) => status.print(`mcpkit gateway: reload failed: ${error.message} (the previous servers keep running)`));
  };
  process.on('SIGHUP', onHup);
  return new Promise<number>((resolveCode) => {
    let stopping = false;
    const unsubscribe = io.onSignal(() => {
      if (stopping) return resolveCode(130);
      stopping = true;
      process.off('SIGHUP', onHup);
      void gateway
        .close()
        .then(() => redis?.close())
        .then(() => observed.shutdown())
        .finally(() => {
          unsubscribe();
          resolveCode(0);
        });
    });
  });
}
