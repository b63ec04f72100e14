// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against mcpkit, in
// two harness versions side by side, every pass a whole `--suite all`:
//
//   current (0.1.16, the `@modelcontextprotocol/conformance` dev dependency; handshake era):
//     1. `server --suite all` against conformance/server.ts;
//     2. `client --suite all` (auth included) against conformance/client.ts.
//     Baseline: conformance/expected-failures.yml.
//   next (0.2.0-alpha, the `conformance-next` alias dev dependency; adds the 2026-07-28 era):
//     3. `server --suite all` (2025-11-25 wire where a scenario applies there, the draft-only
//        scenarios on the stateless 2026-07-28 wire, plus the extensions);
//     4. `server --suite all --spec-version 2026-07-28` (the carried-forward scenarios too, on the
//        2026-07-28 wire);
//     5. `client --suite all` (every client scenario, auth and extensions included, each at its
//        own revision);
//     6. `client --suite all --spec-version 2026-07-28` (the carried-forward ones on that wire);
//     7. `authorization` (the authorization-server scenarios) against
//        conformance/authorization-server.ts (mcpkit/oauth-server, auto-approving, with the
//        pre-registered public client `conformance`); this script plays the user's browser.
//     Baseline: conformance/expected-failures.next.yml.
// One conformance/server.ts process serves every server pass (both eras on the same /mcp).
//
// Counted strictly, by this script, from the per-check results (not by the harness's summary,
// which ticks a scenario that failed nothing even when it tested nothing):
//   passed  at least one real check SUCCESS and no FAILURE or WARNING. The harness's generic
//           wire check (`wire-schema-*`, added to every scenario) and INFO logs are not real checks;
//   failed  a FAILURE or WARNING; or every real check SKIPPED (the feature is missing); or no
//           real check at all (zero checks); or no result;
//   parked  left out of the count: the suite itself parks the scenario, its one check SKIPPED
//           with a reason saying the harness "needs a rewrite" / is "tracked as a follow-up"
//           (tasks-status-notifications in 0.2.0-alpha.12). Printed with that reason.
// Each pass is then held against its baseline: the run fails on a failure the baseline does not
// list and on a listed scenario that passes or is parked (a stale entry).
//
//   npm run conformance [-- [--server-only | --client-only | --authorization-only] [--current-only | --next-only] [--runtime=bun|deno|workerd]]
//
// --server-only runs the authorization pass too (both test servers); --authorization-only runs
// only that pass.
//
// --runtime serves the server passes from toFetchHandler on Bun's or Deno's own server
// (test/runtimes/hosts/conformance.ts), or in workerd from a Durable Object
// (test/runtimes/hosts/conformance-worker.ts, bundled by scripts/workerd.mjs), instead of
// mcpkit/node on Node; the same baselines apply.
//
// The CLI needs Node >= 22: $CONFORMANCE_NODE, this node when it is new enough, or the npm
// registry's build fetched once into .cache/runtimes (see node22()). mcpkit itself (server and client)
// runs on the node that runs this script. Full harness output goes to .conformance/*.log and
// the per-check results to .conformance/<pass>/.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from './child.mjs';
import { binaryOf, Skip } from './runtime-bins.mjs';
import { conformanceWorker, workerdArgs, workerdPort } from './workerd.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const OUT = join(root, '.conformance');
const CURRENT = { pkg: '@modelcontextprotocol/conformance', baseline: 'conformance/expected-failures.yml' };
const NEXT = { pkg: 'conformance-next', baseline: 'conformance/expected-failures.next.yml' };
const MODERN = '2026-07-28';
/**
 * How the harness starts the client under test: one process per scenario, and in a suite all
 * of them at once. conformance/client.ts bundled once (see clientCommand()) starts in a fifth
 * of tsx's CPU time, which on a small machine is the difference between measuring mcpkit and
 * measuring the load. The harness splits the command on spaces.
 */
let CLIENT_COMMAND = 'npm run --silent conformance:client --';
/** Per scenario: a whole suite starts at once, and tsx compiles the client in each process. */
const CLIENT_TIMEOUT_MS = 120_000;
/** The pre-registered public client of conformance/authorization-server.ts. */
const AUTHORIZATION_CLIENT_ID = 'conformance';

const args = new Set(process.argv.slice(2));
const authorizationOnly = args.has('--authorization-only');
const runServer = !args.has('--client-only') && !authorizationOnly;
const runClient = !args.has('--server-only') && !authorizationOnly;
const runCurrent = !args.has('--next-only');
const runNext = !args.has('--current-only');
/** The `authorization` command exists in the next suite only. */
const runAuthorization = runNext && !args.has('--client-only');
const runtime = [...args].find((a) => a.startsWith('--runtime='))?.slice('--runtime='.length);
if (runtime !== undefined && !['bun', 'deno', 'workerd'].includes(runtime)) throw new Error(`--runtime: bun, deno or workerd, not ${runtime}`);

/**
 * A Node >= 22 for the conformance CLI, called by path (never shadowing `node`): CONFORMANCE_NODE,
 * this Node if it is new enough, or the registry's build fetched into .cache/runtimes the way the
 * runtime matrix fetches Bun and Deno (scripts/runtime-bins.mjs). Not a dev dependency: `npm ci`
 * must work on every platform Node 20 runs on.
 */
function node22() {
  if (process.env.CONFORMANCE_NODE) return process.env.CONFORMANCE_NODE;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  try {
    return binaryOf('node22');
  } catch (err) {
    if (err instanceof Skip) throw new Error(`The conformance CLI needs Node >= 22: ${err.message}`);
    throw err;
  }
}

function conformanceCli(pkgName) {
  const pkgPath = require.resolve(`${pkgName}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.conformance;
  return { path: join(dirname(pkgPath), bin), version: pkg.version };
}

/**
 * conformance/client.ts bundled into .conformance/client.mjs (node_modules left external, so it
 * must live under the root), run with this node. esbuild comes with tsx; without it, or with a
 * space in a path, the client runs through tsx as `npm run conformance:client`.
 */
function clientCommand() {
  const outfile = join(OUT, 'client.mjs');
  if (process.execPath.includes(' ') || outfile.includes(' ')) return CLIENT_COMMAND;
  try {
    require('esbuild').buildSync({
      entryPoints: [join(root, 'conformance/client.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile,
      logLevel: 'warning',
    });
    return `${process.execPath} ${outfile}`;
  } catch (err) {
    console.log(`(bundling conformance/client.ts failed, running it through tsx: ${err instanceof Error ? err.message.split('\n')[0] : err})`);
    return CLIENT_COMMAND;
  }
}

/** Runs a command to completion, its output appended to `logFile`; `onLine` sees each stdout line as it comes. */
function run(cmd, argv, logFile, onLine) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    const chunks = [];
    let partial = '';
    child.stdout.on('data', (c) => {
      chunks.push(c);
      if (!onLine) return;
      const lines = (partial + c.toString('utf8')).split('\n');
      partial = lines.pop();
      for (const line of lines) onLine(line.trim(), child);
    });
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', fail);
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString('utf8');
      writeFileSync(logFile, `$ ${[cmd, ...argv].join(' ')}\n${output}`, { flag: 'a' });
      done({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** The command serving conformance/server.ts: on this Node, or in `runtime` through the fetch handler. */
async function serverCommand() {
  if (!runtime) return [process.execPath, ['--import', 'tsx', 'conformance/server.ts', '--port', '0']];
  const host = 'test/runtimes/hosts/conformance.ts';
  if (runtime === 'bun') return [binaryOf('bun'), ['run', host]];
  if (runtime === 'workerd') return [binaryOf('workerd'), workerdArgs(await conformanceWorker(root))];
  // Deno maps no `.js` import to its `.ts` source without the sloppy-imports flag.
  return [binaryOf('deno'), ['run', '--no-lock', '--unstable-sloppy-imports', '--allow-net=127.0.0.1', '--allow-read', '--allow-env', host]];
}

/** Starts conformance/server.ts on a free port; resolves once it prints its URL. */
async function startServer(logFile) {
  const [cmd, argv] = await serverCommand();
  return startListening(cmd, argv, logFile, 'conformance server');
}

/** Starts a test server; resolves once it prints `listening on <url>`. */
function startListening(cmd, argv, logFile, what) {
  return new Promise((done, fail) => {
    // workerd names its port on a control descriptor instead of printing a line.
    const control = argv[0] === 'serve' && argv.includes('--control-fd');
    const child = spawn(cmd, argv, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe', ...(control ? ['pipe'] : [])],
    });
    let seen = '';
    if (control) workerdPort(child, (port) => onData(`listening on http://127.0.0.1:${port}/mcp\n`));
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(new Error(`${what} did not start within 60 s:\n${seen}`));
    }, 60_000);
    const onData = (c) => {
      const text = c.toString('utf8');
      writeFileSync(logFile, text, { flag: 'a' });
      seen += text;
      const m = /listening on (http:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.on('data', (d) => writeFileSync(logFile, d, { flag: 'a' }));
        done({ child, url: m[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => writeFileSync(logFile, c, { flag: 'a' }));
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${what} exited with code ${code} before listening:\n${seen}`));
    });
  });
}

/**
 * Scenario → its checks, from the harness's `-o` directory (`[server-]<scenario>-<timestamp>/checks.json`;
 * auth scenarios one level down, `auth/<scenario>-<timestamp>/`).
 */
function readResults(dir, prefix, results = new Map(), group = '') {
  if (!existsSync(dir)) return results;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(dir, entry.name, 'checks.json');
    if (!existsSync(file)) {
      if (!group && entry.name === 'auth') readResults(join(dir, entry.name), prefix, results, 'auth/');
      continue;
    }
    const scenario = group + entry.name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '').slice(prefix.length);
    results.set(scenario, JSON.parse(readFileSync(file, 'utf8')));
  }
  return results;
}

/** How the suite marks a scenario it parks itself (its harness awaits a rewrite). */
const PARKED = /needs a rewrite|tracked as a follow-up/i;
/** Checks the harness adds to every scenario: they say nothing about the feature under test. */
const isReal = (c) => c.status !== 'INFO' && !c.id.startsWith('wire-schema-');

/**
 * The strict verdict on one scenario's checks: `pass`, `fail` (with the reason) or `parked`.
 * See the head of this file.
 */
function verdict(checks) {
  if (!checks) return { kind: 'fail', reason: 'no result', problems: [] };
  const problems = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const real = checks.filter(isReal);
  const passed = real.filter((c) => c.status === 'SUCCESS').length;
  const skipped = real.filter((c) => c.status === 'SKIPPED');
  if (problems.length) return { kind: 'fail', reason: `failed check: ${problems.map((c) => c.id).join(', ')}`, problems };
  if (real.length === 0) return { kind: 'fail', reason: 'zero checks', problems };
  if (passed === 0) {
    const why = skipped.map((c) => `${c.errorMessage ?? ''} ${c.description ?? ''}`).find((t) => PARKED.test(t));
    if (why) return { kind: 'parked', reason: why.trim().replace(/^Skipped: /, ''), problems };
    return { kind: 'fail', reason: `only skipped (${skipped.length} SKIPPED, 0 passed): ${skipped[0].errorMessage ?? skipped[0].description}`, problems };
  }
  return { kind: 'pass', reason: `${passed} passed${skipped.length ? `, ${skipped.length} skipped` : ''}`, problems };
}

/** The baseline's `server:` or `client:` list: scenario → the reason in the entry's trailing comment. */
function baselineList(file, kind) {
  const text = readFileSync(join(root, file), 'utf8');
  const out = new Map();
  let current;
  for (const raw of text.split('\n')) {
    const head = /^(\w+):\s*(\[\])?\s*(#.*)?$/.exec(raw);
    if (head) {
      current = head[1];
      continue;
    }
    const item = /^\s*-\s*['"]?([^'"#\s]+)['"]?\s*(?:#\s*(.*))?$/.exec(raw);
    if (item && current === kind) out.set(item[1], item[2]?.trim() || '(no reason given)');
  }
  return out;
}

/**
 * Checks that time the client with a wall clock (sse-retry's reconnect delay, 450-700 ms). With
 * a whole suite starting at once on a small machine they measure the load, so a scenario that
 * fails on nothing but these is run again alone, and the line says so. Nothing else is rerun:
 * a load-dependent failure of anything else is a finding (the auth/authorization-server-migration
 * failure of issue 14 was one).
 */
const TIMING_CHECKS = new Set(['client-sse-retry-timing']);

/** Prints one pass, strictly counted, and judges it against the baseline. */
function report(title, names, results, expected, baseline, used, notes = new Map()) {
  const by = { pass: [], fail: [], parked: [] };
  let unexpected = 0;
  let stale = 0;
  const lines = [];
  for (const name of names) {
    const v = verdict(results.get(name));
    by[v.kind].push(name);
    const listed = expected.get(name);
    if (listed !== undefined) used.add(name);
    let note = '';
    if (v.kind === 'fail' && listed !== undefined) note = `  (expected: ${listed})`;
    else if (v.kind === 'fail') {
      note = '  <- UNEXPECTED';
      unexpected++;
    } else if (listed !== undefined) {
      note = `  <- STALE baseline entry: remove it from ${baseline}`;
      stale++;
    }
    const mark = { pass: '✓', fail: '✗', parked: '-' }[v.kind];
    const again = notes.has(name) ? ` (${notes.get(name)})` : '';
    lines.push(`  ${mark} ${name.padEnd(46)} ${v.kind === 'fail' ? 'FAIL, ' : v.kind === 'parked' ? 'parked: ' : ''}${v.reason}${again}${note}`);
    if (v.kind === 'fail' && listed === undefined) for (const c of v.problems) lines.push(`      ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  }
  const counted = by.pass.length + by.fail.length;
  console.log(`\n${title}: ${by.pass.length}/${counted} passed, ${by.fail.length} failed, ${by.parked.length} parked`);
  for (const l of lines) console.log(l);
  if (by.fail.length) console.log(`  failed: ${by.fail.join(', ')}`);
  if (by.parked.length) console.log(`  parked by the suite (not counted): ${by.parked.join(', ')}`);
  return { unexpected, stale, passed: by.pass.length, failed: by.fail.length, parked: by.parked.length, counted };
}

function listedScenarios(output) {
  const names = [];
  for (const line of output.split('\n')) {
    const m = /^\s+- (\S+)/.exec(line);
    if (m) names.push(m[1]);
  }
  return names;
}

/**
 * One `conformance server|client --suite all` pass. Scenario names come from the CLI's own
 * listing for the same filter, plus anything that produced results. The harness is not given
 * the baseline: it would judge by its own, lenient, rule; this script judges.
 */
async function suitePass({ cli, node, side, target, title, baseline, used, filter = [], out, log }) {
  const t0 = performance.now();
  const how = side === 'server' ? ['--url', target] : ['--command', CLIENT_COMMAND, '--timeout', String(CLIENT_TIMEOUT_MS)];
  const res = await run(node, [cli.path, side, ...how, '--suite', 'all', ...filter, '-o', out], log);
  const listed = await run(node, [cli.path, 'list', `--${side}`, ...filter], `${log.replace(/\.log$/, '')}-list.log`);
  const names = listedScenarios(listed.output);
  const results = readResults(out, side === 'server' ? 'server-' : '');
  for (const n of results.keys()) if (!names.includes(n)) names.push(n);
  const notes = new Map();
  for (const name of names) {
    const v = verdict(results.get(name));
    if (side !== 'client' || v.kind !== 'fail' || !v.problems.length || !v.problems.every((c) => TIMING_CHECKS.has(c.id))) continue;
    const alone = join(`${out}-alone`, name.replace(/\//g, '_'));
    await run(node, [cli.path, 'client', ...how, '--scenario', name, ...filter, '-o', alone], log);
    const again = readResults(alone, '').get(name);
    notes.set(name, `rerun alone; in the suite: ${v.problems.map((c) => c.errorMessage ?? c.id).join('; ')}`);
    results.set(name, again);
  }
  const r = report(title, names, results, baselineList(baseline, side), baseline, used, notes);
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  // The harness exits non-zero on any FAILURE or WARNING, which the strict count has seen; a
  // run that produced no results at all is a broken run.
  const broken = results.size === 0;
  if (broken) console.log(`  the harness produced no results (exit code ${res.code}); full output: ${log}`);
  const failed = broken || r.unexpected > 0 || r.stale > 0;
  const summary = `${title}: ${r.passed}/${r.counted} passed, ${r.failed} failed${r.failed ? ' (expected)' : ''}${r.parked ? `, ${r.parked} parked` : ''} in ${secs}s`;
  return { failed, summary: r.unexpected ? summary.replace(' (expected)', ` (${r.unexpected} unexpected)`) : summary };
}

/** Baseline entries no pass ran: stale too (a renamed or dropped scenario). */
function unusedEntries(baseline, used) {
  const kinds = ['server', 'client', 'authorization'];
  const left = kinds.flatMap((k) => [...baselineList(baseline, k).keys()]).filter((n) => !used.has(n));
  for (const n of left) console.log(`  STALE baseline entry ${n}: no pass ran it; remove it from ${baseline}`);
  return left.length;
}

/** A free port on 127.0.0.1 for the harness's OAuth callback server (it takes a number, not 0). */
function freePort() {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

/**
 * The user's browser in authorization-code-grant: the harness prints the authorization URL and
 * waits for the redirect to its callback server. GETs the URL and follows the authorization
 * server's redirects by hand, up to the callback (which gets the code). Undefined when the
 * callback was reached, else why not.
 */
async function browse(url, callback) {
  let next = url;
  for (let hop = 0; hop < 5; hop++) {
    const r = await fetch(next, { redirect: 'manual' });
    await r.arrayBuffer();
    const location = r.headers.get('location');
    if (r.status < 300 || r.status > 399 || !location) return `${next} answered ${r.status} without a redirect`;
    next = new URL(location, next).href;
    if (next.startsWith(`${callback}?`)) {
      await (await fetch(next)).arrayBuffer();
      return undefined;
    }
  }
  return `no redirect to ${callback} within 5 hops`;
}

/**
 * Pass 7: `authorization` against conformance/authorization-server.ts, counted strictly like the
 * others. The server is started on a free port (its issuer, which the metadata scenario compares
 * with --url exactly, comes from the Host header: http://127.0.0.1:<port>).
 */
async function authorizationPass(cli, node, used) {
  const t0 = performance.now();
  const out = join(OUT, 'authorization');
  const log = join(OUT, 'authorization.log');
  const title = `authorization ${cli.version}`;
  console.log(`\nauthorization-server scenarios against conformance/authorization-server.ts ...`);
  const { child, url: issuer } = await startListening(
    process.execPath,
    ['--import', 'tsx', 'conformance/authorization-server.ts', '--port', '0'],
    join(OUT, 'authorization-server-process.log'),
    'conformance authorization server',
  );
  let authorizationUrl;
  let callbackUp = false;
  let browseProblem;
  try {
    const port = await freePort();
    const callback = `http://127.0.0.1:${port}/callback`;
    const argv = [cli.path, 'authorization', '--url', issuer, '--client-id', AUTHORIZATION_CLIENT_ID, '-p', String(port), '-o', out];
    const res = await run(node, argv, log, (line, harness) => {
      // The URL is printed before the callback server listens: browse once both are seen.
      if (line.startsWith(`${issuer}/authorize?`)) authorizationUrl ??= line;
      else if (line.startsWith('Callback server started')) callbackUp = true;
      else return;
      if (!authorizationUrl || !callbackUp) return;
      const url = authorizationUrl;
      authorizationUrl = '';
      browse(url, callback)
        .catch((err) => `GET ${url} failed: ${err instanceof Error ? err.message : err}`)
        .then((problem) => {
          if (!problem) return;
          browseProblem = problem;
          // Otherwise the harness waits five minutes for a callback that will not come.
          harness.kill('SIGTERM');
        });
    });
    if (browseProblem) console.log(`  the browser step failed: ${browseProblem}`);
    const listed = await run(node, [cli.path, 'list', '--authorization'], join(OUT, 'authorization-list.log'));
    const names = listedScenarios(listed.output);
    const results = readResults(out, 'authorization-server-');
    for (const n of results.keys()) if (!names.includes(n)) names.push(n);
    const r = report(title, names, results, baselineList(NEXT.baseline, 'authorization'), NEXT.baseline, used);
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    const broken = results.size === 0;
    if (broken) console.log(`  the harness produced no results (exit code ${res.code}); full output: ${log}`);
    const summary = `${title}: ${r.passed}/${r.counted} passed, ${r.failed} failed in ${secs}s`;
    return { failed: broken || r.unexpected > 0 || r.stale > 0, summary };
  } finally {
    await stopChild(child);
  }
}

async function main() {
  const started = performance.now();
  const node = node22();
  const current = conformanceCli(CURRENT.pkg);
  const next = conformanceCli(NEXT.pkg);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const used = [runCurrent && `${current.version} (current)`, runNext && `${next.version} (next)`].filter(Boolean).join(' and ');
  const host = runtime ? `${runtime} (toFetchHandler) for the server, node ${process.version} for the client` : `node ${process.version}`;
  console.log(`MCP conformance suite ${used} (CLI on ${node}), mcpkit on ${host}; counted strictly`);
  const passes = [];
  const seen = { current: new Set(), next: new Set() };
  const modern = ['--spec-version', MODERN];

  if (runServer) {
    const { child, url } = await startServer(join(OUT, 'server-process.log'));
    const target = `http://localhost:${new URL(url).port}/mcp`;
    console.log(`server suites against ${target} ...`);
    const pass = (cli, which, title, out, filter = []) =>
      suitePass({
        cli,
        node,
        side: 'server',
        target,
        title,
        baseline: which === 'current' ? CURRENT.baseline : NEXT.baseline,
        used: seen[which],
        filter,
        out: join(OUT, out),
        log: join(OUT, `${out}.log`),
      });
    try {
      if (runCurrent) passes.push(await pass(current, 'current', `server ${current.version} --suite all`, 'server'));
      if (runNext) {
        passes.push(await pass(next, 'next', `server ${next.version} --suite all`, 'server-next'));
        passes.push(await pass(next, 'next', `server ${next.version} --suite all --spec-version ${MODERN}`, 'server-next-2026', modern));
      }
    } finally {
      await stopChild(child);
    }
  }

  if (runClient) {
    CLIENT_COMMAND = clientCommand();
    console.log(`\nclient suites (each scenario of a suite at once; client: ${CLIENT_COMMAND}) ...`);
    const pass = (cli, which, title, out, filter = []) =>
      suitePass({
        cli,
        node,
        side: 'client',
        title,
        baseline: which === 'current' ? CURRENT.baseline : NEXT.baseline,
        used: seen[which],
        filter,
        out: join(OUT, out),
        log: join(OUT, `${out}.log`),
      });
    if (runCurrent) passes.push(await pass(current, 'current', `client ${current.version} --suite all`, 'client'));
    if (runNext) {
      passes.push(await pass(next, 'next', `client ${next.version} --suite all`, 'client-next'));
      passes.push(await pass(next, 'next', `client ${next.version} --suite all --spec-version ${MODERN}`, 'client-next-2026', modern));
    }
  }
  if (runAuthorization) passes.push(await authorizationPass(next, node, seen.next));

  // Only a full run sees every entry's scenario.
  let staleEntries = 0;
  if (runServer && runClient) {
    if (runCurrent) staleEntries += unusedEntries(CURRENT.baseline, seen.current);
    if (runNext) staleEntries += unusedEntries(NEXT.baseline, seen.next);
  }
  const failed = passes.some((p) => p.failed) || staleEntries > 0;
  const total = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`\n${failed ? 'FAILED' : 'OK'}: total ${total}s (results in .conformance/)`);
  for (const p of passes) console.log(`  ${p.failed ? '✗' : '✓'} ${p.summary}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
