#!/usr/bin/env node
// Instructions per request of mcpkit's HTTP core, counted by valgrind (callgrind), for A/B
// comparisons that hold on a busy machine: wall-clock and CPU time move with the load, instruction
// counts barely do. Runs the in-process harness of micro.mjs twice under callgrind, with M and
// 2M measured requests after the same warm-up, and reports (I(2M) − I(M)) ÷ M: start-up, JIT
// warm-up and teardown cancel out.
//
//   node bench/icount.mjs [--case=json|sse|tools50|modern|stateful|stdio|client|client-handshake] [--m=3000] [--warm=8000] [--root=DIR]
//
// --root runs the copy of mcpkit in DIR (its bench/micro.mjs and dist/), e.g. a checkout of the
// previous commit built to compare against. V8 runs single-threaded (--single-threaded) so that
// background compilation and GC threads do not add noise.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const value = (name, d) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const here = dirname(fileURLToPath(import.meta.url));
// Deterministic V8: no background threads, no time-based heuristics, fixed seeds, a fixed young
// generation (scavenges at the same points in every run) and an old generation large enough that
// no mark-compact falls into the window (one would add ~50k instructions per request, or not, by
// chance). Scavenges stay: young garbage is a real per-request cost.
const V8_FLAGS = (
  process.env.ICOUNT_FLAGS ?? '--predictable --hash-seed=1 --random-seed=1 --min-semi-space-size=16 --max-semi-space-size=16 --initial-old-space-size=512'
)
  .split(' ')
  .filter(Boolean);

if (value('child')) {
  // Inside valgrind: warm up, then run exactly `n` measured requests.
  const { runFixed } = await import(join(value('root', dirname(here)), 'bench/micro.mjs'));
  await runFixed(value('case', 'json'), Number(value('warm')), Number(value('n')));
  process.exit(0);
}

const root = value('root', dirname(here));
const kase = value('case', 'json');
const m = Number(value('m', 3000));
const warm = Number(value('warm', 8000));

function count(n) {
  const dir = mkdtempSync(join(os.tmpdir(), 'icount-'));
  try {
    const r = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${join(dir, 'out')}`,
        '--dump-instr=no',
        '--compress-strings=no',
        process.execPath,
        ...V8_FLAGS,
        fileURLToPath(import.meta.url),
        '--child=1',
        `--root=${root}`,
        `--case=${kase}`,
        `--warm=${warm}`,
        `--n=${n}`,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    const total = /summary:\s+(\d+)/.exec(readFileSync(join(dir, 'out'), 'utf8'));
    if (r.status !== 0 || !total) throw new Error(`valgrind failed (${r.status}): ${r.stderr.slice(-2000)}`);
    return Number(total[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const a = count(m);
const b = count(2 * m);
console.log(`${kase}: ${((b - a) / m).toFixed(0)} instructions per request (root ${root}; I(${m}) ${a}, I(${2 * m}) ${b})`);
