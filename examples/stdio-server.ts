// A small but complete stdio server: run it with `node --import tsx examples/stdio-server.ts`
// and point any MCP client at that command.
import { z } from 'zod';
import { McpServer } from '../src/entries/server.js';
import { serveStdio } from '../src/entries/stdio.js';

const server = new McpServer({ name: 'example-stdio', version: '1.0.0', instructions: 'Tools for demos and tests.' });

server.tool('echo', { description: 'Echoes the message back', input: { message: z.string() } }, ({ message }) => message);

server.tool(
  'add',
  {
    title: 'Add two numbers',
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  ({ a, b }) => ({ sum: a + b }),
);

server.tool('count', { description: 'Counts to n, reporting progress', input: { n: z.number().int().min(1).max(100) } }, async ({ n }, ctx) => {
  for (let i = 1; i <= n; i++) {
    await ctx.progress(i, n, `step ${i} of ${n}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return `counted to ${n}`;
});

server.tool('fail', { description: 'Always fails' }, () => {
  throw new Error('this tool always fails');
});

server.resource('readme', 'file:///readme.md', { mimeType: 'text/markdown', description: 'The readme' }, () => '# Hello\n');
server.resource('doc', 'docs://{name}', { mimeType: 'text/plain' }, (uri) => `contents of ${uri}`);

server.prompt(
  'greet',
  {
    description: 'Greets someone',
    args: { name: z.string().describe('Who to greet') },
    complete: { name: (v) => ['Alice', 'Bob', 'Carol'].filter((n) => n.toLowerCase().startsWith(v.toLowerCase())) },
  },
  ({ name }) => `Please greet ${name} warmly.`,
);

await serveStdio(server);
