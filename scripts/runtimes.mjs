// The runtime matrix: the fetch handler (toFetchHandler, mcpkit/http) served by Node, Bun, Deno
// and workerd, each driven from this Node by the same checks (test/runtimes/checks.mjs); and
// stdio (test/runtimes/stdio/): the stdio server run by Bun and Deno, driven from this Node by
// mcpkit's stdio client, and that client run by Bun and Deno, spawning the server on this Node.
// workerd has no processes, hence no stdio. The HTTP checks run twice: against the fetch handler,
// and against the same servers in a Hono app through mcpkit/hono (under /hono). And the Express
// and Fastify examples run by each runtime but workerd (test/runtimes/frameworks.mjs).
//
//   npm run build && npm run test:runtimes [-- node bun deno workerd]
//
// Prints one line per runtime ("bun 1.4.5: 51/51 passed (http 14/14, hono 15/15, express+fastify
// 6/6, stdio server 8/8, stdio client 8/8)", "deno: skipped (...)") and exits 1 if any check
// failed. Each runtime's binary comes from the npm registry on first use, or from
// BUN_BIN, DENO_BIN, WORKERD_BIN (scripts/runtime-bins.mjs).
// DEBUG=1 shows each failure's stack and what the host printed.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { binaryOf, RUNTIMES, Skip, versionOf } from './runtime-bins.mjs';
import { workerdApp, workerdArgs, workerdPort } from './workerd.mjs';
import { stopChild } from './child.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HOSTS = join(root, 'test/runtimes/hosts');
const STDIO = join(root, 'test/runtimes/stdio');

/**
 * Checks known to fail on a runtime, with the reason: reported, not counted as a failure, and a
 * stale entry (the check passes now) fails the run so this list stays true.
 */
const KNOWN_FAILURES = {
  // e.g. workerd: { 'handshake: a plain JSON Schema input (ajv)': 'why' }. Empty: every check
  // passes everywhere. (workerd generates code only while a module loads, so the Worker host
  // builds its servers, the Durable Object's included, at the top level: see docs/runtimes.md.)
};

/** Starts a host; resolves with the child and its base URL once it listens. */
function startHost(name, bin, argv, env = process.env) {
  return new Promise((done, fail) => {
    const control = name === 'workerd';
    const child = spawn(bin, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe', ...(control ? ['pipe'] : [])] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${name} did not start listening within 60 s:\n${output}`));
    }, 60_000);
    const seen = (base) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      done({ child, base, output: () => output });
    };
    child.stdout.on('data', (c) => {
      output += c;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m && !control) seen(m[1]);
    });
    child.stderr.on('data', (c) => {
      output += c;
      // The examples say it on stderr.
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m && !control) seen(m[1]);
    });
    if (control) workerdPort(child, (port) => seen(`http://127.0.0.1:${port}`));
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited (${code}) before listening:\n${output}`));
    });
  });
}

/**
 * How to start each runtime: `argv` serves HTTP; `stdioServer` and `stdioClient` are the arguments
 * that run a script as a stdio server or client, `typescript` those that run an example (none of
 * them for workerd). Deno's are the least permissions that work: a stdio server needs none, the
 * client needs to run the server and to read the environment it passes on (`defaultEnvironment`).
 */
async function hostOf(name) {
  const script = (file) => [join(STDIO, file)];
  if (name === 'node') {
    return {
      label: `node ${process.versions.node}`,
      bin: process.execPath,
      argv: [join(HOSTS, 'node.mjs')],
      stdioServer: script('server.mjs'),
      typescript: ['--import', 'tsx'],
    };
  }
  const bin = binaryOf(name);
  const label = `${name} ${versionOf(bin)}`;
  if (name === 'bun') {
    return {
      label,
      bin,
      argv: ['run', join(HOSTS, 'bun.mjs')],
      stdioServer: ['run', ...script('server.mjs')],
      stdioClient: ['run', ...script('client.mjs')],
      typescript: ['run'],
    };
  }
  if (name === 'deno') {
    return {
      label,
      bin,
      argv: ['run', '--no-lock', '--allow-net=127.0.0.1', '--allow-read', '--allow-env', join(HOSTS, 'deno.mjs')],
      stdioServer: ['run', '--no-lock', ...script('server.mjs')],
      stdioClient: ['run', '--no-lock', '--allow-env', `--allow-run=${process.execPath}`, ...script('client.mjs')],
      // The examples import src/*.js, which exist as .ts: Deno maps them only with sloppy imports.
      typescript: ['run', '--no-lock', '--unstable-sloppy-imports', '--allow-net=127.0.0.1', '--allow-read', '--allow-env'],
    };
  }
  const config = await workerdApp({ name: 'workerd-app', entry: join(HOSTS, 'worker.mjs'), className: 'McpSessions' });
  return { label, bin, argv: workerdArgs(config) };
}

/** Each framework example run by the runtime, and the framework checks against it. */
async function frameworkChecksIn(name, host) {
  const passedNames = [];
  const failed = [];
  for (const framework of FRAMEWORKS) {
    const argv = [...host.typescript, join(root, `examples/${framework}-server.ts`), '0'];
    let running;
    try {
      running = await startHost(name, host.bin, argv, { ...process.env, MCP_API_KEYS: API_KEYS });
      for (const [check, fn] of Object.entries(FRAMEWORK_CHECKS)) {
        const label = `${framework}: ${check}`;
        try {
          await fn(running.base);
          passedNames.push(label);
        } catch (error) {
          failed.push({ name: label, error });
        }
      }
    } catch (error) {
      for (const check of Object.keys(FRAMEWORK_CHECKS)) failed.push({ name: `${framework}: ${check}`, error });
    } finally {
      if (running) await stopChild(running.child);
    }
  }
  return { passed: passedNames.length, passedNames, failed, total: FRAMEWORKS.length * Object.keys(FRAMEWORK_CHECKS).length };
}

/**
 * The stdio checks with the client in the runtime: it spawns the server on this Node and prints
 * its results as one JSON line. Resolves to the same shape as runStdioChecks.
 */
function stdioClientIn(name, bin, argv) {
  return new Promise((done, fail) => {
    const child = spawn(bin, [...argv, process.execPath], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = out
        .trim()
        .split('\n')
        .findLast((l) => l.startsWith('{'));
      if (!line) return fail(new Error(`the stdio client on ${name} ended (${signal ?? code}) without results:\n${(out + err).slice(-2000)}`));
      const r = JSON.parse(line);
      const failed = r.failed.map((f) => ({ name: f.name, error: Object.assign(new Error(f.message), { stack: f.stack }) }));
      done({ passed: r.passed, total: r.total, passedNames: r.passedNames, failed, output: err });
    });
  });
}

if (!existsSync(join(root, 'dist/entries/http.js'))) {
  console.error('test:runtimes serves dist/: run `npm run build` first');
  process.exit(1);
}
const { HONO_CHECKS, runChecks } = await import(pathToFileURL(join(root, 'test/runtimes/checks.mjs')).href);
const { runStdioChecks } = await import(pathToFileURL(join(STDIO, 'checks.mjs')).href);
const { API_KEYS, FRAMEWORK_CHECKS, FRAMEWORKS } = await import(pathToFileURL(join(root, 'test/runtimes/frameworks.mjs')).href);
const asked = process.argv.slice(2);
const names = asked.length ? asked : ['node', 'bun', 'deno', 'workerd'];
for (const n of names) {
  if (n !== 'node' && !RUNTIMES[n]) {
    console.error(`unknown runtime ${n}: one of node, ${Object.keys(RUNTIMES).join(', ')}`);
    process.exit(1);
  }
}
const verbose = process.env.DEBUG === '1';
let failures = 0;
for (const name of names) {
  const started = performance.now();
  let host;
  try {
    host = await hostOf(name);
  } catch (e) {
    if (e instanceof Skip) {
      console.log(`${name}: skipped (${e.message})`);
      continue;
    }
    failures++;
    console.log(`${name}: failed to set up: ${e.message}`);
    continue;
  }
  let running;
  try {
    running = await startHost(name, host.bin, host.argv);
    // Parts of the line: [label, result, known failures]; the HTTP checks first.
    const parts = [['http', await runChecks(running.base), KNOWN_FAILURES[name] ?? {}]];
    // The same checks through a Hono app and mcpkit/hono, served by the same host under /hono.
    parts.push(['hono', await runChecks(`${running.base}/hono`, { extra: HONO_CHECKS }), KNOWN_FAILURES[name] ?? {}]);
    await stopChild(running.child);
    const httpOutput = running.output();
    running = undefined;
    if (host.typescript) parts.push(['express+fastify', await frameworkChecksIn(name, host), {}]);
    if (host.stdioServer) {
      const target = (extra = []) => ({ command: host.bin, args: [...host.stdioServer, ...extra], stderr: 'ignore' });
      parts.push([host.stdioClient ? 'stdio server' : 'stdio', await runStdioChecks(target, name), {}]);
    }
    if (host.stdioClient) parts.push(['stdio client', await stdioClientIn(name, host.bin, host.stdioClient), {}]);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    let passed = 0;
    let total = 0;
    let knownCount = 0;
    const lines = [];
    let bad = false;
    for (const [, r, known] of parts) {
      passed += r.passed;
      total += r.total;
      const unexpected = r.failed.filter((f) => !(f.name in known));
      const stale = r.passedNames.filter((n) => n in known);
      knownCount += r.failed.length - unexpected.length;
      if (unexpected.length || stale.length) bad = true;
      for (const f of r.failed) {
        const why = f.name in known ? `known: ${known[f.name]}` : verbose ? f.error.stack : String(f.error.message).split('\n')[0];
        lines.push(`  ${f.name in known ? '-' : '✗'} ${f.name}: ${why}`);
      }
      for (const n of stale) lines.push(`  ✗ ${n}: passes now; remove it from KNOWN_FAILURES in scripts/runtimes.mjs`);
    }
    // A check can pass while the host logs a crash elsewhere (a stream closed from the wrong context).
    const crashes = httpOutput.match(/uncaught|unhandled/gi)?.length ?? 0;
    if (crashes) bad = true;
    const notes = [knownCount ? `${knownCount} known failure(s)` : '', crashes ? `the host logged ${crashes} uncaught error(s)` : ''].filter(Boolean);
    const split = parts.map(([label, r]) => `${label} ${r.passed}/${r.total}`).join(', ');
    const noStdio = host.stdioServer ? '' : '; not here: stdio (no processes), Express and Fastify (Node servers)';
    console.log(`${host.label}: ${passed}/${total} passed (${split}${noStdio})${notes.length ? `, ${notes.join(', ')}` : ''} (${secs} s)`);
    for (const l of lines) console.log(l);
    if (bad) failures++;
    if (verbose && httpOutput.trim()) console.log(httpOutput.replace(/^/gm, `  ${name}| `));
  } catch (e) {
    failures++;
    console.log(`${host.label}: failed: ${e.message.split('\n').slice(0, 6).join('\n  ')}`);
  } finally {
    if (running) await stopChild(running.child);
  }
}
process.exit(failures ? 1 : 0);
