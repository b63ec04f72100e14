import { connectHttp, type ConnectHttpTransportOptions } from './connect-http.js';
import { StdioClientTransport, type StdioClientTransportOptions } from '../transports/stdio/client.js';
import type { Transport } from '../engine/transport.js';
import { McpClient, type ClientOptions } from './client.js';
import { eraCache, eraKeyOf, eraOf, ProbeClosedError } from './era.js';

/** A stdio server to spawn. */
export type StdioTarget = StdioClientTransportOptions;

/** An HTTP server: its URL, plus transport options (headers, fetch, reconnect). */
export type HttpTarget = string | URL | ({ url: string | URL } & ConnectHttpTransportOptions);

/**
 * Connects a new client in one call: to a URL (Streamable HTTP, falling back to HTTP+SSE as the
 * spec describes), to a stdio server to spawn, or over any transport, in the era
 * `options.era` asks for (see {@link ClientOptions.era}). The client is ready when the promise
 * resolves; `client.close()` ends the session or shuts the server down.
 *
 * With `era: 'auto'`, a stdio server that exits on the era probe (some legacy servers exit on
 * any request before `initialize`) is started again and initialized, and that is remembered
 * for its command line.
 */
export async function connect(target: HttpTarget | StdioTarget | Transport, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  if (typeof target === 'string' || target instanceof URL) return (await connectHttp(target, options)).client;
  if ('url' in target) {
    const { url, ...transportOptions } = target;
    return (await connectHttp(url, options, transportOptions)).client;
  }
  const make = () => new McpClient({ name: 'mcpkit-client', version: '0.1.0', ...options });
  if ('send' in target) {
    const client = make();
    await client.connect(target);
    return client;
  }
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
    if (!(err instanceof ProbeClosedError) && (!remembered || eraOf(options) !== 'auto')) throw err;
    // Either way the remembered era (if any) was wrong or is now known: one more try.
    const client = make();
    await client.connect(new StdioClientTransport(target));
    return client;
  }
}
