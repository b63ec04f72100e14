// The one server definition the both-eras suite runs against (not a test file itself): tools
// (one asking for input with ctx.elicit, one listing roots, one with progress, one failing, one
// with an output schema), a static resource, a template with completion, and a prompt with
// completion. Served over HTTP in-process, and over stdio by test/fixtures/stdio/both-eras-server.ts.
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';

export interface BothErasOptions {
  /**
   * Awaited by `count` after each progress notification, before the next step: a latch the test
   * opens when its client has seen that step. The official v2 client (2.4.0) drops a progress
   * notification it reads together with the result (it runs notification handlers a microtask
   * late, after the result removed the call's progress handler), so a test of it waits for each
   * step to arrive instead of pacing the tool and hoping. Without it, `count` sends every step at
   * once, which mcpkit's client delivers in order whatever reads they come in.
   */
  stepSeen?: (step: number) => Promise<void>;
}

export function buildBothErasServer(options: BothErasOptions = {}): McpServer {
  const server = new McpServer({ name: 'both-eras', version: '1.2.3', instructions: 'One definition, both eras.' });

  server.tool('echo', { description: 'Echoes the message back', input: { message: z.string() } }, ({ message }) => message);

  server.tool(
    'add',
    {
      title: 'Add two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.object({ sum: z.number() }),
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => ({ sum: a + b }),
  );

  server.tool('count', { description: 'Counts to n with progress', input: { n: z.number().int().min(1).max(20) } }, async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) {
      await ctx.progress(i, n, `step ${i}`);
      await options.stepSeen?.(i);
    }
    return `counted to ${n}`;
  });

  server.tool('fail', { description: 'Always fails' }, () => {
    throw new Error('this tool always fails');
  });

  // Asks twice (handshake: two elicitation/create requests; 2026-07-28: input_required rounds),
  // so the answers of earlier rounds must be replayed correctly.
  server.tool('deploy', { description: 'Deploys after two confirmations', input: { env: z.string() } }, async ({ env }, ctx) => {
    const first = await ctx.elicit({
      message: `Deploy to ${env}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    if (first.action !== 'accept' || first.content?.ok !== true) return `not deployed (${first.action})`;
    const second = await ctx.elicit(
      { message: `Really deploy to ${env}? Type the name.`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      { key: 'confirm-name' },
    );
    if (second.action !== 'accept' || second.content?.name !== env) return `not deployed (${second.action})`;
    return `deployed to ${env}`;
  });

  server.tool('roots', { description: 'Lists the client roots' }, async (_args, ctx) => (await ctx.roots()).map((r) => r.uri).join(','));

  server.resource('readme', 'file:///readme.md', { mimeType: 'text/markdown', description: 'The readme' }, () => '# Both eras\n');
  server.resourceTemplate(
    'note',
    'notes://{id}',
    { mimeType: 'text/plain', complete: { id: (prefix) => ['alpha', 'beta', 'gamma'].filter((n) => n.startsWith(prefix)) } },
    (uri, { id }) => ({ text: `note ${String(id)} at ${uri}` }),
  );

  server.prompt(
    'greet',
    {
      description: 'Greets someone',
      args: { name: z.string().describe('Who to greet') },
      complete: { name: (v) => ['Alice', 'Bob', 'Carol'].filter((n) => n.toLowerCase().startsWith(v.toLowerCase())) },
    },
    ({ name }) => `Please greet ${name} warmly.`,
  );

  return server;
}
