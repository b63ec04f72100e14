// `npm run bench -- --profile [--quick] [--scenario=json|sse|stateful|tools50|modern]`:
// runs the server child under `node --cpu-prof` with the suite's load (128 connections), then
// summarises only the measured window (start-up and warm-up excluded): top self-time frames,
// time per package/file, and time charged to the innermost mcpkit frame on each stack.
// Writes bench/results/profile.md + .json; the raw .cpuprofile files (open them in Chrome
// DevTools or speedscope) go to bench/results/profiles/, which git ignores.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from './lib/child.mjs';
import { summarise } from './lib/cpuprofile.mjs';
import { load } from './lib/load.mjs';
import * as R from './lib/requests.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const BODIES = {
  json: [R.ECHO_CALL, R.headers()],
  sse: [R.ECHO_CALL, R.headers()],
  tools50: [R.TOOLS50_CALL, R.headers()],
  modern: [R.MODERN_CALL, R.MODERN_HEADERS],
};

export async function profile({ quick, root, log }) {
  const scenario = process.argv.find((a) => a.startsWith('--scenario='))?.split('=')[1] ?? 'json';
  if (!BODIES[scenario]) throw new Error(`--profile supports ${Object.keys(BODIES).join(', ')}`);
  const [body, headers] = BODIES[scenario];
  const seconds = quick ? 5 : 15;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: `${os.cpus()[0]?.model} × ${os.cpus().length}`,
    loadavg: os.loadavg(),
    scenario,
    seconds,
    impls: {},
  };
  for (const impl of ['bare', 'mcpkit']) {
    const dir = join(here, 'results/profiles', `${stamp}-${scenario}-${impl}`);
    mkdirSync(dir, { recursive: true });
    const c = await startChild(join(here, 'servers/http.mjs'), [impl, scenario], { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
    await load({ port: c.port, body, headers, connections: 128, duration: quick ? 2 : 5 });
    const s0 = await c.stats();
    const res = await load({ port: c.port, body, headers, connections: 128, duration: seconds });
    const s1 = await c.stats();
    await c.stop();
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
    );
    const sum = summarise(file, { root, top: 30, from: s0.hrUs, to: s1.hrUs, ours: (url) => url.includes('/dist/') && !url.includes('/node_modules/') });
    const cpu = s1.cpuUser + s1.cpuSystem - s0.cpuUser - s0.cpuSystem;
    const perReq = (ms) => +((ms * 1000) / res.ok).toFixed(2);
    for (const list of [sum.selfTop, sum.areas, sum.chargedToOurs, sum.inclusiveOurs]) for (const e of list) e.usPerReq = perReq(e.ms);
    results.impls[impl] = { rps: res.rps, ok: res.ok, p50: res.p50, p99: res.p99, cpuPerReq: cpu / res.ok, profile: file.slice(root.length + 1), ...sum };
    log(`${impl}: ${res.rps.toFixed(0)} req/s, ${(cpu / res.ok).toFixed(1)} µs CPU/req, profile ${file.slice(root.length + 1)}`);
  }
  // Side by side: self time per area (file or package), µs per request, bare vs mcpkit.
  const b = results.impls.bare;
  const m = results.impls.mcpkit;
  const keys = new Set([...Object.keys(b.allAreas), ...Object.keys(m.allAreas)]);
  results.compare = [...keys]
    .map((k) => ({ area: k, bare: ((b.allAreas[k] ?? 0) * 1000) / b.ok, mcpkit: ((m.allAreas[k] ?? 0) * 1000) / m.ok }))
    .map((e) => ({ ...e, diff: e.mcpkit - e.bare }))
    .sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff));
  results.loadavgEnd = os.loadavg();
  writeFileSync(join(here, 'results/profile.json'), JSON.stringify(results, null, 2) + '\n');
  const md = render(results);
  writeFileSync(join(here, 'results/profile.md'), md);
  console.log('\n' + md);
}

function render(r) {
  const out = [`# CPU profile: ${r.scenario} scenario, bare node:http vs mcpkit`, ''];
  out.push(
    `${r.date}, node ${r.node}, ${r.cpu}, load average ${r.loadavg.map((x) => x.toFixed(2)).join(' / ')} at start, ${r.loadavgEnd.map((x) => x.toFixed(2)).join(' / ')} at end. ${r.seconds} s of autocannon load (128 connections) per server; only that window is counted. µs/req = profile time ÷ completed requests.`,
    '',
  );
  const b = r.impls.bare;
  const m = r.impls.mcpkit;
  if (b && m) {
    const busy = (p) => (p.busyMs * 1000) / p.ok;
    out.push('## Side by side: profile time per request by file / package', '');
    out.push(
      `Process CPU per request: bare ${b.cpuPerReq.toFixed(1)} µs, mcpkit ${m.cpuPerReq.toFixed(1)} µs (+${(m.cpuPerReq - b.cpuPerReq).toFixed(1)}). Profile (busy) time per request: bare ${busy(b).toFixed(1)} µs, mcpkit ${busy(m).toFixed(1)} µs. The profiler samples wall time: a syscall during which the process is descheduled (\`native: writev\` on a busy machine) is counted in full, so compare the other rows.`,
      '',
    );
    out.push('| area | bare µs/req | mcpkit µs/req | difference |', '| --- | --- | --- | --- |');
    for (const e of r.compare.slice(0, 30))
      out.push(`| \`${e.area}\` | ${e.bare.toFixed(2)} | ${e.mcpkit.toFixed(2)} | ${e.diff >= 0 ? '+' : ''}${e.diff.toFixed(2)} |`);
    out.push('');
  }
  for (const [impl, p] of Object.entries(r.impls)) {
    out.push(`## ${impl}: ${p.rps.toFixed(0)} req/s, ${p.cpuPerReq.toFixed(1)} µs CPU/req (process), p50 ${p.p50} ms, p99 ${p.p99} ms`, '');
    out.push(`Window ${p.windowMs} ms, busy ${p.busyMs} ms, idle ${p.idleMs} ms, GC ${p.gcMs} ms. Profile: \`${p.profile}\`.`, '');
    out.push('### Top self time', '', '| frame | ms | % of busy | µs/req |', '| --- | --- | --- | --- |');
    for (const e of p.selfTop.slice(0, 25)) out.push(`| \`${e.frame}\` | ${e.ms} | ${e.pct} | ${e.usPerReq} |`);
    out.push('', '### Self time by package / file', '', '| area | ms | % | µs/req |', '| --- | --- | --- | --- |');
    for (const e of p.areas.slice(0, 20)) out.push(`| \`${e.area}\` | ${e.ms} | ${e.pct} | ${e.usPerReq} |`);
    if (impl === 'mcpkit') {
      out.push(
        '',
        '### Charged to the innermost mcpkit frame (node internals count against the mcpkit caller)',
        '',
        '| frame | ms | % | µs/req |',
        '| --- | --- | --- | --- |',
      );
      for (const e of p.chargedToOurs.slice(0, 25)) out.push(`| \`${e.frame}\` | ${e.ms} | ${e.pct} | ${e.usPerReq} |`);
      out.push('', '### Inclusive time of mcpkit functions', '', '| frame | ms | % | µs/req |', '| --- | --- | --- | --- |');
      for (const e of p.inclusiveOurs.slice(0, 25)) out.push(`| \`${e.frame}\` | ${e.ms} | ${e.pct} | ${e.usPerReq} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
