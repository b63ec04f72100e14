#!/usr/bin/env node
// Instructions per forwarded tools/call in the gateway's process and in its backend's, counted by
// valgrind (callgrind) over real sockets: a bare node:http load (32 calls in flight, keep-alive)
// calls `b_echo` on mcpkit/gateway (servers/gateway.mjs), which forwards it to the mcpkit server
// of servers/http.mjs (`mcpkit json`), or to servers/stdio.mjs over stdio. The measured process
// runs under callgrind and gets M, then 2M calls after the same warm-up; (I(2M) − I(M)) ÷ M is
// one call's cost in that process, node:http's parsing and socket handling included. `--side=both`
// (the default) counts the gateway, then the backend answering the same calls through it, so the
// issue's "gateway CPU per forwarded call ≤ 2× the backend's" can be read in instructions, which
// a busy machine does not disturb. Compare bench/icount-http.mjs (the backend loaded directly).
//
//   node bench/icount-gateway.mjs [--side=gateway|backend|both] [--backend=http|stdio] [--policy]
//                                 [--m=4000] [--warm=16000] [--root=DIR] [--impl=mcpkit|bare|lean|relay] [--lane-era=handshake|modern] [--window]
//
// --impl=bare counts the bare node:http forwarder (servers/bare-gateway.mjs) in the gateway's
// place, --impl=lean the lean forwarder (servers/lean-forwarder.mjs), --impl=relay the TCP relay
// (servers/tcp-relay.mjs): the floors bench/gateway.mjs also
// runs (http backend, no policy). --lane-era=handshake has the gateway speak the handshake era to
// its backend (`era` in its config; by default it probes and speaks 2026-07-28 to an mcpkit server).
// --policy: the gateway runs with API keys, visibility rules and a rate limit (servers/gateway.mjs).
// --backend=stdio counts the gateway only (the backend is its child).
// --window counts in one process instead of two: valgrind starts with counting off, and
// callgrind_control turns it on for the M calls after the warm-up and off again, so what is read
// is the steady state only. The default's two processes differ in more than M calls (how many calls
// shared an event-loop turn, when code was optimised), which moved its reading by ±10k per call.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepAliveDriver } from './lib/keepalive-driver.mjs';

const argv = process.argv.slice(2);
// The server children sample nothing on a timer (lib/child-stats.mjs): only per-call work is counted.
process.env.BENCH_RSS_SAMPLER = '0';
const value = (name, d) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const root = value('root', dirname(dirname(fileURLToPath(import.meta.url))));
const m = Number(value('m', 4000));
const warm = Number(value('warm', 16000));
const side = value('side', 'both');
const backendKind = value('backend', 'http');
const policy = argv.includes('--policy');
const windowed = argv.includes('--window');
const impl = value('impl', 'mcpkit');
if (!['mcpkit', 'bare', 'lean', 'relay'].includes(impl)) throw new Error(`--impl must be mcpkit, bare, lean or relay (got ${impl})`);
if (impl !== 'mcpkit' && (policy || backendKind !== 'http')) throw new Error(`--impl=${impl} forwards to an http backend without a policy`);
const GATEWAY_SCRIPT = { mcpkit: 'gateway', bare: 'bare-gateway', lean: 'lean-forwarder', relay: 'tcp-relay' }[impl];
const laneEra = value('lane-era', undefined);
if (laneEra !== undefined && !['handshake', 'modern'].includes(laneEra)) throw new Error(`--lane-era must be handshake or modern (got ${laneEra})`);
// Read by servers/gateway.mjs (the gateway child inherits it).
if (laneEra !== undefined) process.env.BENCH_LANE_ERA = laneEra;
const FLOOR_NAME = { bare: 'bare forwarder', lean: 'lean forwarder', relay: 'TCP relay' }[impl];
if (!['gateway', 'backend', 'both'].includes(side)) throw new Error(`--side must be gateway, backend or both (got ${side})`);
if (!['http', 'stdio'].includes(backendKind)) throw new Error(`--backend must be http or stdio (got ${backendKind})`);
if (backendKind === 'stdio' && side !== 'gateway') throw new Error('--backend=stdio counts the gateway only: add --side=gateway');
const V8_FLAGS = (
  process.env.ICOUNT_FLAGS ?? '--predictable --hash-seed=1 --random-seed=1 --min-semi-space-size=16 --max-semi-space-size=16 --initial-old-space-size=512'
)
  .split(' ')
  .filter(Boolean);

const R = await import(join(root, 'bench/lib/requests.mjs'));
const body = R.ECHO_CALL.replace('"name":"echo"', '"name":"b_echo"');
const headers = { ...R.headers(policy ? { authorization: 'Bearer bench-key-1' } : {}), 'content-length': String(Buffer.byteLength(body)) };
const { drive, close: closeDriver } = keepAliveDriver(headers, body);

/** A server child (optionally under callgrind writing to `out`): its port once it is ready, and a way to stop it. */
function start(script, args, out) {
  const child = out
    ? spawn(
        'valgrind',
        [
          '-q',
          '--tool=callgrind',
          ...(windowed ? ['--instr-atstart=no'] : []),
          `--callgrind-out-file=${out}`,
          '--dump-instr=no',
          process.execPath,
          ...V8_FLAGS,
          script,
          ...args,
        ],
        {
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        },
      )
    : spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = new Promise((resolve, reject) => {
    child.on('message', (msg) => msg?.type === 'ready' && resolve(msg.port));
    child.on('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
  const stop = () => {
    if (child.exitCode !== null) return Promise.resolve();
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.send({ type: 'exit' }); // a normal exit, so callgrind writes its totals
    return exited;
  };
  /** Turns valgrind's counting on or off in the child (--window). */
  const counting = (on) => execFileSync('callgrind_control', ['-i', on ? 'on' : 'off', String(child.pid)], { stdio: 'ignore' });
  return { ready, stop, counting };
}

async function count(which, n) {
  const dir = mkdtempSync(join(os.tmpdir(), 'icount-gateway-'));
  const out = join(dir, 'out');
  const gatewayArgs = (target) => [...(policy ? ['--policy'] : []), target];
  try {
    let backend;
    let target;
    if (backendKind === 'http') {
      backend = start(join(root, 'bench/servers/http.mjs'), ['mcpkit', 'json'], which === 'backend' ? out : undefined);
      target = String(await backend.ready);
    } else target = `stdio:${join(root, 'bench/servers/stdio.mjs')}`;
    const gateway = start(join(root, `bench/servers/${GATEWAY_SCRIPT}.mjs`), gatewayArgs(target), which === 'gateway' ? out : undefined);
    const counted = which === 'gateway' ? gateway : backend;
    try {
      const port = await gateway.ready;
      await drive(port, warm);
      if (windowed) counted.counting(true);
      await drive(port, n);
      if (windowed) counted.counting(false);
    } finally {
      await gateway.stop();
      await backend?.stop();
    }
    // With counting turned on and off, `summary` stays 0 and `totals` holds the window's count.
    const total = (windowed ? /totals:\s+(\d+)/ : /summary:\s+(\d+)/).exec(readFileSync(out, 'utf8'));
    if (!total) throw new Error('callgrind wrote no summary');
    // ICOUNT_KEEP=FILE keeps the counted process's callgrind output (to read with callgrind_annotate).
    if (process.env.ICOUNT_KEEP) copyFileSync(out, `${process.env.ICOUNT_KEEP}.${which}`);
    return Number(total[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const which of side === 'both' ? ['gateway', 'backend'] : [side]) {
  const a = windowed ? 0 : await count(which, m);
  const b = windowed ? await count(which, m) : await count(which, 2 * m);
  const how = windowed ? `${m} calls counted after ${warm}` : `I(${m}) ${a}, I(${2 * m}) ${b}`;
  console.log(
    `${which}${impl === 'mcpkit' ? '' : ` of the ${FLOOR_NAME}`} (${backendKind} backend${policy ? ', policy on' : ''}${laneEra ? `, ${laneEra} lane` : ''}): ${((b - a) / m).toFixed(0)} instructions per forwarded tools/call, whole ${which} process (root ${root}; ${how})`,
  );
}
closeDriver();
