// Allocation profile of mcpkit's HTTP core (in-process, like micro.mjs): which functions
// allocate how many bytes per request, counting objects the GC has already collected.
//   node bench/alloc.mjs [--case=json|sse|tools50|modern|stateful] [--top=25]
// Uses the inspector's sampling heap profiler (HeapProfiler.startSampling) with
// includeObjectsCollectedByMinorGC/MajorGC, so short-lived garbage counts too.
import { Session } from 'node:inspector/promises';
import { micro } from './micro.mjs';

const only = process.argv.find((a) => a.startsWith('--case='))?.split('=')[1] ?? 'json';
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.split('=')[1] ?? 25);

const session = new Session();
session.connect();
// Warm up first (the run below also warms, but its allocations count).
await micro({ quick: true, only });
await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const [res] = await micro({ quick: true, only });
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

// micro({ quick }) runs a warm-up loop of 10k requests plus n measured requests.
const requests = res.n + 10_000; // quick: 10k warm-up requests, then n
const self = new Map();
let total = 0;
const walk = (node) => {
  const cf = node.callFrame;
  const url = cf.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
  const key = `${cf.functionName || '(anonymous)'} ${url}:${cf.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const c of node.children) walk(c);
};
walk(profile.head);
console.log(`${res.label}: ~${(total / requests).toFixed(0)} bytes allocated per request (sampled), ${res.cpuUsPerReq.toFixed(1)} µs CPU/req`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(v / requests).toFixed(0).padStart(7)} B/req  ${k}`);
