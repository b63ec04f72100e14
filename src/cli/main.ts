#!/usr/bin/env node
// The `mcpkit` binary: run() (src/cli/run.ts) bound to this process's streams and signals.
import * as v8 from 'node:v8';
import { processIo } from './io.js';
import { run } from './run.js';

// No allocation-site pretenuring in the commands' processes (unless node was given the flag
// either way). Under load V8 saw most of a request's objects outlive a scavenge early on (while
// the code was still cold), decided those allocation sites make long-lived objects, and from then
// allocated them in the old generation, where each, once dead, kept the young objects it pointed
// at alive through every scavenge until the next full collection: the gateway promoted 4.7 KB per
// forwarded call and spent about a tenth of its CPU scavenging. Measured in docs/performance.md
// ("The gateway's garbage"). A server's per-request objects are short-lived: nothing is lost.
if (!process.execArgv.some((a) => a.includes('allocation-site-pretenuring'))) {
  try {
    v8.setFlagsFromString('--no-allocation-site-pretenuring');
  } catch {
    // A runtime without V8 flags (Bun, Deno): nothing to tune.
  }
}

// `mcpkit tools URL --json | head`: a reader that goes away early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const code = await run(process.argv.slice(2), processIo());
// Exit once stdout has been flushed (a pipe reader must get every byte); exiting, not just
// setting exitCode, also ends what a command leaves behind (a stdio child's pipes).
process.stdout.write('', () => process.exit(code));
