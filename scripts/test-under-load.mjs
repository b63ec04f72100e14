// Runs the test suite while busy loops hog every core, as on a shared CI machine:
// `node scripts/test-under-load.mjs [--loops=N] [--group=fast|e2e|all] [filters...]`
// (npm run test:load -- --group=e2e). N defaults to two per core (four on a 2-core machine).
// The suite must pass like this; the tests wait for events and conditions, never for the machine
// to be fast. Their safety nets (timeouts that turn a hang into a failure) are stretched by
// MCPKIT_TEST_PATIENCE, set here to 1 + N / cores (3 for four loops on two cores) unless it is
// set already: a process gets that much less of the machine.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const node = process.env.npm_node_execpath || process.execPath;
const args = process.argv.slice(2);
const loopsArg = args.find((a) => a.startsWith('--loops='));
const loops = loopsArg ? Number(loopsArg.slice('--loops='.length)) : 2 * availableParallelism();
if (!Number.isInteger(loops) || loops < 0) {
  console.error(`--loops must be a whole number (got ${loopsArg})`);
  process.exit(2);
}
const cores = availableParallelism();
const patience = process.env.MCPKIT_TEST_PATIENCE ?? String(1 + loops / cores);
const hogs = Array.from({ length: loops }, () => spawn(node, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const started = Date.now();
const tests = spawn(node, ['scripts/run-tests.mjs', ...args.filter((a) => a !== loopsArg)], {
  stdio: 'inherit',
  env: { ...process.env, MCPKIT_TEST_PATIENCE: patience },
});
tests.on('exit', (code, signal) => {
  for (const h of hogs) h.kill('SIGKILL');
  console.error(
    `test-under-load: ${hogs.length} busy loops on ${cores} cores, patience ${patience}; exit ${code ?? signal}; ${Math.round((Date.now() - started) / 1000)} s`,
  );
  process.exit(code ?? 1);
});
