// The stdio server of the runtime matrix: mcpkit's serveStdio (dist/) in whatever runtime runs
// this file (`node`, `bun run`, `deno run`). Plain JavaScript, like app.mjs, so that every runtime
// loads it unchanged. `--crash` makes it fail at start, the way a misconfigured server does.
import { z } from 'zod';
import { McpServer } from '../../../dist/entries/server.js';
import { serveStdio } from '../../../dist/entries/stdio.js';

if (process.argv.includes('--crash')) {
  process.stderr.write('stdio-server: missing API_TOKEN, giving up\n');
  process.exit(3);
}

const server = new McpServer({ name: 'runtime-matrix-stdio', version: '1.0.0' });
server.tool('echo', { description: 'Echoes', input: { text: z.string() } }, ({ text }) => text);
server.tool('progress', { description: 'Counts, reporting progress', input: { steps: z.number().int().min(1).max(10) } }, async ({ steps }, ctx) => {
  for (let i = 1; i <= steps; i++) await ctx.progress(i, steps, `step ${i}`);
  return `did ${steps}`;
});
server.tool(
  'sum',
  {
    description: 'Adds (a plain JSON Schema: validated by ajv)',
    input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  ({ a, b }) => String(a + b),
);
server.tool('ask', { description: 'Asks for a name' }, async (_args, ctx) => {
  const answer = await ctx.elicit({
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
  return answer.action === 'accept' ? `hello ${answer.content.name}` : `no name (${answer.action})`;
});
// A tool that writes with console.log: on a stdio server that must reach stderr, not the protocol stream.
server.tool('chatty', { description: 'Logs, then answers' }, () => {
  console.log('chatty: a line for the log');
  return 'said it';
});
server.tool('runtime', { description: 'Names the runtime serving' }, () =>
  typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node',
);

// Written only on a normal exit: a server killed by a signal never says it, so the client can tell
// "exited on stdin EOF" (what the spec asks) from "had to be terminated".
process.on('exit', (code) => process.stderr.write(`stdio-server: exit ${code}\n`));
await serveStdio(server);
