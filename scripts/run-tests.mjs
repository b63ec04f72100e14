// Runs the test files with node's built-in runner through tsx.
//
//   node scripts/run-tests.mjs [--group=fast|e2e|all] [FILTER...]
//
// `fast` (npm test): the in-process tests. `e2e` (npm run test:e2e): those that drive real child
// processes, the built CLI, Chromium, a real Redis, the packed tarball (scripts/test-groups.mjs
// decides). `all`: both. A FILTER keeps the files whose path contains it; with a filter and no
// --group, every group is searched (npm test -- cli/serve runs an e2e file too).
// Node 20's `--test` does not expand globs, so the file list is built here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { groupOf } from './test-groups.mjs';
import { buildTests } from './test-build.mjs';

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const groupArg = args.find((a) => a.startsWith('--group='))?.slice('--group='.length);
const filters = args.filter((a) => !a.startsWith('--group='));
const group = groupArg ?? (filters.length ? 'all' : 'fast');
if (!['fast', 'e2e', 'all'].includes(group)) {
  console.error(`--group must be fast, e2e or all (got ${group})`);
  process.exit(2);
}
let files = collect('test', []).sort();
if (filters.length) files = files.filter((f) => filters.some((s) => f.includes(s)));
if (group !== 'all') files = files.filter((f) => groupOf(f) === group);
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Tests run on the Node that runs npm (the machine's, what users have), even if a package puts
// another `node` on the PATH of npm scripts.
const node = process.env.npm_node_execpath || process.execPath;
// A safety net, not a measurement: a test that hangs fails with its name after 10 minutes instead
// of holding the whole run (and CI) until it is killed. Node 20 applies it to each file as a
// whole too, and the tarball test (npm pack, an offline install, two compiles) took over 3
// minutes on a loaded 2-core machine; the net must not catch honest work.
// MCPKIT_TEST_PATIENCE (test/support/wait.ts) stretches this net as it does the tests' own.
const patience = Math.max(1, Number(process.env.MCPKIT_TEST_PATIENCE) || 1);
// The fast files run compiled (scripts/test-build.mjs: half the CPU of tsx per file), with source
// maps so that stacks name the .ts lines. The end-to-end files run through tsx from the checkout:
// they start the built CLI, install the tarball and write configs naming the checkout's paths, and
// their cost is in the processes they start. MCPKIT_TEST_TSX=1 runs every file through tsx.
const compiled = process.env.MCPKIT_TEST_TSX === '1' ? [] : files.filter((f) => groupOf(f) === 'fast');
const sources = files.filter((f) => !compiled.includes(f));
const runner = ['--test', '--test-concurrency=4', `--test-timeout=${Math.round(600_000 * patience)}`];
let status = 0;
if (compiled.length) {
  const { out } = await buildTests();
  const mirrored = compiled.map((f) => join(out, f.replace(/\.tsx?$/, '.js')));
  status = spawnSync(node, ['--enable-source-maps', ...runner, ...mirrored], { stdio: 'inherit' }).status ?? 1;
}
if (sources.length) {
  const r = spawnSync(node, ['--import', 'tsx', ...runner, ...sources], { stdio: 'inherit' }).status ?? 1;
  status ||= r;
}
process.exit(status);
