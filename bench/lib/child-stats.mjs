// Loaded inside every server child: answers the parent's stats requests over the IPC channel.
// The child measures itself (process.cpuUsage is exact to the microsecond); peak RSS is
// sampled every 100 ms so a run's peak can be reported (VmHWM cannot be reset portably); a
// sample reads /proc/self/statm, so this costs ~0.1% of a core.

let peakRss = 0;
const sample = () => {
  const r = process.memoryUsage.rss();
  if (r > peakRss) peakRss = r;
};
// Not under the instruction counters (BENCH_RSS_SAMPLER=0): a sample every 100 ms is work that
// grows with the run's wall time, which valgrind and a busy machine stretch, so it would not
// cancel out of (I(2M) − I(M)) ÷ M.
if (process.env.BENCH_RSS_SAMPLER !== '0') setInterval(sample, 100).unref();

function snapshot() {
  sample();
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  return {
    hrUs: Number(process.hrtime.bigint() / 1000n),
    cpuUser: cpu.user,
    cpuSystem: cpu.system,
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    heapTotal: mem.heapTotal,
    external: mem.external,
    peakRss,
  };
}

/** Installs the IPC side channel; `onExit` runs before the process exits (close servers...). */
export function installStats(onExit) {
  if (!process.send) return;
  process.on('message', async (msg) => {
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'stats':
        process.send({ type: 'stats', seq: msg.seq, stats: snapshot() });
        break;
      case 'resetPeak':
        peakRss = process.memoryUsage.rss();
        process.send({ type: 'stats', seq: msg.seq, stats: snapshot() });
        break;
      case 'gc':
        if (globalThis.gc) {
          // Several passes: weak callbacks and finalizers free more on the second and third.
          for (let i = 0; i < 3; i++) {
            globalThis.gc();
            await new Promise((r) => setImmediate(r));
          }
        }
        process.send({ type: 'stats', seq: msg.seq, stats: snapshot() });
        break;
      case 'exit':
        try {
          await onExit?.();
        } catch {
          // exiting anyway
        }
        // A normal exit lets --cpu-prof write its profile.
        process.exit(0);
    }
  });
  // If the parent dies, do not linger.
  process.on('disconnect', () => process.exit(0));
}
