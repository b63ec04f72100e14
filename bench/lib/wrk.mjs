// A second load generator: wrk (Debian's `wrk`, written in C), for the benches where the load
// generator shares two cores with more than one process under test. autocannon runs in node and
// spends about as much CPU per request as the server it loads; with a gateway and its backend on
// the same two cores it takes a third of the machine from them, so what it reports mixes the hop's
// cost with its own. wrk spends a fraction of that. Same call shape and result as load.mjs's load().
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether `wrk` is on PATH. */
export function hasWrk() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version prints its usage and exits 1: it is there when it could be run at all.
    return err.code !== 'ENOENT';
  }
}

const lua = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** One wrk run: POSTs `body` with `headers` on `connections` keep-alive connections for `duration` s. */
export function loadWrk({ port, body, headers, connections, duration }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const script = join(dir, 'post.lua');
  writeFileSync(
    script,
    ['wrk.method = "POST"', `wrk.body = ${lua(body)}`, ...Object.entries(headers).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`), ''].join('\n'),
  );
  const args = ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', '--timeout', '30s', '-s', script, `http://127.0.0.1:${port}/mcp`];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) return reject(new Error(`wrk exited ${code}:\n${out}`));
      const num = (re) => Number(re.exec(out)?.[1] ?? Number.NaN);
      const ms = (re) => {
        const m = re.exec(out);
        if (!m) return Number.NaN;
        const v = Number(m[1]);
        return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
      };
      const total = num(/(\d+) requests in/);
      const seconds = ms(/requests in ([\d.]+)(us|ms|s),/) / 1000;
      const non2xx = num(/Non-2xx or 3xx responses: (\d+)/) || 0;
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = sock ? Number(sock[1]) + Number(sock[2]) + Number(sock[3]) : 0;
      const ok = total - non2xx;
      resolve({
        ok,
        non2xx,
        errors,
        timeouts: sock ? Number(sock[4]) : 0,
        seconds,
        rps: ok / seconds,
        p50: ms(/ 50%\s+([\d.]+)(us|ms|s)/),
        p99: ms(/ 99%\s+([\d.]+)(us|ms|s)/),
        max: ms(/Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/),
        mean: ms(/Latency\s+([\d.]+)(us|ms|s)/),
      });
    });
  });
}
