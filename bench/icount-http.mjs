#!/usr/bin/env node
// Instructions per request of one HTTP server process over real sockets, counted by valgrind
// (callgrind): the server of bench/servers/http.mjs runs under callgrind and gets M, then 2M
// requests (32 in flight, keep-alive) after the same warm-up; (I(2M) − I(M)) ÷ M is what one
// request costs in that process, node:http's parsing and socket handling included, which
// bench/icount.mjs (in-process, no sockets) leaves out. Repeatable on a busy machine.
//
//   node bench/icount-http.mjs [--impl=mcpkit|bare|sdk1|sdk2] [--mode=json|sse|modern] [--m=2000] [--warm=16000] [--root=DIR]
//
// --root measures another checkout's build (its bench/servers/http.mjs and dist/).
// The warm-up is long because TurboFan still optimises hot functions after 4,000 requests: with
// --warm=4000 the window held ~20k instructions per request of compiler work (2026-11-29), which
// read as a regression of the server; --trace-opt shows the last ones before ~8,000.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepAliveDriver } from './lib/keepalive-driver.mjs';

const argv = process.argv.slice(2);
// The server children sample nothing on a timer (lib/child-stats.mjs): only per-call work is counted.
process.env.BENCH_RSS_SAMPLER = '0';
const value = (name, d) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const root = value('root', dirname(dirname(fileURLToPath(import.meta.url))));
const impl = value('impl', 'mcpkit');
const mode = value('mode', 'json');
const m = Number(value('m', 2000));
const warm = Number(value('warm', 16000));
if (!['json', 'sse', 'modern'].includes(mode)) throw new Error(`--mode must be json, sse or modern (got ${mode})`);
// The same deterministic V8 settings as bench/icount.mjs.
const V8_FLAGS = '--predictable --hash-seed=1 --random-seed=1 --min-semi-space-size=16 --max-semi-space-size=16 --initial-old-space-size=512'.split(' ');

const R = await import(join(root, 'bench/lib/requests.mjs'));
const modern = mode === 'modern';
const body = modern ? R.MODERN_CALL : R.ECHO_CALL;
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': modern ? R.MODERN : R.PROTOCOL,
  'content-length': String(Buffer.byteLength(body)),
  ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'echo' } : {}),
};
const { drive, close: closeDriver } = keepAliveDriver(headers, body);

async function count(n) {
  const dir = mkdtempSync(join(os.tmpdir(), 'icount-http-'));
  try {
    const child = spawn(
      'valgrind',
      [
        '-q',
        '--tool=callgrind',
        `--callgrind-out-file=${join(dir, 'out')}`,
        '--dump-instr=no',
        process.execPath,
        ...V8_FLAGS,
        join(root, 'bench/servers/http.mjs'),
        impl,
        mode,
      ],
      { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
    );
    const port = await new Promise((resolve, reject) => {
      child.on('message', (msg) => msg?.type === 'ready' && resolve(msg.port));
      child.on('exit', (code) => reject(new Error(`server exited (${code}) before it was ready`)));
    });
    await drive(port, warm);
    await drive(port, n);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.send({ type: 'exit' }); // a normal exit, so callgrind writes its totals
    await exited;
    const total = /summary:\s+(\d+)/.exec(readFileSync(join(dir, 'out'), 'utf8'));
    if (!total) throw new Error('callgrind wrote no summary');
    return Number(total[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const a = await count(m);
const b = await count(2 * m);
closeDriver();
console.log(`${impl} ${mode}: ${((b - a) / m).toFixed(0)} instructions per request, whole server process (root ${root}; I(${m}) ${a}, I(${2 * m}) ${b})`);
