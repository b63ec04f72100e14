#!/usr/bin/env node
// Does a call through the gateway cost the same whatever the number of backends? In one run:
// `node bench/gateway-scale.mjs [--quick] [--runs=N] [--duration=S] [--connections=N] [--tools=T] [--many=M]`
// (build first). Two gateways, one over 1 backend and one over M backends (default 50), every
// backend with T tools (default 100) and all of them in one process (servers/many.mjs); the same
// stateless JSON `tools/call` of `b_echo` is sent to each gateway by autocannon, alternating, each
// run after a warm-up. Reports medians: req/s, p50/p99, and CPU per call of the gateway and of the
// backends' process. Gateway CPU per call should not grow with the backends.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { startChild } from './lib/child.mjs';
import { load } from './lib/load.mjs';
import { ECHO_CALL, headers } from './lib/requests.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const value = (name, d) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const quick = argv.includes('--quick');
const runs = value('runs', quick ? 2 : 5);
const duration = value('duration', quick ? 2 : 6);
const connections = value('connections', 32);
const tools = value('tools', 100);
const many = value('many', 50);
const CALL = ECHO_CALL.replace('"name":"echo"', '"name":"b_echo"');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const cpu = (s) => s.cpuUser + s.cpuSystem;

const cases = [];
try {
  for (const count of [1, many]) {
    const backends = await startChild(join(here, 'servers/many.mjs'), [String(count), String(tools)]);
    const gateway = await startChild(join(here, 'servers/gateway-many.mjs'), [backends.ports.join(',')]);
    cases.push({ name: `${count} backend${count > 1 ? 's' : ''} × ${tools} tools`, backends, gateway, rows: [] });
  }
  const measure = async (c, seconds) => {
    const [b0, g0] = await Promise.all([c.backends.stats(), c.gateway.stats()]);
    const r = await load({ port: c.gateway.port, body: CALL, headers: headers(), connections, duration: seconds });
    const [b1, g1] = await Promise.all([c.backends.stats(), c.gateway.stats()]);
    if (r.non2xx || r.errors || r.timeouts) throw new Error(`${c.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    return { ...r, backendCpuUs: (cpu(b1) - cpu(b0)) / r.ok, gatewayCpuUs: (cpu(g1) - cpu(g0)) / r.ok };
  };
  for (const c of cases) await measure(c, quick ? 1 : 3);
  const load0 = loadavg()[0];
  for (let i = 0; i < runs; i++) for (const c of cases) c.rows.push(await measure(c, duration));
  const load1 = loadavg()[0];
  console.log(`${runs} runs of ${duration} s, ${connections} connections, node ${process.version}, load average ${load0.toFixed(1)} → ${load1.toFixed(1)}\n`);
  console.log('| gateway over | req/s | p50 ms | p99 ms | gateway CPU µs/call | backends CPU µs/call |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const c of cases) {
    const m = (f) => median(c.rows.map(f));
    console.log(
      `| ${c.name} | ${m((r) => r.rps).toFixed(0)} | ${m((r) => r.p50).toFixed(1)} | ${m((r) => r.p99).toFixed(1)} | ${m((r) => r.gatewayCpuUs).toFixed(0)} | ${m((r) => r.backendCpuUs).toFixed(0)} |`,
    );
  }
} finally {
  await Promise.all(cases.flatMap((c) => [c.gateway.stop(), c.backends.stop()]));
}
