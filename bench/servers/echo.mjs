// The bench's echo server as a module for `mcpkit serve` (bench/gateway.mjs runs the CLI on it):
// the same McpServer as servers/http.mjs `mcpkit` builds, one `echo` tool.
import { z } from 'zod';
import { McpServer } from 'mcpkit/server';

const server = new McpServer({ name: 'bench', version: '1.0.0' });
server.tool('echo', { description: 'Echoes the message', input: { message: z.string() } }, ({ message }) => message);
export default server;
