#!/usr/bin/env node
// A tools/call through mcpkit's gateway vs the same call made directly, in one run:
// `node bench/gateway.mjs [--quick] [--runs=N] [--duration=S] [--connections=N]` (build first).
// The backend is the mcpkit server of the `json` scenario (servers/http.mjs mcpkit json); the
// gateway (servers/gateway.mjs) puts it behind one more HTTP hop, as `b_echo`. Both are loaded by
// autocannon with stateless JSON requests, alternating direct / gateway, each run after a warm-up.
// Reports medians over the runs: req/s, p50/p99 latency, and CPU per request of each process.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from './lib/child.mjs';
import { load } from './lib/load.mjs';
import { ECHO_CALL, headers } from './lib/requests.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const value = (name, d) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const quick = argv.includes('--quick');
const runs = value('runs', quick ? 2 : 5);
const duration = value('duration', quick ? 2 : 8);
const connections = value('connections', 32);
const GATEWAY_CALL = ECHO_CALL.replace('"name":"echo"', '"name":"b_echo"');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const cpu = (s) => s.cpuUser + s.cpuSystem;

const backend = await startChild(join(here, 'servers/http.mjs'), ['mcpkit', 'json']);
const gateway = await startChild(
  join(here, 'servers/gateway.mjs'),
  [String(backend.port)],
  process.env.GW_PROF ? { execArgv: ['--cpu-prof', `--cpu-prof-dir=${process.env.GW_PROF}`] } : {},
);
try {
  const rows = { direct: [], gateway: [] };
  const measure = async (kind, seconds) => {
    const port = kind === 'direct' ? backend.port : gateway.port;
    const body = kind === 'direct' ? ECHO_CALL : GATEWAY_CALL;
    const [b0, g0] = await Promise.all([backend.stats(), gateway.stats()]);
    const r = await load({ port, body, headers: headers(), connections, duration: seconds });
    const [b1, g1] = await Promise.all([backend.stats(), gateway.stats()]);
    if (r.non2xx || r.errors || r.timeouts) throw new Error(`${kind}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    return { ...r, backendCpuUs: (cpu(b1) - cpu(b0)) / r.ok, gatewayCpuUs: (cpu(g1) - cpu(g0)) / r.ok };
  };
  // Warm-up: both paths, so the backend's JIT is as warm for either.
  await measure('direct', quick ? 1 : 3);
  await measure('gateway', quick ? 1 : 3);
  for (let i = 0; i < runs; i++) for (const kind of ['direct', 'gateway']) rows[kind].push(await measure(kind, duration));
  const line = (kind) => {
    const rs = rows[kind];
    const m = (f) => median(rs.map(f));
    return `| ${kind} | ${m((r) => r.rps).toFixed(0)} | ${m((r) => r.p50).toFixed(1)} | ${m((r) => r.p99).toFixed(1)} | ${m((r) => r.backendCpuUs).toFixed(0)} | ${kind === 'direct' ? '–' : m((r) => r.gatewayCpuUs).toFixed(0)} |`;
  };
  console.log(`${runs} runs of ${duration} s, ${connections} connections, node ${process.version}\n`);
  console.log('| path | req/s | p50 ms | p99 ms | backend CPU µs/req | gateway CPU µs/req |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  console.log(line('direct'));
  console.log(line('gateway'));
} finally {
  await Promise.all([gateway.stop(), backend.stop()]);
}
