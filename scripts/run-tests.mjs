// Runs every test/**/*.test.ts with node's built-in runner through tsx.
// Node 20's `--test` does not expand globs, so the file list is built here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
let files = collect('test', []).sort();
if (filters.length) files = files.filter((f) => filters.some((s) => f.includes(s)));
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
const r = spawnSync(node, ['--import', 'tsx', '--test', '--test-concurrency=4', '--test-timeout=600000', ...files], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
