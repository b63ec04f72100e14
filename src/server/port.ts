// The read-only port from a Server to what serves it (the HTTP core, stdio serving, the hosting
// adapters): what a transport may ask of the server it carries requests to, and nothing it could
// change. A Server implements it; hosting code needs no more of it.
import type { DecodeLimits } from '../jsonrpc/codec.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { AuthInfo, Transport } from '../engine/transport.js';
import type { ServerIdentity } from '../protocol/handshake.js';
import type { ServerBus } from '../state/bus.js';
import type { RequestContext } from './context.js';
import type { ModernEra } from './modern.js';
import type { ServerSession } from './session.js';

/** A tool's input schema by name, as `authInfo`'s caller would call it (for header checks). */
export type ToolSchemas = (name: string, authInfo?: AuthInfo) => object | undefined | Promise<object | undefined>;

export interface ServerPort {
  /** Name, version, capabilities, instructions and the handshake-era revisions it accepts. */
  identity(): ServerIdentity;
  readonly versions: readonly string[];
  readonly limits: Partial<DecodeLimits> | undefined;
  /** The 2026-07-28 era (undefined when turned off): serves stateless requests. */
  readonly modern: ModernEra | undefined;
  /** Runs a request through the middleware to its handler. */
  dispatch(method: string, params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> | JsonObject;
  /** The schema an `Mcp-Param-*` header of a `tools/call` is checked against. */
  toolInputSchema(name: string, authInfo?: AuthInfo): object | undefined | Promise<object | undefined>;
  /** A handshake-era session on `transport`, registered but not started. */
  attach(transport: Transport): ServerSession;
  readonly messageMiddleware: readonly MessageMiddleware[];
  readonly bus: ServerBus | undefined;
  onHostRelay(name: string, listener: (data: JsonObject) => void): () => void;
  relayHost(name: string, data: JsonObject): boolean;
  relayHostSent(name: string, data: JsonObject): Promise<void>;
  onerror(error: Error): void;
}
