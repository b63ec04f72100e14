// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against mcpkit, in
// two harness versions side by side:
//
//   current (0.1.16, the `@modelcontextprotocol/conformance` dev dependency; handshake era):
//     1. the server suite (`--suite all`) against conformance/server.ts;
//     2. the client scenarios, auth included, one by one, against conformance/client.ts.
//     Baseline: conformance/expected-failures.yml.
//   next (0.2.0-alpha, the `conformance-next` alias dev dependency; adds the 2026-07-28 era):
//     3. the server suite `--suite all` (2025-11-25 wire where a scenario applies there, the
//        draft-only scenarios on the stateless 2026-07-28 wire, plus the extensions);
//     4. the server suite `--suite all --spec-version 2026-07-28` (the carried-forward scenarios
//        too, on the 2026-07-28 wire);
//     5. the 2026-07-28 client scenarios, auth included, one by one, against conformance/client.ts;
//     6. the extension scenarios (auth: client credentials, enterprise-managed authorization,
//        DPoP, workload identity; skills: sep-2640-client-*), one by one.
//     Baseline: conformance/expected-failures.next.yml.
// One conformance/server.ts process serves every server pass (both eras on the same /mcp).
// Each pass is checked against its baseline (the harness's baseline mode): the run fails on any
// unexpected failure and on any stale baseline entry.
//
//   npm run conformance [-- [--server-only | --client-only] [--current-only | --next-only]]
//
// The CLI needs Node >= 22: $CONFORMANCE_NODE, this node when it is new enough, or the npm
// registry's build fetched once into .cache/node22 (see node22()). mcpkit itself (server and client)
// runs on the node that runs this script. Full harness output goes to .conformance/*.log and
// the per-check results to .conformance/<pass>/.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const OUT = join(root, '.conformance');
const CURRENT = { pkg: '@modelcontextprotocol/conformance', baseline: 'conformance/expected-failures.yml' };
const NEXT = { pkg: 'conformance-next', baseline: 'conformance/expected-failures.next.yml' };
const MODERN = '2026-07-28';
const CLIENT_SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];
/** The non-auth client scenarios of the next suite that apply at 2026-07-28. */
const NEXT_CLIENT_SCENARIOS = [
  'tools_call',
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
];
/** The auth scenarios both suites share (conformance.md §b.2): OAuth discovery, registration, grants, scopes. */
const SHARED_AUTH = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
];
/** The current suite's auth scenarios: the shared ones, the 2025-03-26 fallbacks and its extensions. */
const CLIENT_AUTH = [
  ...SHARED_AUTH,
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/cross-app-access-complete-flow',
];
/** The next suite's auth scenarios that apply at 2026-07-28 (run with that --spec-version). */
const NEXT_CLIENT_AUTH = [
  ...SHARED_AUTH,
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
];
/** The next suite's auth extensions (no --spec-version: extension scenarios never match one). */
const NEXT_CLIENT_AUTH_EXTENSIONS = [
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/enterprise-managed-authorization',
  'auth/dpop',
  'auth/dpop-nonce',
  'auth/wif-jwt-bearer',
];
/** The next suite's skills client scenarios (an extension: no --spec-version either). */
const NEXT_CLIENT_SKILLS = [
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];
const CLIENT_COMMAND = 'npm run --silent conformance:client --';

const args = new Set(process.argv.slice(2));
const runServer = !args.has('--client-only');
const runClient = !args.has('--server-only');
const runCurrent = !args.has('--next-only');
const runNext = !args.has('--current-only');

/**
 * A Node >= 22 for the conformance CLI, called by path (never shadowing `node`): CONFORMANCE_NODE,
 * this Node if it is new enough, or the official build from the npm registry (node-<os>-<arch>@22),
 * fetched once into .cache/node22. Not a dev dependency: `npm ci` must work on every platform
 * Node 20 runs on, and a Node binary in node_modules/.bin would shadow `node` in npm scripts.
 */
function node22() {
  if (process.env.CONFORMANCE_NODE) return process.env.CONFORMANCE_NODE;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform];
  if (!os) throw new Error(`The conformance CLI needs Node >= 22: set CONFORMANCE_NODE to one (no npm build for ${process.platform})`);
  const pkg = `node-${os}-${process.arch}`;
  const dir = join(root, '.cache/node22');
  const bin = join(dir, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (!existsSync(bin)) {
    console.log(`fetching ${pkg}@22 into .cache/node22 (the conformance CLI needs Node >= 22)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${pkg}@22`], { stdio: 'inherit' });
    if (r.status !== 0 || !existsSync(bin))
      throw new Error(`The conformance CLI needs Node >= 22: fetching ${pkg}@22 failed; set CONFORMANCE_NODE to a Node 22 binary`);
  }
  return bin;
}

function conformanceCli(pkgName) {
  const pkgPath = require.resolve(`${pkgName}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.conformance;
  return { path: join(dirname(pkgPath), bin), version: pkg.version };
}

/** Runs a command to completion, its output appended to `logFile`. */
function run(cmd, argv, logFile) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', fail);
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString('utf8');
      writeFileSync(logFile, `$ ${[cmd, ...argv].join(' ')}\n${output}`, { flag: 'a' });
      done({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** Starts conformance/server.ts on a free port; resolves once it prints its URL. */
function startServer(logFile) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/server.ts', '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(new Error(`conformance server did not start within 60 s:\n${seen}`));
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
      fail(new Error(`conformance server exited with code ${code} before listening:\n${seen}`));
    });
  });
}

function stopServer(child) {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
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

/** The harness's baseline rule: FAILURE or WARNING fails a scenario. */
function verdict(checks) {
  if (!checks) return { ok: false, label: 'NO RESULT', problems: [] };
  const problems = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const passed = checks.filter((c) => c.status === 'SUCCESS').length;
  // A scenario whose checks were all skipped "passes" without testing anything: say so.
  const skipped = checks.filter((c) => c.status === 'SKIPPED').length;
  const ok = `${passed} ok${skipped && !passed ? `, ${skipped} skipped` : ''}`;
  return { ok: problems.length === 0, label: problems.length === 0 ? `pass (${ok})` : `FAIL (${ok}, ${problems.length} bad)`, problems };
}

function baselineList(file, kind) {
  // Tiny reader for the `server:` / `client:` lists (the harness itself parses it as YAML).
  const text = readFileSync(join(root, file), 'utf8');
  const out = [];
  let current;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd();
    const head = /^(\w+):\s*(\[.*\])?$/.exec(line);
    if (head) {
      current = head[1];
      if (head[2] && current === kind) out.push(...JSON.parse(head[2].replace(/'/g, '"')));
      continue;
    }
    const item = /^\s*-\s*['"]?([^'"]+)['"]?$/.exec(line);
    if (item && current === kind) out.push(item[1].trim());
  }
  return out;
}

function report(title, names, results, expected, baseline) {
  let unexpected = 0;
  let stale = 0;
  console.log(`\n${title}:`);
  for (const name of names) {
    const v = verdict(results.get(name));
    const isExpected = expected.includes(name);
    let note = '';
    if (!v.ok && isExpected) note = '  (expected failure)';
    else if (!v.ok) {
      note = '  <- UNEXPECTED';
      unexpected++;
    } else if (isExpected) {
      note = `  <- STALE baseline entry: remove it from ${baseline}`;
      stale++;
    }
    console.log(`  ${v.ok ? '✓' : '✗'} ${name.padEnd(48)} ${v.label}${note}`);
    // Expected failures are summed up, not itemised (their checks are in the -o directory).
    if (!isExpected || v.ok) for (const c of v.problems) console.log(`      ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  }
  return { unexpected, stale };
}

function listServerScenarios(output) {
  const names = [];
  for (const line of output.split('\n')) {
    const m = /^\s+- (\S+)/.exec(line);
    if (m) names.push(m[1]);
  }
  return names;
}

/**
 * One `conformance server` pass against a running server. Scenario names come from the CLI's
 * own listing for the same filter, plus anything that produced results.
 */
async function serverPass({ cli, node, target, title, baseline, filter = [], out, log }) {
  const t0 = performance.now();
  const res = await run(node, [cli.path, 'server', '--url', target, '--suite', 'all', ...filter, '--expected-failures', baseline, '-o', out], log);
  const listed = await run(node, [cli.path, 'list', '--server', ...filter], `${log.replace(/\.log$/, '')}-list.log`);
  const names = listServerScenarios(listed.output);
  const results = readResults(out, 'server-');
  for (const n of results.keys()) if (!names.includes(n)) names.push(n);
  const expected = baselineList(baseline, 'server');
  const r = report(title, names, results, expected, baseline);
  const passed = names.filter((n) => verdict(results.get(n)).ok).length;
  const xfail = names.filter((n) => !verdict(results.get(n)).ok && expected.includes(n)).length;
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  const failed = res.code !== 0 || r.unexpected > 0 || r.stale > 0;
  if (failed) console.log(`  harness exit code ${res.code}; full output: ${log}`);
  return { failed, summary: `${title} ${passed}/${names.length}${xfail ? ` (+${xfail} expected failures)` : ''} in ${secs}s` };
}

/** Client scenarios, one harness run each (a scenario's mock server lives as long as its run). */
async function clientPass({ cli, node, title, baseline, scenarios, filter = [], out, log }) {
  const t0 = performance.now();
  const expected = baselineList(baseline, 'client');
  const codes = new Map();
  for (const scenario of scenarios) {
    const res = await run(
      node,
      [cli.path, 'client', '--command', CLIENT_COMMAND, '--scenario', scenario, ...filter, '--expected-failures', baseline, '-o', out],
      log,
    );
    codes.set(scenario, res.code);
  }
  const results = readResults(out, '');
  const r = report(title, scenarios, results, expected, baseline);
  const passed = scenarios.filter((n) => verdict(results.get(n)).ok).length;
  const xfail = scenarios.filter((n) => !verdict(results.get(n)).ok && expected.includes(n)).length;
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  const bad = [...codes].filter(([, c]) => c !== 0).map(([s]) => s);
  if (bad.length) console.log(`  harness exit code non-zero for: ${bad.join(', ')}; full output: ${log}`);
  const failed = bad.length > 0 || r.unexpected > 0 || r.stale > 0;
  return { failed, summary: `${title} ${passed}/${scenarios.length}${xfail ? ` (+${xfail} expected failures)` : ''} in ${secs}s` };
}

async function main() {
  const started = performance.now();
  const node = node22();
  const current = conformanceCli(CURRENT.pkg);
  const next = conformanceCli(NEXT.pkg);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const used = [runCurrent && `${current.version} (current)`, runNext && `${next.version} (next)`].filter(Boolean).join(' and ');
  console.log(`MCP conformance suite ${used} (CLI on ${node}), mcpkit on node ${process.version}`);
  const passes = [];

  if (runServer) {
    const { child, url } = await startServer(join(OUT, 'server-process.log'));
    const target = `http://localhost:${new URL(url).port}/mcp`;
    console.log(`server suites against ${target} ...`);
    try {
      if (runCurrent) {
        passes.push(
          await serverPass({
            cli: current,
            node,
            target,
            title: `server ${current.version} --suite all`,
            baseline: CURRENT.baseline,
            out: join(OUT, 'server'),
            log: join(OUT, 'server.log'),
          }),
        );
      }
      if (runNext) {
        passes.push(
          await serverPass({
            cli: next,
            node,
            target,
            title: `server ${next.version} --suite all`,
            baseline: NEXT.baseline,
            out: join(OUT, 'server-next'),
            log: join(OUT, 'server-next.log'),
          }),
        );
        passes.push(
          await serverPass({
            cli: next,
            node,
            target,
            title: `server ${next.version} --suite all --spec-version ${MODERN}`,
            baseline: NEXT.baseline,
            filter: ['--spec-version', MODERN],
            out: join(OUT, 'server-next-2026'),
            log: join(OUT, 'server-next-2026.log'),
          }),
        );
      }
    } finally {
      await stopServer(child);
    }
  }

  if (runClient) {
    if (runCurrent) {
      passes.push(
        await clientPass({
          cli: current,
          node,
          title: `client ${current.version}`,
          baseline: CURRENT.baseline,
          scenarios: [...CLIENT_SCENARIOS, ...CLIENT_AUTH],
          out: join(OUT, 'client'),
          log: join(OUT, 'client.log'),
        }),
      );
    }
    if (runNext) {
      passes.push(
        await clientPass({
          cli: next,
          node,
          title: `client ${next.version} --spec-version ${MODERN}`,
          baseline: NEXT.baseline,
          scenarios: [...NEXT_CLIENT_SCENARIOS, ...NEXT_CLIENT_AUTH],
          filter: ['--spec-version', MODERN],
          out: join(OUT, 'client-next-2026'),
          log: join(OUT, 'client-next-2026.log'),
        }),
      );
      passes.push(
        await clientPass({
          cli: next,
          node,
          title: `client ${next.version} extensions (auth, skills)`,
          baseline: NEXT.baseline,
          scenarios: [...NEXT_CLIENT_AUTH_EXTENSIONS, ...NEXT_CLIENT_SKILLS],
          out: join(OUT, 'client-next-ext'),
          log: join(OUT, 'client-next-ext.log'),
        }),
      );
    }
  }

  const failed = passes.some((p) => p.failed);
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
