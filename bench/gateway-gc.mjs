#!/usr/bin/env node
// What the gateway leaves to the garbage collector per forwarded call: `node bench/gateway-gc.mjs
// [--runs=3] [--duration=6] [--connections=32] [--root=DIR] [--node-flags="..."]` (build first).
//
// The processes are the CLI's own, as in bench/gateway.mjs: `mcpkit serve bench/servers/echo.mjs
// --stateless --json-response` behind `mcpkit gateway --stateless --json-response` (the tool
// `b_echo`). The gateway runs with V8's --trace-gc-nvp; autocannon loads it (warm-up, then the
// measured window), and the scavenges in the window are summed per call: bytes allocated, bytes
// promoted to the old generation (a call's objects should die young: promotion is what makes
// full collections and the scavenges themselves expensive), and scavenge pause. A promotion of
// more than a few hundred bytes per call means something keeps each call alive past the scavenge
// that should free it (docs/performance.md, "The gateway's garbage"). `--node-flags` are given to
// the gateway's node (e.g. "--allocation-site-pretenuring" to compare with V8's default).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from './lib/load.mjs';
import { ECHO_CALL, headers } from './lib/requests.mjs';

const argv = process.argv.slice(2);
const str = (name, d) => {
  const a = argv.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? d : a.slice(name.length + 3);
};
const root = str('root', dirname(dirname(fileURLToPath(import.meta.url))));
const runs = Number(str('runs', 3));
const duration = Number(str('duration', 6));
const connections = Number(str('connections', 32));
const nodeFlags = str('node-flags', '').split(' ').filter(Boolean);
const CLI = join(root, 'dist/cli/main.js');
const MODULE = join(root, 'bench/servers/echo.mjs');
const CALL = ECHO_CALL.replace('"name":"echo"', '"name":"b_echo"');

/** A CLI process; resolves once it prints the URL it listens on. `trace` collects its stdout. */
function cli(args, execArgv, trace) {
  const child = spawn(process.execPath, [...execArgv, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (chunk) => {
      out += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    };
    child.stdout.on('data', (c) => {
      if (trace) trace.text += c;
      look(c);
    });
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`mcpkit ${args[0]} exited (${code}) before listening:\n${out.slice(-2000)}`)));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Sums a field over the scavenges (`gc=s`) of a --trace-gc-nvp text. */
function scavenges(text) {
  const lines = text.split('\n').filter((l) => / gc=s /.test(l));
  const sum = (field) => lines.reduce((a, l) => a + Number(new RegExp(` ${field}=([\\d.]+)`).exec(l)?.[1] ?? 0), 0);
  return { count: lines.length, allocated: sum('allocated'), promoted: sum('promoted'), pauseMs: sum('pause') };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-gateway-gc-'));
const rows = [];
try {
  for (let i = 0; i < runs; i++) {
    const trace = { text: '' };
    const backend = await cli(['serve', MODULE, '--stateless', '--json-response', '--port', '0'], []);
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { b: { url: `http://127.0.0.1:${backend.port}/mcp` } } }));
    const gateway = await cli(
      ['gateway', '--config', file, '--stateless', '--json-response', '--port', '0', '--no-watch'],
      ['--trace-gc-nvp', ...nodeFlags],
      trace,
    );
    try {
      await load({ port: gateway.port, body: CALL, headers: headers(), connections, duration: 4 });
      trace.text = '';
      const r = await load({ port: gateway.port, body: CALL, headers: headers(), connections, duration });
      if (r.non2xx || r.errors || r.timeouts) throw new Error(`${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      const s = scavenges(trace.text);
      rows.push({
        rps: r.rps,
        calls: r.ok,
        scavenges: s.count,
        allocated: s.allocated / r.ok,
        promoted: s.promoted / r.ok,
        pauseUs: (s.pauseMs * 1000) / r.ok,
      });
    } finally {
      gateway.child.kill();
      backend.child.kill();
    }
  }
  const m = (f) => median(rows.map(f));
  console.log(
    `${runs} runs of ${duration} s, ${connections} connections, node ${process.version}${nodeFlags.length ? `, gateway node flags ${nodeFlags.join(' ')}` : ''}\n`,
  );
  console.log('| run | req/s | scavenges | allocated B/call | promoted B/call | scavenge µs/call |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [i, r] of rows.entries())
    console.log(`| ${i + 1} | ${r.rps.toFixed(0)} | ${r.scavenges} | ${r.allocated.toFixed(0)} | ${r.promoted.toFixed(0)} | ${r.pauseUs.toFixed(1)} |`);
  console.log(
    `| median | ${m((r) => r.rps).toFixed(0)} | ${m((r) => r.scavenges)} | ${m((r) => r.allocated).toFixed(0)} | ${m((r) => r.promoted).toFixed(0)} | ${m((r) => r.pauseUs).toFixed(1)} |`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
