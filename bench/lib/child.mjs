// Parent side of a server child: start it, wait for its port, query its stats, stop it.
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export async function startChild(script, args, { execArgv = [], stdio, env } = {}) {
  const child = fork(script, args, {
    execArgv: ['--expose-gc', ...execArgv],
    stdio: stdio ?? ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  let seq = 0;
  const pending = new Map();
  let ready;
  const readyP = new Promise((resolve, reject) => {
    ready = resolve;
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${code} before it was ready`)));
  });
  child.on('message', (m) => {
    if (m?.type === 'ready') ready(m);
    else if (m?.type === 'stats') {
      pending.get(m.seq)?.(m.stats);
      pending.delete(m.seq);
    }
  });
  const ask = (type) =>
    new Promise((resolve, reject) => {
      const n = ++seq;
      pending.set(n, resolve);
      child.send({ type, seq: n }, (err) => err && reject(err));
    });
  const info = await readyP;
  return {
    child,
    pid: child.pid,
    port: info.port,
    // Every port, from a child that listens on several (servers/many.mjs).
    ports: info.ports ?? [info.port],
    stats: () => ask('stats'),
    resetPeak: () => ask('resetPeak'),
    gc: () => ask('gc'),
    async stop(timeoutMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      try {
        child.send({ type: 'exit' });
      } catch {
        child.kill('SIGKILL');
      }
      const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(t);
    },
  };
}

/** CPU time (µs) and RSS of any process, from /proc (Linux); undefined elsewhere. */
let ticks;
export function procStats(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks ??= 100; // USER_HZ is 100 on every Linux ABI node runs on
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { cpuUs: ((utime + stime) * 1e6) / ticks, rss: kb('VmRSS'), peakRss: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Direct children of a process, this one by default (Linux), to find a server a client library spawned. */
export function childPids(pid = process.pid) {
  try {
    const out = [];
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const list = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (list) out.push(...list.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    return [];
  }
}
