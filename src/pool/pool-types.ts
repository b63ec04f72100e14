// The shapes of the server pool: how servers are given, its options, and the events it reports.
import type { McpClient } from '../client/client.js';
import type { EraOption } from '../client/era.js';
import type { TaskOptions } from '../client/tasks.js';
import type { Clock } from '../engine/clock.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { Transport } from '../engine/transport.js';
import type { Root } from '../protocol/types.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult } from '../protocol/params.js';
import type { PrefixPolicy } from './names.js';
import type { Target } from './targets.js';

/** Per-server settings, from a config entry or from code. */
export interface ServerSettings {
  /** Tools offered: exact names or globs (`*`, `?`). Default: all. */
  allow?: readonly string[];
  /** Tools never offered (wins over `allow`). */
  deny?: readonly string[];
  /** Whether the model-facing names carry the server's name. Default: the pool's `prefix`. */
  prefix?: PrefixPolicy;
  /**
   * Default timeout of this server's requests (ms): its tool calls (progress keeps a call alive),
   * and the connection's handshake and tool listing. Default: the pool's `requestTimeoutMs`.
   */
  timeoutMs?: number;
  /** `false` leaves the server out (not started). Default true. */
  enabled?: boolean;
  /** The protocol era to speak. Default the pool's (`auto`). */
  era?: EraOption;
}

/**
 * A server given in code. One of: a `target` (a TARGET string as the CLI takes it, or a resolved
 * Target), a `transport` (a factory, so that it can reconnect; a lone instance connects once),
 * or a `client` already connected (used as is: never reconnected, closed with the pool).
 */
export type ServerSpec = { name: string } & ServerSettings &
  ({ target: Target | string } | { transport: Transport | (() => Transport) } | { client: McpClient });

/** Backoff for servers that fail to start or are lost: delays double from `initialDelayMs`. */
export interface RetryOptions {
  /** Default 1000 ms. */
  initialDelayMs?: number;
  /** Default 30 000 ms. */
  maxDelayMs?: number;
  /** Failed attempts in a row before giving up on a server (it stays `failed`). Default unlimited. */
  maxAttempts?: number;
}

/** Context of a server's sampling or elicitation request. */
export interface InputContext {
  signal: AbortSignal;
}

/** What a host answers servers with; each handler is told which server asks. */
export interface PoolHandlers {
  sampling?(server: string, params: CreateMessageParams, ctx: InputContext): Promise<CreateMessageResult> | CreateMessageResult;
  elicitation?(server: string, params: ElicitParams, ctx: InputContext): Promise<ElicitResult> | ElicitResult;
  /** Roots found when a server asks (instead of the pool's `roots`): a relay asks its own client. */
  roots?(server: string, ctx: InputContext): Promise<Root[]> | Root[];
  /** Declare URL-mode elicitation too (the handler can send the user to a URL). Default false: forms only. */
  elicitationUrl?: boolean;
  /** Declare `sampling.tools` (the sampling handler accepts requests that offer tools). Default false. */
  samplingTools?: boolean;
}

/** A list a pool can keep for each server besides its tools: `resources` includes the templates. */
export type CatalogList = 'prompts' | 'resources';

export interface PoolOptions {
  /** An `mcpServers` object (as in a config file; `servers` of VS Code too), or a list of specs. */
  servers?: Record<string, unknown> | readonly ServerSpec[];
  /** A config file whose `mcpServers` are added. */
  config?: string;
  /** Naming policy for servers that set none. Default `on-clash`. */
  prefix?: PrefixPolicy;
  /** Joins a server's name and a tool's when prefixing. Default `_`. */
  separator?: string;
  /** Model-facing names must match this (a provider's `toolNamePattern`). Default `^[a-zA-Z0-9_-]{1,64}$`. */
  namePattern?: RegExp;
  /** One allowed character and the longest name, when `namePattern` is not of the `^[class]{m,n}$` shape. */
  nameCharset?: RegExp;
  nameMaxLength?: number;
  handlers?: PoolHandlers;
  /**
   * Roots offered to every server. Default: the working directory as a file:// root. An empty
   * list offers none: the roots capability is not declared, and servers keep to their own
   * configuration (the official filesystem server replaces its command-line directories with
   * the roots it is given).
   */
  roots?: Root[];
  /** Working directory of stdio servers without their own, and of the default root. Default process.cwd(). */
  cwd?: string;
  /** Environment stdio servers inherit from (filtered as the stdio transport does). Default process.env. */
  env?: Record<string, string | undefined>;
  /**
   * Set in the environment of every stdio server the pool starts, past the filter, under each
   * server's own `env` (a host passing its `OTEL_*` trace configuration on, say).
   */
  stdioEnv?: Record<string, string>;
  /** Default era. Default `auto`. */
  era?: EraOption;
  /** Default timeout of requests (ms). Default 60 000. */
  requestTimeoutMs?: number;
  retry?: RetryOptions;
  /** Timers of retries and request timeouts. Default the system clock. */
  clock?: Clock;
  /** Name and version the pool's clients give. Default `mcpkit-host`. */
  clientInfo?: { name: string; version: string };
  /** Message middleware of the client for `server`, asked anew for each connection (tracing: one `otelClient()` per client). */
  clientMiddleware?: (server: string) => MessageMiddleware[];
  /** The fetch of the HTTP transports of `server`, asked anew for each connection (to see the HTTP exchanges; default the global fetch). */
  clientFetch?: (server: string) => typeof fetch | undefined;
  /**
   * Lists kept for each server besides its tools, listed when it connects and again on its
   * `list_changed` (a 2026-07-28 server's, on the same listen stream as its tools): read them with
   * `catalog(server)`, and hear of changes with the `listChanged` event. Default none (a host
   * only needs tools; a gateway keeps both).
   */
  lists?: readonly CatalogList[];
  /**
   * Declare MCP Apps (`io.modelcontextprotocol/ui`) to every server (the client option `apps`):
   * for a host that renders their views (the studio). Default off.
   */
  apps?: boolean;
  /**
   * Declare the 2026-07-28 tasks extension to every server (the client option `tasks`). Default
   * off: a host that cannot follow tasks must not be given them.
   */
  tasks?: boolean | TaskOptions;
  /** Every event, as it happens (also available through `on`). */
  onEvent?: (event: PoolEvent) => void;
}

/** A server's state in the pool. */
export type ServerState = 'connecting' | 'connected' | 'failed' | 'closed';

export type PoolEvent =
  | { type: 'connecting'; server: string; attempt: number }
  /** `tools`: how many of its tools are offered (after allow/deny). */
  | { type: 'connected'; server: string; era: 'modern' | 'handshake'; protocolVersion: string | undefined; tools: number }
  /** An attempt failed; `retryInMs` is undefined when no retry follows (attempts exhausted, or the server cannot be restarted). */
  | { type: 'failed'; server: string; error: Error; retryInMs: number | undefined }
  /** A connection that was up ended (process exit, connection lost); `error` says why when known. */
  | { type: 'closed'; server: string; error: Error | undefined }
  /** A lost server is to be connected again after `inMs`. */
  | { type: 'reconnecting'; server: string; attempt: number; inMs: number }
  /** The tools of `server` changed (listed anew after `list_changed`, a reconnect, or the server went away). */
  | { type: 'toolsChanged'; server: string }
  /** A server's prompts or resources (PoolOptions.lists) changed, or it came or went. */
  | { type: 'listChanged'; server: string; list: CatalogList }
  /** A line a stdio server wrote on stderr. */
  | { type: 'stderr'; server: string; line: string }
  /** A problem with nowhere else to go (a notification handler threw, a refresh failed). */
  | { type: 'error'; server: string; error: Error };

export type PoolEventType = PoolEvent['type'];
export type PoolEventOf<T extends PoolEventType> = Extract<PoolEvent, { type: T }>;
