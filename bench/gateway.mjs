#!/usr/bin/env node
// A tools/call through `mcpkit gateway` vs the same call made directly to its `mcpkit serve`
// backend, in one run (issue 25): `node bench/gateway.mjs [--quick] [--runs=N] [--duration=S]
// [--connections=N] [--variants=plain,policy,stdio] [--loader=wrk|autocannon] [--root=DIR]` (build first).
//
// The processes are the CLI's own: the backend is `mcpkit serve bench/servers/echo.mjs --stateless
// --json-response`; every gateway is `mcpkit gateway --config FILE --stateless --json-response`
// over it, as `b` (the tool is `b_echo`). Variants:
//   plain   the gateway with no policy section;
//   policy  API keys, visibility rules and a rate limit (bench/lib/policy.mjs; the load sends a key);
//   stdio   the backend as the gateway's stdio child (`mcpkit serve bench/servers/echo.mjs --stdio`);
//   forwarder  a bare node:http forwarder (servers/bare-gateway.mjs: node:http in front, node:http's
//           keep-alive client behind, parse and re-serialise, no MCP) over the same backend: what
//           a gateway hop costs on these cores before any gateway code runs;
//   lean    a lean forwarder (servers/lean-forwarder.mjs: the same JSON work on node:net at both
//           ends, requests framed by Content-Length, no node:http): what an HTTP/1.1 of our own
//           could save;
//   relay   a TCP relay (servers/tcp-relay.mjs: bytes copied both ways, no HTTP or JSON parsing):
//           the least a hop can cost here;
//   bare    no gateway: a bare node:http JSON-RPC server (servers/http.mjs bare json) answering the
//           same call, the floor `mcpkit serve` is held to (issue 25: direct ≥ 0.85 of bare).
// The load generator (--loader) sends stateless JSON requests (32 connections by default),
// alternating direct and each gateway, every run after a warm-up of each: wrk (C) when it is
// installed, else autocannon (node). They differ in what they leave of the two cores: autocannon
// spends about as much CPU per request as the server it loads, so with a gateway and its backend
// also on the machine it takes their share and the ratios to direct come out lower (docs/
// performance.md has both). Reports medians over the runs: req/s (and its
// ratio to direct), p50/p99 latency (and p50 added), and CPU per call of the gateway and of the
// backend that answered it (read from /proc: 10 ms ticks, so runs should last seconds), the
// gateway's as a multiple of its backend's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childPids, procStats, startChild } from './lib/child.mjs';
import { load as autocannonLoad } from './lib/load.mjs';
import { hasWrk, loadWrk } from './lib/wrk.mjs';
import { BENCH_POLICY } from './lib/policy.mjs';
import { ECHO_CALL, headers } from './lib/requests.mjs';

const argv = process.argv.slice(2);
const str = (name, d) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const value = (name, d) => Number(str(name, d));
const root = str('root', dirname(dirname(fileURLToPath(import.meta.url))));
const quick = argv.includes('--quick');
const runs = value('runs', quick ? 2 : 5);
const duration = value('duration', quick ? 2 : 8);
const connections = value('connections', 32);
const variants = str('variants', 'plain,policy,stdio,forwarder,lean,relay,bare').split(',');
const loader = str('loader', hasWrk() ? 'wrk' : 'autocannon');
if (loader !== 'wrk' && loader !== 'autocannon') throw new Error(`--loader is wrk or autocannon (got ${loader})`);
const load = loader === 'wrk' ? loadWrk : autocannonLoad;
const CLI = join(root, 'dist/cli/main.js');
const MODULE = join(root, 'bench/servers/echo.mjs');
const GATEWAY_CALL = ECHO_CALL.replace('"name":"echo"', '"name":"b_echo"');
/** The floors of a hop: variant → [script in servers/, row name]. */
const FLOORS = { forwarder: ['bare-gateway', 'bare forwarder'], lean: ['lean-forwarder', 'lean forwarder'], relay: ['tcp-relay', 'TCP relay'] };
const KEY = { authorization: 'Bearer bench-key-1' };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A CLI process; resolves with its pid and the port of the URL it prints. */
function cli(args) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (chunk) => {
      out += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(out);
      if (m) resolve({ child, pid: child.pid, port: Number(m[1]) });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`mcpkit ${args[0]} exited (${code}) before listening:\n${out}`)));
  });
}

const stop = (p) =>
  new Promise((resolve) => {
    if (p.child.exitCode !== null) return resolve();
    p.child.on('exit', resolve);
    p.child.kill('SIGTERM');
    setTimeout(() => p.child.kill('SIGKILL'), 5000).unref();
  });

const dir = mkdtempSync(join(tmpdir(), 'bench-gateway-'));
const procs = [];
try {
  const backend = await cli(['serve', MODULE, '--stateless', '--json-response', '--port', '0']);
  procs.push(backend);
  const url = `http://127.0.0.1:${backend.port}/mcp`;
  const cases = [{ name: 'direct', port: backend.port, body: ECHO_CALL, headers: headers(), backendPid: backend.pid, rows: [] }];
  for (const v of variants) {
    if (v === 'bare') {
      const bare = await startChild(join(root, 'bench/servers/http.mjs'), ['bare', 'json']);
      procs.push({ child: bare.child });
      cases.push({ name: 'bare node:http', port: bare.port, body: ECHO_CALL, headers: headers(), backendPid: bare.pid, rows: [], bare: true });
      continue;
    }
    if (FLOORS[v]) {
      const [script, name] = FLOORS[v];
      const fw = await startChild(join(root, `bench/servers/${script}.mjs`), [url]);
      procs.push({ child: fw.child });
      cases.push({ name, port: fw.port, body: GATEWAY_CALL, headers: headers(), gatewayPid: fw.pid, backendPid: backend.pid, rows: [] });
      continue;
    }
    const servers = { b: v === 'stdio' ? { command: process.execPath, args: [CLI, 'serve', MODULE, '--stdio'] } : { url } };
    const file = join(dir, `${v}.json`);
    writeFileSync(file, JSON.stringify({ mcpServers: servers, ...(v === 'policy' ? { policy: BENCH_POLICY } : {}) }));
    const gw = await cli(['gateway', '--config', file, '--stateless', '--json-response', '--port', '0', '--no-watch']);
    procs.push(gw);
    // The stdio backend is the gateway's child.
    let backendPid = backend.pid;
    if (v === 'stdio') {
      for (let i = 0; i < 50 && !(backendPid = childPids(gw.pid)[0]); i++) await new Promise((r) => setTimeout(r, 100));
    }
    cases.push({
      name: `gateway (${v})`,
      port: gw.port,
      body: GATEWAY_CALL,
      headers: headers(v === 'policy' ? KEY : {}),
      gatewayPid: gw.pid,
      backendPid,
      rows: [],
    });
  }
  const cpu = (pid) => (pid ? (procStats(pid)?.cpuUs ?? Number.NaN) : 0);
  const measure = async (c, seconds) => {
    const [b0, g0] = [cpu(c.backendPid), cpu(c.gatewayPid)];
    const r = await load({ port: c.port, body: c.body, headers: c.headers, connections, duration: seconds });
    const [b1, g1] = [cpu(c.backendPid), cpu(c.gatewayPid)];
    if (r.non2xx || r.errors || r.timeouts) throw new Error(`${c.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    return { ...r, backendCpuUs: (b1 - b0) / r.ok, gatewayCpuUs: (g1 - g0) / r.ok };
  };
  for (const c of cases) await measure(c, quick ? 1 : 3);
  const load0 = loadavg()[0];
  for (let i = 0; i < runs; i++) for (const c of cases) c.rows.push(await measure(c, duration));
  const load1 = loadavg()[0];
  const m = (c, f) => median(c.rows.map(f));
  const direct = cases[0];
  console.log(
    `${runs} runs of ${duration} s, ${connections} connections, load from ${loader}, node ${process.version}, load average ${load0.toFixed(1)} → ${load1.toFixed(1)}\n`,
  );
  console.log('| path | req/s | × direct | p50 ms | p50 added | p99 ms | backend CPU µs/call | gateway CPU µs/call | gateway ÷ backend |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const c of cases) {
    const rps = m(c, (r) => r.rps);
    // Rows without a gateway: direct, and the bare node:http server.
    const isDirect = c === direct || c.bare === true;
    const g = m(c, (r) => r.gatewayCpuUs);
    const b = m(c, (r) => r.backendCpuUs);
    console.log(
      `| ${c.name} | ${rps.toFixed(0)} | ${c === direct ? '1' : (rps / m(direct, (r) => r.rps)).toFixed(2)} | ${m(c, (r) => r.p50).toFixed(1)} | ${isDirect ? '–' : (m(c, (r) => r.p50) - m(direct, (r) => r.p50)).toFixed(1)} | ${m(c, (r) => r.p99).toFixed(1)} | ${b.toFixed(0)} | ${isDirect ? '–' : g.toFixed(0)} | ${isDirect ? '–' : (g / b).toFixed(2)} |`,
    );
  }
  // Ratios per run (direct and each gateway measured back to back), for the spread.
  for (const c of cases.slice(1).filter((c) => !c.bare))
    console.log(`\n${c.name} ÷ direct, per run: ${c.rows.map((r, i) => (r.rps / direct.rows[i].rps).toFixed(2)).join(' ')}`);
  // The gateway against the floor of a hop (the bare forwarder), run by run.
  const floor = cases.find((c) => c.name === 'bare forwarder');
  for (const c of floor ? cases.filter((c) => c.name.startsWith('gateway (')) : []) {
    const perRun = c.rows.map((r, i) => r.rps / floor.rows[i].rps);
    console.log(`\n${c.name} ÷ bare forwarder: ${median(perRun).toFixed(2)} (per run: ${perRun.map((x) => x.toFixed(2)).join(' ')})`);
  }
  const bare = cases.find((c) => c.bare);
  if (bare) {
    const perRun = direct.rows.map((r, i) => r.rps / bare.rows[i].rps);
    console.log(
      `\ndirect (mcpkit serve) ÷ bare node:http: ${median(perRun).toFixed(2)} (median of per-run ratios: ${perRun.map((x) => x.toFixed(2)).join(' ')}); CPU per call ${m(direct, (r) => r.backendCpuUs).toFixed(0)} vs ${m(bare, (r) => r.backendCpuUs).toFixed(0)} µs`,
    );
  }
} finally {
  await Promise.all(procs.map(stop));
  rmSync(dir, { recursive: true, force: true });
}
