// The stdio client side of the runtime matrix, run by Bun or Deno (or Node): mcpkit's stdio client
// spawns the stdio server (server.mjs) with the Node named by the first argument, and runs the
// stdio checks. Prints one JSON line: { passed, total, failed: [{ name, message, stack }] }.
//   bun run test/runtimes/stdio/client.mjs /usr/bin/node
import { fileURLToPath } from 'node:url';
import { runStdioChecks } from './checks.mjs';

const node = process.argv[2];
if (!node) {
  console.error('usage: client.mjs <path of the node that runs the server>');
  process.exit(2);
}
const server = fileURLToPath(new URL('./server.mjs', import.meta.url));
const result = await runStdioChecks((extra = []) => ({ command: node, args: [server, ...extra] }), 'node');
const failed = result.failed.map(({ name, error }) => ({ name, message: String(error?.message ?? error), stack: String(error?.stack ?? '') }));
console.log(JSON.stringify({ passed: result.passed, total: result.total, passedNames: result.passedNames, failed }));
// A runtime whose child-process handles keep it alive would otherwise hang the matrix here.
process.exit(0);
