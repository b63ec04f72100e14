// Many backends in one process, for the gateway's scaling case: `node many.mjs <count> <tools>`
// starts `count` mcpkit servers (stateless, JSON answers, as servers/http.mjs serves mcpkit in its
// `json` mode), each with `echo` and `tools - 1` more tools of realistic size, on ports of their
// own. Tells the parent the first port (`port`) and every port (`ports`) over IPC.
import { z } from 'zod';
import { McpServer } from 'mcpkit/server';
import { serve } from 'mcpkit/node';
import { installStats } from '../lib/child-stats.mjs';

const [count = '1', tools = '100'] = process.argv.slice(2);
const shape = {
  query: z.string().max(256).describe('What to look for'),
  limit: z.number().int().min(1).max(100).optional(),
  tags: z.array(z.string()).optional(),
};
const running = [];
for (let i = 0; i < Number(count); i++) {
  const server = new McpServer({ name: `bench-${i}`, version: '1.0.0' });
  server.tool('echo', { description: 'Echoes the message', input: { message: z.string() } }, ({ message }) => message);
  for (let t = 1; t < Number(tools); t++) server.tool(`tool_${t}`, { description: `Filler tool ${t} of backend ${i}`, input: shape }, ({ query }) => query);
  running.push(await serve(server, { port: 0, host: '127.0.0.1', stateful: false, responseMode: 'json', eventStore: false }));
}
installStats(() => Promise.all(running.map((r) => r.close())));
process.send?.({ type: 'ready', port: running[0].port, ports: running.map((r) => r.port), pid: process.pid });
