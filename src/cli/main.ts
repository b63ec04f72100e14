#!/usr/bin/env node
// The `mcpkit` binary: run() (src/cli/run.ts) bound to this process's streams and signals.
import { processIo } from './io.js';
import { run } from './run.js';

// `mcpkit tools URL --json | head`: a reader that goes away early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const code = await run(process.argv.slice(2), processIo());
// Exit once stdout has been flushed (a pipe reader must get every byte); exiting, not just
// setting exitCode, also ends what a command leaves behind (a stdio child's pipes).
process.stdout.write('', () => process.exit(code));
