#!/usr/bin/env node
// mcpkit's side-by-side benchmark suite (issue 6). `npm run bench` (full) or
// `npm run bench -- --quick` (under 3 minutes). See bench/README.md for what is measured how.
//
//   --quick              fewer and shorter runs, smaller memory counts
//   --only=a,b           scenarios: json,sse,stateful,tools50,modern,stdio,memory,micro,redis,redis-sse,retrieval
//   --runs=N --duration=S --warmup=S --connections=N   override the mode's settings
//   --profile            profile mcpkit's (and bare's) stateless JSON path instead (node --cpu-prof)
//   --no-build           use dist/ as it is
//   --out=NAME           results file name (default: latest for the full suite, quick with --quick,
//                        partial with --only)
//   --impls=a,b          HTTP servers to run (default: all of the scenario's), e.g. bare,mcpkit
//   --base=DIR           also run mcpkit built in DIR (its dist/) as "mcpkit-base", in alternation:
//                        an A/B of two mcpkit versions in one run (HTTP scenarios)
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);

// Like `npm test`, measure on the Node that runs npm, the machine's, even if a package puts another
// `node` on the PATH of npm scripts (BENCH_NODE=/path/to/node picks another). Every server child
// uses the same binary.
const wanted = process.env.BENCH_NODE || process.env.npm_node_execpath;
if (wanted && wanted !== process.execPath && !process.env.BENCH_REEXEC) {
  const r = spawnSync(wanted, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, BENCH_REEXEC: '1' } });
  process.exit(r.status ?? 1);
}

// ------------------------------------------------------------------------------ options
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const value = (name) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = flag('quick');
const ALL = ['json', 'sse', 'stateful', 'tools50', 'modern', 'stdio', 'memory', 'micro', 'redis', 'redis-sse', 'retrieval'];
const only = value('only')?.split(',');
for (const s of only ?? []) if (!ALL.includes(s)) throw new Error(`unknown scenario ${s} (known: ${ALL.join(', ')})`);
const settings = {
  mode: quick ? 'quick' : 'full',
  runs: Number(value('runs') ?? (quick ? 2 : 3)),
  duration: Number(value('duration') ?? (quick ? 1.25 : 10)),
  warmup: Number(value('warmup') ?? (quick ? 1.25 : 8)),
  warmupRequests: quick ? 12_000 : 40_000,
  connections: Number(value('connections') ?? 128),
  sessions: 64,
  stdioInflight: 32,
  stdioWarmup: quick ? 0.3 : 2,
  stdioDuration: quick ? 0.5 : Number(value('duration') ?? 5),
  memoryCounts: quick ? [1_000, 3_000] : [1_000, 10_000, 100_000],
  // Peers whose projected RSS or creation time exceed these are extrapolated, not run.
  memoryCapBytes: 3 * 2 ** 30,
  memoryCapSeconds: quick ? 10 : 240,
};

// The children inherit it: servers/http.mjs loads `mcpkit-base` from there.
if (value('base')) process.env.MCPKIT_BASE = value('base');

// ------------------------------------------------------------------------------- build
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}
let buildNote = 'dist/ built from the current src/';
if (!flag('no-build')) {
  const distIndex = join(root, 'dist/entries/index.js');
  const stale = !existsSync(distIndex) || newest(join(root, 'src')) > statSync(distIndex).mtimeMs;
  if (stale) {
    console.log('dist/ is missing or older than src/: building...');
    const r = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
    // As `npm run build` does: the CLI entry stays executable.
    if (r.status === 0 && existsSync(join(root, 'dist/cli/main.js'))) chmodSync(join(root, 'dist/cli/main.js'), 0o755);
    if (r.status !== 0) {
      if (!existsSync(distIndex)) throw new Error('build failed and there is no dist/');
      buildNote = 'WARNING: the build failed; measured the previous dist/, which may be stale';
      console.warn(buildNote);
    }
  }
} else buildNote = 'dist/ used as it was (--no-build)';

// Imported after the build: the servers load mcpkit from dist/ through the package's exports.
const { startChild, procStats, childPids } = await import('./lib/child.mjs');
const { load } = await import('./lib/load.mjs');
const R = await import('./lib/requests.mjs');
const { LineDriver, closedLoop } = await import('./lib/stdio-driver.mjs');
const { createSessions, deleteSessions } = await import('./lib/sessions.mjs');
const { renderMarkdown, aggregate } = await import('./lib/report.mjs');
const { machine, busyShare } = await import('./lib/machine.mjs');

const HTTP_SERVER = join(here, 'servers/http.mjs');
const STDIO_SERVER = join(here, 'servers/stdio.mjs');
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

if (flag('profile')) {
  const { profile } = await import('./profile.mjs');
  await profile({ quick, root, log });
  process.exit(0);
}

// ---------------------------------------------------------------------- HTTP scenarios
const HTTP_SCENARIOS = {
  json: {
    title: '1. Stateless tools/call, JSON responses',
    impls: ['bare', 'mcpkit', 'sdk1', 'sdk2'],
    mode: 'json',
    body: R.ECHO_CALL,
    headers: R.headers(),
  },
  sse: {
    title: '2. Stateless tools/call, SSE responses',
    impls: ['bare', 'mcpkit', 'sdk1', 'sdk2'],
    mode: 'sse',
    body: R.ECHO_CALL,
    headers: R.headers(),
  },
  stateful: {
    title: `3. Stateful: load spread over ${settings.sessions} pre-initialized sessions, JSON responses`,
    impls: ['bare', 'mcpkit', 'sdk1', 'sdk2'],
    mode: 'stateful',
    body: R.ECHO_CALL_UNIQUE,
    headers: R.headers(),
    sessions: settings.sessions,
  },
  redis: {
    title: `9. Stateful with --redis vs in memory: load spread over ${settings.sessions} sessions, JSON responses`,
    impls: ['bare', 'mcpkit-mem', 'mcpkit-redis'],
    mode: 'stateful',
    body: R.ECHO_CALL_UNIQUE,
    headers: R.headers(),
    sessions: settings.sessions,
  },
  'redis-sse': {
    title: `10. Stateful with --redis vs in memory, SSE responses (every event stored: in memory, or XADD in Redis)`,
    impls: ['bare', 'mcpkit-mem', 'mcpkit-redis'],
    mode: 'stateful-sse',
    body: R.ECHO_CALL_UNIQUE,
    headers: R.headers(),
    sessions: settings.sessions,
  },
  tools50: {
    title: '4. Stateless with 50 registered tools (realistic schemas, 5-8 fields), JSON responses',
    impls: ['bare', 'mcpkit', 'sdk1', 'sdk2'],
    mode: 'tools50',
    body: R.TOOLS50_CALL,
    headers: R.headers(),
  },
  modern: {
    title: '7. 2026-07-28 era: stateless POST with routing headers and the _meta envelope, JSON responses',
    impls: ['bare', 'mcpkit', 'sdk2-handler'],
    mode: 'modern',
    body: R.MODERN_CALL,
    headers: R.MODERN_HEADERS,
  },
};

/**
 * JIT warm-up counts in requests, not seconds: 1-second chunks until `warmupRequests` are done
 * or `warmup` seconds have passed (slow servers stop at the time limit).
 */
async function warmUp(run) {
  let done = 0;
  const until = performance.now() + settings.warmup * 1000;
  for (let left = until - performance.now(); done < settings.warmupRequests && left > 250; left = until - performance.now()) {
    done += (await run(Math.min(1, left / 1000))).ok;
  }
  return done;
}

/**
 * Waits until a server has finished the work a load test left behind (requests it read before
 * the load generator hung up keep running): its CPU use below 5 % over 100 ms, or 2 s at most.
 * Without this the next server's run shares the CPU with the previous server's backlog.
 */
async function settle(c) {
  let prev = await c.stats();
  const until = performance.now() + 2000;
  while (performance.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    const cur = await c.stats();
    const busyUs = cur.cpuUser + cur.cpuSystem - prev.cpuUser - prev.cpuSystem;
    if (busyUs < 5_000) return;
    prev = cur;
  }
}

async function preflight(impl, port, sc, sessionIds) {
  const h = { ...sc.headers };
  if (sessionIds) h['mcp-session-id'] = sessionIds[0];
  const body = sc.body.replace('"[<id>]"', '"preflight"');
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: h, body });
  const text = await res.text();
  const msg = res.ok ? R.parseResponse(text, res.headers.get('content-type')) : undefined;
  const got = msg?.result?.content?.[0]?.text;
  const want = R.expectedText(body);
  if (got !== want) throw new Error(`${impl} answered ${res.status} ${text.slice(0, 300)}`);
  const ct = res.headers.get('content-type') ?? '';
  return ct.split(';')[0];
}

async function httpScenario(key) {
  const sc = { ...HTTP_SCENARIOS[key] };
  const pick = value('impls')?.split(',');
  if (pick) sc.impls = sc.impls.filter((i) => pick.includes(i));
  if (value('base')) sc.impls = sc.impls.flatMap((i) => (i === 'mcpkit' ? ['mcpkit', 'mcpkit-base'] : [i]));
  log(`scenario ${key}: ${sc.title}`);
  // Started together (start-up is mostly module loading); idle servers cost nothing.
  const servers = await Promise.all(
    sc.impls.map(async (impl) => {
      let c;
      try {
        c = await startChild(HTTP_SERVER, [impl, sc.mode]);
        let sessionIds;
        if (sc.sessions) {
          const made = await createSessions(c.port, sc.sessions, 16);
          if (made.failures) throw new Error(`${made.failures} of ${sc.sessions} sessions failed to initialize`);
          sessionIds = made.ids;
        }
        const contentType = await preflight(impl, c.port, sc, sessionIds);
        return { impl, c, sessionIds, contentType };
      } catch (err) {
        log(`  ${impl}: not measured: ${err.message}`);
        await c?.stop();
        return { impl, failed: err.message };
      }
    }),
  );
  const live = servers.filter((s) => !s.failed);
  const loadOpts = (s, duration) => {
    const o = { port: s.c.port, connections: settings.connections, duration, body: sc.body, headers: sc.headers };
    if (s.sessionIds) {
      o.idReplacement = true;
      o.requests = s.sessionIds.map((sid) => ({ method: 'POST', path: '/mcp', headers: { ...sc.headers, 'mcp-session-id': sid }, body: sc.body }));
    }
    return o;
  };
  for (const s of live) {
    await warmUp((d) => load(loadOpts(s, d)));
    await settle(s.c);
  }
  const runs = Object.fromEntries(sc.impls.map((i) => [i, []]));
  for (let r = 0; r < settings.runs; r++) {
    for (const s of live) {
      const before = await s.c.resetPeak();
      const lg0 = process.cpuUsage();
      const res = await load(loadOpts(s, settings.duration));
      const lg = process.cpuUsage(lg0);
      const after = await s.c.stats();
      await settle(s.c);
      const cpu = after.cpuUser + after.cpuSystem - before.cpuUser - before.cpuSystem;
      const sys = after.cpuSystem - before.cpuSystem;
      runs[s.impl].push({
        ...res,
        cpuPerReq: res.ok ? cpu / res.ok : NaN,
        sysPerReq: res.ok ? sys / res.ok : NaN,
        peakRss: after.peakRss,
        loadgenCpuPerReq: res.ok ? (lg.user + lg.system) / res.ok : NaN,
      });
      log(
        `  run ${r + 1}/${settings.runs} ${s.impl.padEnd(12)} ${res.rps.toFixed(0).padStart(6)} req/s  p50 ${res.p50} ms  p99 ${res.p99} ms  cpu ${(cpu / res.ok).toFixed(0)} µs/req (sys ${(sys / res.ok).toFixed(0)})  loadgen ${((lg.user + lg.system) / res.ok).toFixed(0)} µs/req${res.non2xx || res.errors || res.timeouts ? `  non2xx ${res.non2xx} errors ${res.errors} timeouts ${res.timeouts}` : ''}`,
      );
    }
  }
  for (const s of live) await s.c.stop();
  return {
    key,
    title: sc.title,
    kind: 'http',
    impls: servers.map((s) => ({
      impl: s.impl,
      failed: s.failed,
      contentType: s.contentType,
      ...(s.failed ? {} : aggregate(runs[s.impl])),
      runs: runs[s.impl],
    })),
  };
}

// ---------------------------------------------------------------------------- stdio
async function stdioScenario() {
  log('scenario stdio: round trips over stdio');
  const impls = ['bare', 'mcpkit', 'sdk1', 'sdk2'];
  const servers = await Promise.all(
    impls.map(async (impl) => {
      const c = await startChild(STDIO_SERVER, [impl], { stdio: ['pipe', 'pipe', 'inherit', 'ipc'] });
      const d = new LineDriver(c.child);
      await d.initialize();
      return { impl, c, d };
    }),
  );
  const modes = [
    { key: 'seq', title: 'sequential (1 in flight)', inflight: 1 },
    { key: 'inflight', title: `${settings.stdioInflight} in flight`, inflight: settings.stdioInflight },
  ];
  for (const s of servers) for (const m of modes) await s.d.run({ inflight: m.inflight, seconds: settings.stdioWarmup });
  const runs = {};
  for (let r = 0; r < settings.runs; r++) {
    for (const m of modes) {
      for (const s of servers) {
        const before = await s.c.resetPeak();
        const res = await s.d.run({ inflight: m.inflight, seconds: settings.stdioDuration });
        const after = await s.c.stats();
        const cpu = after.cpuUser + after.cpuSystem - before.cpuUser - before.cpuSystem;
        (runs[`${m.key}:${s.impl}`] ??= []).push({ ...res, cpuPerReq: cpu / res.ok, peakRss: after.peakRss });
        log(
          `  run ${r + 1}/${settings.runs} ${m.key.padEnd(8)} ${s.impl.padEnd(7)} ${res.rps.toFixed(0).padStart(6)} calls/s  p50 ${res.p50.toFixed(3)} ms  p99 ${res.p99.toFixed(3)} ms  server cpu ${(cpu / res.ok).toFixed(1)} µs/call`,
        );
      }
    }
  }
  for (const s of servers) await s.c.stop();

  // Each library's own client against its own server: what an application sees.
  const native = await stdioNative(modes);
  return {
    key: 'stdio',
    title: '5. stdio round trips (tools/call echo)',
    kind: 'stdio',
    tables: [
      ...modes.map((m) => ({
        title: `raw line driver (the same client for every server), ${m.title}`,
        impls: impls.map((i) => ({ impl: i, ...aggregate(runs[`${m.key}:${i}`]), runs: runs[`${m.key}:${i}`] })),
      })),
      ...native,
    ],
  };
}

async function stdioNative(modes) {
  const { connect } = await import('mcpkit/stdio');
  const ownClient = async (era) => {
    const before = new Set(childPids());
    const client = await connect({ command: process.execPath, args: [STDIO_SERVER, 'mcpkit'], stderr: 'inherit' }, { era });
    const pid = childPids().find((p) => !before.has(p));
    return { pid, call: () => client.callTool('echo', { message: 'hello' }), close: () => client.close() };
  };
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const clients = {
    // The default client negotiates 2026-07-28 (bigger messages: the envelope on every request,
    // serverInfo on every result); pinned to the handshake era it speaks what v1 speaks.
    mcpkit: async () => ownClient('auto'),
    'mcpkit-hs': async () => ownClient('handshake'),
    sdk1: async () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [STDIO_SERVER, 'sdk1'], stderr: 'inherit' });
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(transport);
      return { pid: transport.pid, call: () => client.callTool({ name: 'echo', arguments: { message: 'hello' } }), close: () => client.close() };
    },
  };
  const live = [];
  for (const [impl, open] of Object.entries(clients)) {
    const c = await open();
    const r = await c.call();
    if (r.content?.[0]?.text !== 'hello') throw new Error(`${impl} client: bad answer ${JSON.stringify(r)}`);
    live.push({ impl, ...c });
  }
  for (const c of live) for (const m of modes) await closedLoop(c.call, { inflight: m.inflight, seconds: settings.stdioWarmup });
  const runs = {};
  for (let r = 0; r < settings.runs; r++) {
    for (const m of modes) {
      for (const c of live) {
        const s0 = c.pid ? procStats(c.pid) : undefined;
        const cl0 = process.cpuUsage();
        const res = await closedLoop(c.call, { inflight: m.inflight, seconds: settings.stdioDuration });
        const cl = process.cpuUsage(cl0);
        const s1 = c.pid ? procStats(c.pid) : undefined;
        const row = { ...res, clientCpuPerReq: (cl.user + cl.system) / res.ok };
        if (s0 && s1) Object.assign(row, { cpuPerReq: (s1.cpuUs - s0.cpuUs) / res.ok, peakRss: s1.peakRss });
        (runs[`${m.key}:${c.impl}`] ??= []).push(row);
        log(
          `  run ${r + 1}/${settings.runs} native ${m.key.padEnd(8)} ${c.impl.padEnd(7)} ${res.rps.toFixed(0).padStart(6)} calls/s  p50 ${res.p50.toFixed(3)} ms  p99 ${res.p99.toFixed(3)} ms  client cpu ${row.clientCpuPerReq.toFixed(1)} µs/call`,
        );
      }
    }
  }
  for (const c of live) await c.close();
  return modes.map((m) => ({
    title: `each library's own client and server (mcpkit connect(), default and pinned to the handshake era, vs the SDK v1 Client + StdioClientTransport), ${m.title}`,
    native: true,
    impls: live.map((c) => ({ impl: c.impl, ...aggregate(runs[`${m.key}:${c.impl}`]), runs: runs[`${m.key}:${c.impl}`] })),
  }));
}

// ---------------------------------------------------------------------------- memory
async function memoryScenario() {
  log(`scenario memory: idle stateful sessions (${settings.memoryCounts.join(', ')})`);
  const impls = ['bare', 'mcpkit', 'sdk1', 'sdk2'];
  const out = [];
  for (const impl of impls) {
    const c = await startChild(HTTP_SERVER, [impl, 'stateful'], { execArgv: ['--max-old-space-size=8192'] });
    // Warm the code paths (JIT, lazy modules), then measure the baseline.
    const warm = await createSessions(c.port, quick ? 100 : 500, 64);
    await deleteSessions(c.port, warm.ids, 64);
    const base = await c.gc();
    const row = { impl, baseline: { rss: base.rss, heapUsed: base.heapUsed }, points: [] };
    const ids = [];
    let createdSeconds = 0;
    for (const target of settings.memoryCounts) {
      const last = row.points.at(-1);
      if (last && impl !== 'mcpkit' && impl !== 'bare') {
        const projBytes = base.rss + last.rssPerSession * target;
        const projSeconds = (last.seconds / last.count) * target;
        if (projBytes > settings.memoryCapBytes || projSeconds > settings.memoryCapSeconds) {
          row.points.push({ count: target, skipped: true, projectedRss: projBytes, projectedSeconds: projSeconds });
          log(
            `  ${impl.padEnd(7)} ${String(target).padStart(6)} sessions: skipped (projected ${(projBytes / 2 ** 30).toFixed(2)} GiB, ${projSeconds.toFixed(0)} s to create)`,
          );
          continue;
        }
      }
      const made = await createSessions(c.port, target - ids.length, 64);
      ids.push(...made.ids);
      createdSeconds += made.seconds;
      const s = await c.gc();
      const point = {
        count: ids.length,
        seconds: createdSeconds,
        perSecond: made.ids.length / made.seconds,
        rss: s.rss,
        heapUsed: s.heapUsed,
        peakRss: s.peakRss,
        rssPerSession: (s.rss - base.rss) / ids.length,
        heapPerSession: (s.heapUsed - base.heapUsed) / ids.length,
        failures: made.failures,
      };
      row.points.push(point);
      log(
        `  ${impl.padEnd(7)} ${String(ids.length).padStart(6)} sessions: ${(point.rssPerSession / 1024).toFixed(2)} KiB RSS/session, ${(point.heapPerSession / 1024).toFixed(2)} KiB heap/session, created at ${point.perSecond.toFixed(0)}/s, RSS ${(s.rss / 2 ** 20).toFixed(0)} MiB${made.failures ? `, ${made.failures} failures` : ''}`,
      );
    }
    const del = await deleteSessions(c.port, ids, 64);
    const after = await c.gc();
    row.afterDelete = { rss: after.rss, heapUsed: after.heapUsed, seconds: del.seconds, failures: del.failures, deleted: ids.length };
    log(
      `  ${impl.padEnd(7)} after DELETE of ${ids.length}: RSS ${(after.rss / 2 ** 20).toFixed(0)} MiB (baseline ${(base.rss / 2 ** 20).toFixed(0)}), heap ${(after.heapUsed / 2 ** 20).toFixed(1)} MiB (baseline ${(base.heapUsed / 2 ** 20).toFixed(1)})${del.failures ? `, ${del.failures} DELETE failures` : ''}`,
    );
    await c.stop();
    out.push(row);
  }
  // Expiry (mcpkit): sessions left idle past sessionIdleMs must be freed without a DELETE.
  // Full suite only (it waits for the timeout).
  if (quick) return { key: 'memory', title: '6. Memory: idle stateful sessions', kind: 'memory', impls: out };
  const idleMs = 3000;
  const n = Math.min(settings.memoryCounts.at(-1), 10_000);
  const c = await startChild(HTTP_SERVER, ['mcpkit', 'stateful'], { env: { BENCH_SESSION_IDLE_MS: String(idleMs) } });
  const warm = await createSessions(c.port, 100, 64);
  await deleteSessions(c.port, warm.ids, 64);
  const base = await c.gc();
  const made = await createSessions(c.port, n, 64);
  const full = await c.gc();
  // The last session expires idleMs after it was made; the sweep runs every idleMs / 2: wait for
  // that, two sweeps, and slack.
  await new Promise((r) => setTimeout(r, idleMs * 2 + 1000));
  const after = await c.gc();
  const probe = await fetch(`http://127.0.0.1:${c.port}/mcp`, { method: 'POST', headers: R.headers({ 'mcp-session-id': made.ids[0] }), body: R.ECHO_CALL });
  await c.stop();
  const expiry = {
    count: made.ids.length,
    idleMs,
    baseline: { rss: base.rss, heapUsed: base.heapUsed },
    full: { rss: full.rss, heapUsed: full.heapUsed },
    after: { rss: after.rss, heapUsed: after.heapUsed },
    probeStatus: probe.status,
  };
  log(
    `  mcpkit  expiry of ${made.ids.length} idle sessions (sessionIdleMs ${idleMs}): heap ${(full.heapUsed / 2 ** 20).toFixed(1)} → ${(after.heapUsed / 2 ** 20).toFixed(1)} MiB (baseline ${(base.heapUsed / 2 ** 20).toFixed(1)}), RSS ${(full.rss / 2 ** 20).toFixed(0)} → ${(after.rss / 2 ** 20).toFixed(0)} MiB; an expired session id now gets ${probe.status}`,
  );
  return { key: 'memory', title: '6. Memory: idle stateful sessions', kind: 'memory', impls: out, expiry };
}

// ----------------------------------------------------------------------------- micro
function microScenario() {
  log("scenario micro: mcpkit's HTTP core in-process, no sockets");
  const r = spawnSync(process.execPath, [join(here, 'micro.mjs'), '--json', ...(quick ? ['--quick'] : [])], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`micro.mjs failed: ${r.stderr}`);
  const rows = JSON.parse(r.stdout.trim().split('\n').pop());
  for (const x of rows) log(`  ${x.label.padEnd(52)} ${x.cpuUsPerReq.toFixed(2).padStart(7)} µs CPU/req`);
  return { key: 'micro', title: "8. mcpkit's HTTP core in-process (no sockets, no load generator): CPU per request", kind: 'micro', rows };
}

// ------------------------------------------------------------------------- retrieval
function retrievalScenario() {
  log('scenario retrieval: search_tools over real tool catalogues (bench/tools/retrieval.mjs)');
  const r = spawnSync(process.execPath, [join(here, 'tools/retrieval.mjs'), '--json', ...(quick ? ['--quick'] : [])], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`retrieval.mjs failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  for (const x of out.rows)
    log(`  ${x.index.padEnd(40)} ${x.split.padEnd(9)} recall@5 ${(x.recall5 * 100).toFixed(1)}  nDCG@10 ${(x.ndcg10 * 100).toFixed(1)}`);
  for (const x of out.latency) log(`  ${x.index.padEnd(40)} ${x.tools} tools: p50 ${x.p50.toFixed(3)} ms`);
  return { key: 'retrieval', title: '11. Tool retrieval: search_tools over 1,000+ real tools, and latency over 10,000', kind: 'retrieval', ...out };
}

// ------------------------------------------------------------------------------- main
const started = Date.now();
const meta = { ...machine(root, buildNote), busyAtStart: await busyShare(3000), settings };
log(
  `mcpkit bench (${settings.mode}): node ${meta.node}, ${meta.cpu}, load average ${meta.loadavgStart.map((x) => x.toFixed(2)).join(' ')}${meta.busyAtStart === undefined ? '' : `, CPU busy before the start ${(meta.busyAtStart * 100).toFixed(0)} %`}`,
);
const scenarios = [];
for (const key of ALL) {
  if (only && !only.includes(key)) continue;
  if (HTTP_SCENARIOS[key]) scenarios.push(await httpScenario(key));
  else if (key === 'stdio') scenarios.push(await stdioScenario());
  else if (key === 'memory') scenarios.push(await memoryScenario());
  else if (key === 'micro') scenarios.push(microScenario());
  else if (key === 'retrieval') scenarios.push(retrievalScenario());
}
meta.loadavgEnd = os.loadavg();
meta.seconds = (Date.now() - started) / 1000;

const result = { meta, scenarios };
// latest.* (committed) comes from the full suite only; quick runs go to quick.* (not committed).
const outName = value('out') ?? (only ? 'partial' : quick ? 'quick' : 'latest');
const outDir = join(here, 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, `${outName}.json`), JSON.stringify(result, null, 2) + '\n');
const md = renderMarkdown(result);
writeFileSync(join(outDir, `${outName}.md`), md);
console.log('\n' + md);
log(`done in ${meta.seconds.toFixed(0)} s; wrote bench/results/${outName}.md and .json`);
