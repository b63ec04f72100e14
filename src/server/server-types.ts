// The types a Server is built from: its request handlers and middleware, its options, and where
// tool schemas come from for header checks.
import type { DecodeLimits } from '../jsonrpc/codec.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import type { AuthInfo } from '../engine/transport.js';
import type { MessageBus } from '../state/bus.js';
import type { RequestContext } from './context.js';
import type { ModernOptions } from './modern.js';
import type { ServerExtension } from './extension.js';

export type MethodHandler = (params: JsonObject | undefined, ctx: RequestContext) => Promise<JsonObject> | JsonObject;

/** Wraps every request handler: observe, change, short-circuit or time requests. */
export type RequestMiddleware = (method: string, params: JsonObject | undefined, ctx: RequestContext, next: () => Promise<JsonObject>) => Promise<JsonObject>;

export interface ServerOptions extends Implementation {
  instructions?: string;
  capabilities?: ServerCapabilities;
  /** Handshake-era revisions to accept, newest first. */
  protocolVersions?: readonly string[];
  /** Default timeout (ms) for requests the server sends to clients. */
  requestTimeoutMs?: number;
  limits?: Partial<DecodeLimits>;
  /**
   * Where problems with no request to report them on go (defaults to stderr, never stdout).
   * Warnings (a likely mistake that does not stop anything, such as a tool name some clients
   * reject) come here too, as errors named `McpWarning`; the default prints them as one line.
   */
  onerror?: (error: Error) => void;
  /** The stateless 2026-07-28 era, served beside the handshake era. `false` turns it off. */
  modern?: ModernOptions | false;
  /**
   * Features installed through the extension seam, e.g. `tasks()` (both task flavours). A
   * factory may return several extensions; they are installed in order.
   */
  extensions?: ReadonlyArray<ServerExtension | readonly ServerExtension[]>;
  /**
   * Shared with the other instances of a deployment (`RedisBus` from mcpkit/redis): resource
   * updates, list changes and log messages raised here reach their clients too, and extensions
   * relay their own events (tasks: status, answers, cancels). See docs/scaling.md.
   */
  bus?: MessageBus;
}

/** A tool's input schema by name, as `authInfo`'s caller would call it (for header checks). */
export type ToolSchemas = (name: string, authInfo?: AuthInfo) => object | undefined | Promise<object | undefined>;
