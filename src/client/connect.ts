import { StdioClientTransport, type StdioClientTransportOptions } from '../transports/stdio/client.js';
import type { Transport } from '../transports/transport.js';
import { McpClient, type ClientOptions } from './client.js';

/** A stdio server to spawn. */
export type StdioTarget = StdioClientTransportOptions;

/**
 * Connects a new client in one call: to a stdio server to spawn, or over any transport.
 * The client is initialized when the promise resolves; `client.close()` shuts the server down.
 */
export async function connect(target: StdioTarget | Transport, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  const transport = 'send' in target ? target : new StdioClientTransport(target);
  const client = new McpClient({ name: 'mcpkit-client', version: '0.1.0', ...options });
  await client.connect(transport);
  return client;
}
