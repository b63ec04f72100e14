// Runs the test suite while busy loops hog every core (one per core), as on a shared CI machine:
// `node scripts/test-under-load.mjs [filters...]`. The suite must pass like this; the tests
// wait for events and conditions, never for the machine to be fast.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const node = process.env.npm_node_execpath || process.execPath;
const hogs = Array.from({ length: availableParallelism() }, () => spawn(node, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const started = Date.now();
const tests = spawn(node, ['scripts/run-tests.mjs', ...process.argv.slice(2)], { stdio: 'inherit' });
tests.on('exit', (code, signal) => {
  for (const h of hogs) h.kill('SIGKILL');
  console.error(`test-under-load: ${hogs.length} busy loops; exit ${code ?? signal}; ${Math.round((Date.now() - started) / 1000)} s`);
  process.exit(code ?? 1);
});
