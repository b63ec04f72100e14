// One stdio server under test: `node stdio.mjs <impl>`, impl: bare | mcpkit | sdk1 | sdk2.
// Same echo tool everywhere. Started by the bench with an IPC channel for stats, or by a client
// library (mcpkit's connect(), the SDK's StdioClientTransport) without one.
import { z } from 'zod';
import { installStats } from '../lib/child-stats.mjs';

const [impl] = process.argv.slice(2);

const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'bench', version: '1.0.0' } };

if (impl === 'bare') {
  // The line-protocol limit: parse each line, answer the same result. No MCP library.
  let buf = '';
  const handle = (line) => {
    const msg = JSON.parse(line);
    if (msg.id === undefined) return;
    let out;
    if (msg.method === 'initialize') out = { jsonrpc: '2.0', id: msg.id, result: INIT_RESULT };
    else if (msg.method === 'tools/call') out = { jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: msg.params.arguments.message }] } };
    else if (msg.method === 'tools/list')
      out = {
        jsonrpc: '2.0',
        id: msg.id,
        result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }] },
      };
    else out = { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } };
    process.stdout.write(JSON.stringify(out) + '\n');
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) handle(line);
    }
  });
  process.stdin.on('end', () => process.exit(0));
} else if (impl === 'mcpkit') {
  const { McpServer } = await import('mcpkit');
  const { serveStdio } = await import('mcpkit/stdio');
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.tool('echo', { description: 'Echoes the message', input: { message: z.string() } }, ({ message }) => message);
  await serveStdio(server);
} else if (impl === 'sdk1') {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes the message', inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: message }],
  }));
  await server.connect(new StdioServerTransport());
} else if (impl === 'sdk2') {
  const { McpServer } = await import('@modelcontextprotocol/server');
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(() => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echoes the message', inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
      content: [{ type: 'text', text: message }],
    }));
    return server;
  });
} else {
  console.error(`unknown implementation ${impl}`);
  process.exit(2);
}
installStats();
process.send?.({ type: 'ready', port: 0, pid: process.pid });
