// What the sandbox costs per run, tool time excluded (each call is answered at once): a fresh
// QuickJS instance, the prelude, the program, its calls bridged as promises, the result. Measured
// in a worker (`runProgram`, what the host uses: a message per call and per answer) and on the
// calling thread (`runInThread`), after a warm-up, as wall time per run (p50, p90, p99) and as
// CPU time of the whole process (every thread) per run, which a busy machine disturbs less.
//
//   node --import tsx bench/codemode/overhead.ts [--runs=300]
import { runInThread } from '../../src/codemode/runner.js';
import { runProgram, type RunProgramOptions } from '../../src/codemode/sandbox.js';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 300);
const api = new Map([['tracker', ['list_issues', 'close_issue']]]);
const issues = Array.from({ length: 40 }, (_, i) => ({
  id: 100 + i,
  title: `Issue ${i}`,
  labels: i % 4 ? ['task'] : ['bug'],
  updated_at: `2026-0${1 + (i % 9)}-01`,
}));
const call: RunProgramOptions['call'] = async (c) => (c.name === 'list_issues' ? { issues } : `closed ${String(c.args.id)}`);

const PROGRAMS = {
  'return 1': 'return 1;',
  '1 call + filter': "const { issues } = await tracker.list_issues({});\nreturn issues.filter((i) => i.labels.includes('bug')).map((i) => i.id);",
  '11 calls (1 + 10 in parallel)':
    'const { issues } = await tracker.list_issues({});\nreturn await Promise.all(issues.slice(0, 10).map((i) => tracker.close_issue({ id: i.id })));',
};

function pct(sorted: number[], p: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2);
}

console.log(`${runs} runs each after ${Math.round(runs / 5)} warm-up runs; ms per run (wall)\n`);
console.log('| program | where | p50 | p90 | p99 | CPU ms per run |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [label, code] of Object.entries(PROGRAMS)) {
  for (const where of ['worker', 'thread'] as const) {
    const go = () => (where === 'worker' ? runProgram({ code, api, call }) : runInThread({ code, api, call }));
    for (let i = 0; i < runs / 5; i++) await go();
    const times: number[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const r = await go();
      times.push(performance.now() - t);
      if (!r.ok) throw new Error(`${label}: ${JSON.stringify(r.error)}`);
    }
    const used = process.cpuUsage(cpu);
    times.sort((a, b) => a - b);
    const cpuMs = ((used.user + used.system) / 1000 / runs).toFixed(2);
    console.log(`| ${label} | ${where} | ${pct(times, 50)} | ${pct(times, 90)} | ${pct(times, 99)} | ${cpuMs} |`);
  }
}
process.exit(0);
