// Summarises a V8 .cpuprofile (from node --cpu-prof): self time per function and per area
// (package or file), and time attributed to the innermost frame of "our" code on each stack.
import { readFileSync } from 'node:fs';

function areaOf(url, root) {
  if (!url) return '(native / V8)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5);
  let u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (root && u.startsWith(root)) u = u.slice(root.length + 1);
  return u;
}

/**
 * `from`/`to`: a window in the profile's clock (µs, the same clock as process.hrtime), e.g. the
 * load test only, without start-up and warm-up. `ours`: a predicate on a frame's url for the
 * code under study (e.g. mcpkit's dist/): every sample is also charged to the innermost frame
 * of ours on its stack, so node internals called by our code count against the caller.
 */
export function summarise(file, { root, top = 25, from = -Infinity, to = Infinity, ours = () => false } = {}) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frameKey = (cf) => `${cf.functionName || '(anonymous)'} ${areaOf(cf.url, root)}:${cf.lineNumber + 1}`;
  const selfUs = new Map();
  const { samples, timeDeltas } = prof;
  let t = prof.startTime;
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i];
    if (t < from || t > to) continue;
    const dt = timeDeltas[i + 1] ?? 0; // the time until the next sample is spent in sample i
    total += dt;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + dt);
  }
  const fns = new Map();
  const areas = new Map();
  const charged = new Map();
  const inclusive = new Map();
  let idle = 0;
  let gc = 0;
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
  for (const [id, us] of selfUs) {
    const cf = byId.get(id).callFrame;
    if (cf.functionName === '(idle)') {
      idle += us;
      continue;
    }
    if (cf.functionName === '(garbage collector)') gc += us;
    add(fns, frameKey(cf), us);
    add(areas, cf.functionName.startsWith('(') ? cf.functionName : cf.url ? areaOf(cf.url, root) : `native: ${cf.functionName || '(anonymous)'}`, us);
    // Walk the stack: innermost frame of ours, and inclusive time of each of our functions.
    let innermost;
    const seen = new Set();
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const f = byId.get(p).callFrame;
      if (!ours(f.url)) continue;
      const k = frameKey(f);
      innermost ??= k;
      if (!seen.has(k)) {
        seen.add(k);
        add(inclusive, k, us);
      }
    }
    add(charged, innermost ?? (cf.functionName.startsWith('(') ? cf.functionName : `outside: ${areaOf(cf.url, root)}`), us);
  }
  const busy = total - idle;
  const list = (m, name) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({ [name]: k, ms: +(us / 1000).toFixed(1), pct: +((100 * us) / busy).toFixed(1) }));
  return {
    windowMs: +(total / 1000).toFixed(1),
    busyMs: +(busy / 1000).toFixed(1),
    idleMs: +(idle / 1000).toFixed(1),
    gcMs: +(gc / 1000).toFixed(1),
    selfTop: list(fns, 'frame'),
    areas: list(areas, 'area'),
    allAreas: Object.fromEntries([...areas].map(([k, us]) => [k, us / 1000])),
    chargedToOurs: list(charged, 'frame'),
    inclusiveOurs: list(inclusive, 'frame'),
  };
}
