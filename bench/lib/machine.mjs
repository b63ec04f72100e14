// What a bench report records about the machine it ran on, and how busy it was at the start.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

/** Machine, runtime, commit and dependency versions of a run. */
export function machine(root, buildNote) {
  const cpus = os.cpus();
  const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout?.trim();
  return {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: `${cpus[0]?.model ?? 'unknown'} × ${cpus.length}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    loadavgStart: os.loadavg(),
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty: (git(['status', '--porcelain', 'src']) ?? '').length > 0,
    build: buildNote,
    packages: Object.fromEntries(
      ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/node', 'autocannon', 'zod'].map((p) => {
        try {
          return [p, JSON.parse(readFileSync(join(root, 'node_modules', p, 'package.json'), 'utf8')).version];
        } catch {
          return [p, '?'];
        }
      }),
    ),
  };
}

/**
 * Share of the machine's CPU time that was busy over `ms` before the run starts (Linux
 * /proc/stat), or undefined elsewhere. The 1-minute load average lags by minutes, so a busy
 * spell that has just ended (a quick run right before) would flag a quiet machine as noisy.
 */
export async function busyShare(ms) {
  const read = () => {
    try {
      const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      return { idle: f[3] + (f[4] ?? 0), total: f.reduce((a, b) => a + b, 0) };
    } catch {
      return undefined;
    }
  };
  const a = read();
  if (!a) return undefined;
  await new Promise((r) => setTimeout(r, ms));
  const b = read();
  const total = b.total - a.total;
  return total > 0 ? 1 - (b.idle - a.idle) / total : undefined;
}
