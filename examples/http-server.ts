// A Streamable HTTP server (plus HTTP+SSE at /sse) serving both protocol eras:
//   node --import tsx examples/http-server.ts [port]
// then connect any MCP client to the printed URL.
import { z } from 'zod';
import { McpServer } from '../src/entries/server.js';
import { serve } from '../src/entries/node.js';

const server = new McpServer({ name: 'example-http', version: '1.0.0' });

server.tool('greet', { description: 'Greets someone by name', input: { name: z.string() } }, ({ name }) => `Hello, ${name}!`);

server.tool('confirm_delete', { description: 'Deletes a file after asking the user', input: { path: z.string() } }, async ({ path }, ctx) => {
  // Ask first, act after: in 2026-07-28 a retry that lands on another instance runs the handler
  // again from the top (wrap a side effect that must come first in ctx.step).
  const answer = await ctx.elicit({
    message: `Delete ${path}?`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', default: false } } },
  });
  return answer.action === 'accept' && answer.content?.confirm === true ? `deleted ${path}` : 'kept it';
});

const running = await serve(server, { port: Number(process.argv[2] ?? 3000) });
process.stderr.write(`listening on ${running.url}\n`);
