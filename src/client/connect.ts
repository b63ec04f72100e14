import { connectHttp, type ConnectHttpTransportOptions } from '../transports/http/client/connect-http.js';
import { StdioClientTransport, type StdioClientTransportOptions } from '../transports/stdio/client.js';
import type { Transport } from '../transports/transport.js';
import { McpClient, type ClientOptions } from './client.js';

/** A stdio server to spawn. */
export type StdioTarget = StdioClientTransportOptions;

/** An HTTP server: its URL, plus transport options (headers, fetch, reconnect). */
export type HttpTarget = string | URL | ({ url: string | URL } & ConnectHttpTransportOptions);

/**
 * Connects a new client in one call: to a URL (Streamable HTTP, falling back to HTTP+SSE as the
 * spec describes), to a stdio server to spawn, or over any transport. The client is initialized
 * when the promise resolves; `client.close()` ends the session or shuts the server down.
 */
export async function connect(target: HttpTarget | StdioTarget | Transport, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  if (typeof target === 'string' || target instanceof URL) return (await connectHttp(target, options)).client;
  if ('url' in target) {
    const { url, ...transportOptions } = target;
    return (await connectHttp(url, options, transportOptions)).client;
  }
  const transport = 'send' in target ? target : new StdioClientTransport(target);
  const client = new McpClient({ name: 'mcpkit-client', version: '0.1.0', ...options });
  await client.connect(transport);
  return client;
}
