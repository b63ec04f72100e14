// createGateway: many MCP servers (an mcpServers config) behind one server, in both protocol
// eras, reloadable without dropping sessions. The CLI's `mcpkit gateway` is this plus flags.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { EraOption } from '../client/era.js';
import type { Clock } from '../engine/clock.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { PoolEvent } from '../pool/pool.js';
import { serve, type RunningServer, type ServeOptions } from '../serving/node.js';
import { Server, type ServerOptions } from '../server/server.js';
import type { MessageBus } from '../state/bus.js';
import { allowAllPolicy } from './allow-all.js';
import { Backends, type ListKind } from './backends.js';
import { gatewayConfigOf, readGatewayConfig, type BackendDef, type GatewayConfig } from './config.js';
import { TargetError } from '../pool/errors.js';
import { installFront } from './front.js';
import { installCodeFront } from './code-front.js';
import type { CodeModeOptions } from '../codemode/code-mode.js';
import { checkSandboxEngine } from '../codemode/engine.js';
import { namespaced } from './relay/naming.js';
import type { GatewayPolicy } from './policy-types.js';

export interface GatewayOptions {
  /** An `mcpServers` config file (JSON). Reloaded by `reload()`, and on change with `watch`. */
  config?: string;
  /** An `mcpServers` object given in code (instead of `config`). */
  servers?: Record<string, unknown>;
  /** Who may see and call what, rate limits, the call log. Default: everything allowed, nothing logged. */
  policy?: GatewayPolicy;
  /** Joins a backend's name and its tool's or prompt's name. Default `_` (or `gateway.separator` in the config). */
  separator?: string;
  /** Reload when the config file changes. Default false (the CLI turns it on). */
  watch?: boolean;
  /** The era to speak to backends that set none. Default `auto` (the backend's newest). */
  era?: EraOption;
  /** Default timeout of forwarded requests (ms). Default 60 000. */
  requestTimeoutMs?: number;
  /** The gateway's name and version, as its clients see them. Default `mcpkit-gateway`. */
  name?: string;
  version?: string;
  /** Shares list changes with the other instances of a deployment (mcpkit/redis `RedisBus`). */
  bus?: MessageBus;
  /** Relative stdio `cwd`s and config paths resolve here. Default process.cwd(). */
  cwd?: string;
  /** `${VAR}` in headers and env come from here. Default process.env. */
  env?: Record<string, string | undefined>;
  clock?: Clock;
  /** Backends' connection events (`owner` is `shared` or a client's key), reloads and reload failures. */
  onEvent?: (event: GatewayEvent) => void;
  /**
   * Message middleware of each backend connection, asked anew per connection. Tracing: with
   * `otel()` in `server.extensions` and `() => [otelClient()]` here, a call's front span is the
   * parent of its backend client span, and the backend's span continues the trace.
   */
  clientMiddleware?: (backend: string) => MessageMiddleware[];
  /** Passed to the front Server (instructions, limits, the 2026-07-28 era's options...). */
  server?: Omit<ServerOptions, 'name' | 'version' | 'capabilities' | 'bus'>;
  /**
   * Code mode: clients are offered `search_api` and `run_code` instead of the backends' tools
   * (a TypeScript API of the tools each caller may see, and programs run against it in a
   * sandbox); every call a program makes is judged, limited, logged and traced as a direct call
   * is, and so are search_api and run_code themselves. Needs the optional packages
   * `quickjs-emscripten-core` and `@jitl/quickjs-wasmfile-release-sync`. Default:
   * `gateway.codeMode` in the config file, else off; it follows reloads. `true` keeps it on
   * whatever the file says (the file's `limits` still apply and follow reloads); `false` keeps it
   * off; options given here are used as they are.
   */
  codeMode?: boolean | CodeModeOptions;
}

export type GatewayEvent =
  | { type: 'backend'; owner: string; event: PoolEvent }
  | { type: 'reloaded'; added: string[]; removed: string[]; changed: string[] }
  | { type: 'reloadFailed'; error: Error };

export interface Gateway {
  /** The front server: serve it with any mcpkit transport (`serve`, `toNodeHandler`, `serveStdio`...). */
  readonly server: Server;
  /**
   * Resolves when every shared backend has connected or failed its first attempt (each within its
   * `timeoutMs`). Requests do not wait for it: a backend's tools are offered once it has answered,
   * and announced with `list_changed`.
   */
  readonly ready: Promise<void>;
  /** Reads the config again: new backends start, removed ones stop, unchanged ones keep running. */
  reload(): Promise<{ added: string[]; removed: string[]; changed: string[] }>;
  /**
   * Serves the gateway over HTTP (rejecting first, in code mode, when the sandbox engine cannot
   * be loaded): Streamable HTTP at /mcp and HTTP+SSE at /sse, with probes
   * (`health`, on unless `false`): /readyz is 503 until every shared backend has made its first
   * attempt, then 200 (`degraded` while one is down); its body has each backend's state.
   */
  listen(options?: ServeOptions): Promise<RunningServer>;
  /** Stops watching, closes every backend (stdio processes included) and the front server. */
  close(): Promise<void>;
}

export function createGateway(options: GatewayOptions): Gateway {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const file = options.config === undefined ? undefined : resolve(cwd, options.config);
  const load = (): GatewayConfig => {
    if (file !== undefined) return readGatewayConfig(file, { cwd, env });
    if (options.servers !== undefined) return gatewayConfigOf({ mcpServers: options.servers }, { cwd, env });
    throw new TypeError('createGateway needs `config` (a file) or `servers` (an mcpServers object)');
  };
  const config = load();
  const policy = options.policy ?? allowAllPolicy();
  const separator = options.separator ?? config.separator;
  const server = new Server({
    ...options.server,
    name: options.name ?? 'mcpkit-gateway',
    version: options.version ?? '0.1.0',
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
      logging: {},
    },
    bus: options.bus,
  });
  const emit = (e: GatewayEvent) => {
    try {
      options.onEvent?.(e);
    } catch {
      // An observer's bug must not stop the gateway.
    }
  };
  const announce = (kind: ListKind) => server.broadcast(`notifications/${kind}/list_changed`);
  const naming = namespaced(separator);
  const backends = new Backends(config.backends, {
    naming,
    era: options.era,
    clock: options.clock,
    cwd,
    requestTimeoutMs: options.requestTimeoutMs,
    clientMiddleware: options.clientMiddleware,
    changed: announce,
    // To the sessions subscribed to it, and the listen streams that asked for it.
    updated: (uri) => server.broadcast('notifications/resources/updated', { uri }),
    onEvent: (event, owner) => emit({ type: 'backend', owner, event }),
  });
  installFront(server, { backends, policy, naming });
  const codeFront = installCodeFront(server, { backends, policy, code: codeModeOf(options.codeMode, config.codeMode) });

  // Set once served over HTTP with nobody identified: per-client backends are refused from then on.
  let anonymousFront = false;
  let reloading: Promise<unknown> = Promise.resolve();
  const reload = () => {
    // One reload at a time, each reading the file as it is when its turn comes.
    const run = reloading.then(async () => {
      if (closed) throw new Error('The gateway is closed');
      const loaded = load();
      const next = loaded.backends;
      if (anonymousFront) refusePerClientWithoutIdentity(next, server);
      const code = codeModeOf(options.codeMode, loaded.codeMode);
      // Turned on: a gateway that cannot run programs keeps what it had.
      if (code && !codeFront.enabled) await checkSandboxEngine();
      const summary = await backends.reload(next);
      if (codeFront.configure(code)) announce('tools');
      emit({ type: 'reloaded', ...summary });
      return summary;
    });
    reloading = run.catch(() => {});
    return run;
  };

  let watcher: FSWatcher | undefined;
  let pending: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  if (options.watch && file !== undefined) {
    // The directory, not the file: editors replace a file by renaming another over it.
    watcher = watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return;
      // Editors write a file in several steps: reload once they are done.
      if (pending !== undefined) clearTimeout(pending);
      pending = setTimeout(() => {
        pending = undefined;
        if (!closed) reload().catch((error: Error) => emit({ type: 'reloadFailed', error }));
      }, 100);
    });
    watcher.on('error', (error) => emit({ type: 'reloadFailed', error }));
  }

  const running: RunningServer[] = [];
  return {
    server,
    ready: backends.ready,
    reload,
    async listen(o: ServeOptions = {}) {
      // A gateway that cannot run programs fails before it serves anything.
      if (codeFront.enabled) await checkSandboxEngine();
      const identified = o.authenticate !== undefined || o.oauth !== undefined;
      if (!identified) refusePerClientWithoutIdentity(backends.configured, server);
      // Probes on by default: /readyz says which backend is not ready or down (the others serve meanwhile).
      const health = o.health === false ? false : { ...(typeof o.health === 'object' ? o.health : {}), readiness: () => backends.readiness() };
      const r = await serve(server, { ...o, health });
      if (!identified) anonymousFront = true;
      running.push(r);
      return r;
    },
    async close() {
      closed = true;
      watcher?.close();
      if (pending !== undefined) clearTimeout(pending);
      await Promise.all(running.map((r) => r.close()));
      await backends.close();
      await server.close();
      await policy.close?.();
    },
  };
}

/** The code mode in effect: the option given in code, else the config file's `gateway.codeMode`. */
function codeModeOf(option: GatewayOptions['codeMode'], file: GatewayConfig['codeMode']): CodeModeOptions | undefined {
  const fromFile = file === true ? {} : file || undefined;
  if (option === false) return undefined;
  if (option === true) return fromFile ?? {};
  return option ?? fromFile;
}

/**
 * A per-client backend keeps each client's connection apart: a handshake-era client by its
 * session, a 2026-07-28 one (which has none) by its identity. Served with no authentication in
 * front, 2026-07-28 callers have none, and would all share one connection: refused, saying why.
 */
function refusePerClientWithoutIdentity(defs: readonly BackendDef[], server: Server): void {
  const perClient = defs.filter((d) => d.session === 'per-client').map((d) => `"${d.name}"`);
  if (perClient.length === 0 || server.modern === undefined) return;
  throw new TargetError(
    `server ${perClient.join(', ')} ${perClient.length > 1 ? 'are' : 'is'} "per-client", which keeps each caller's connection apart. ` +
      '2026-07-28 callers have no session: the gateway tells them apart by their credential, and this gateway has no authentication ' +
      'in front (API keys or OAuth), so they would all share one connection. Add "policy.auth" (or --api-key; in code, ' +
      'listen\'s `authenticate` or `oauth`), make the server "shared", or turn the 2026-07-28 era off (`server: { modern: false }`).',
  );
}
