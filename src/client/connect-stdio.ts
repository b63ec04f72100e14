// Connecting to a server to spawn: Node-only (child processes), so apart from connect.ts, which
// mcpkit/client offers in any runtime.
import { StdioClientTransport, type StdioClientTransportOptions } from '../transports/stdio/client.js';
import type { Transport } from '../engine/transport.js';
import { McpClient, type ClientOptions } from './client.js';
import { connect as connectRemote, type HttpTarget } from './connect.js';
import { eraCache, eraKeyOf, eraOf, ProbeClosedError, ServerExitedError } from './era.js';

/** A stdio server to spawn. */
export type StdioTarget = StdioClientTransportOptions;

/**
 * Spawns a stdio server and connects a new client to it, in the era `options.era` asks for.
 * `client.close()` shuts the server down.
 *
 * With `era: 'auto'`, a server that exits on the era probe (some legacy servers exit on any
 * request before `initialize`) is started again and initialized, and that is remembered for
 * its command line. A server that exits before answering for a reason of its own (it could not
 * start) is started once: the `ServerExitedError` says how it ended and quotes its stderr.
 */
export async function connectStdio(target: StdioTarget, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  const make = () => new McpClient({ name: 'mcpkit-client', version: '0.1.0', ...options });
  const first = new StdioClientTransport(target);
  const key = eraKeyOf(first);
  const remembered = eraCache.get(key) !== undefined;
  try {
    const client = make();
    await client.connect(first);
    return client;
  } catch (err) {
    // A probe that killed the server (a legacy one) is noted in the era cache by the client, so
    // the next start initializes. Otherwise only a remembered era can have been the problem.
    // A server that dies at start dies again: only an era mistake is worth a second start.
    if (err instanceof ServerExitedError) throw err;
    if (!(err instanceof ProbeClosedError) && (!remembered || eraOf(options) !== 'auto')) throw err;
    // Either way the remembered era (if any) was wrong or is now known: one more try.
    const client = make();
    await client.connect(new StdioClientTransport(target));
    return client;
  }
}

/**
 * Connects a new client in one call, to whatever `target` names: a URL (Streamable HTTP, or
 * HTTP+SSE), a stdio server to spawn, or any transport. See `connectStdio` and the
 * runtime-neutral `connect` of mcpkit/client.
 */
export function connectAny(target: HttpTarget | StdioTarget | Transport, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  if (typeof target === 'string' || target instanceof URL || 'url' in target || 'send' in target) return connectRemote(target, options);
  return connectStdio(target, options);
}
