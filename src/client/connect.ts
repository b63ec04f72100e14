import { connectHttp, type ConnectHttpTransportOptions } from './connect-http.js';
import type { Transport } from '../engine/transport.js';
import { McpClient, type ClientOptions } from './client.js';

/** An HTTP server: its URL, plus transport options (headers, fetch, reconnect). */
export type HttpTarget = string | URL | ({ url: string | URL } & ConnectHttpTransportOptions);

/**
 * Connects a new client in one call: to a URL (Streamable HTTP, falling back to HTTP+SSE as the
 * spec describes) or over any transport, in the era `options.era` asks for (see
 * {@link ClientOptions.era}). The client is ready when the promise resolves; `client.close()`
 * ends the session. To spawn a stdio server, use `connect` from `mcpkit/stdio` (or `mcpkit`).
 */
export async function connect(target: HttpTarget | Transport, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  if (typeof target === 'string' || target instanceof URL) return (await connectHttp(target, options)).client;
  if ('url' in target) {
    const { url, ...transportOptions } = target;
    return (await connectHttp(url, options, transportOptions)).client;
  }
  // A stdio target reaches here from mcpkit/client, which has no processes to spawn.
  if (typeof (target as Partial<Transport>).start !== 'function' && 'command' in target)
    throw new TypeError(
      "connect() from mcpkit/client takes a URL or a transport; a stdio server ({ command }) is started by connect() from 'mcpkit/stdio' or 'mcpkit' (Node, Bun, Deno)",
    );
  const client = new McpClient({ name: 'mcpkit-client', version: '0.1.0', ...options });
  await client.connect(target);
  return client;
}
