#!/usr/bin/env node
// Instructions per `tools/call` through the relay core, at 1 backend and at many, counted by
// valgrind (callgrind) as bench/icount.mjs counts the HTTP core: (I(2M) − I(M)) ÷ M, start-up and
// warm-up cancelling out, so the figures hold on a busy machine. In one process: a front Server
// with the gateway's relay (namespaced names, the allow-all policy) over one lane of N in-memory
// backends of T tools each (build first; it loads dist/), a client on an in-memory pair calling
// `b_echo` of the first backend. The relay's share of a call must not grow with N. A bigger heap
// costs every call a little (young collections), so each case holds the same servers: N in the
// relay's lane, and the rest (to `--total`) connected in a lane of their own that no call uses.
//
//   node bench/relay-icount.mjs [--backends=1,50] [--total=50] [--tools=100] [--m=2000] [--warm=3000]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const value = (name, d) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const here = dirname(fileURLToPath(import.meta.url));
const dist = (p) => pathToFileURL(join(here, '..', 'dist', p)).href;
const V8_FLAGS = '--predictable --hash-seed=1 --random-seed=1 --min-semi-space-size=16 --max-semi-space-size=16 --initial-old-space-size=512'.split(' ');

if (value('child')) {
  const backends = Number(value('backends'));
  const total = Math.max(backends, Number(value('total')));
  const tools = Number(value('tools'));
  const { McpServer } = await import(dist('server/mcp-server.js'));
  const { Server } = await import(dist('server/server.js'));
  const { createLinkedPair } = await import(dist('transports/memory/index.js'));
  const { McpClient } = await import(dist('client/client.js'));
  const { Lane } = await import(dist('gateway/relay/lane.js'));
  const { namespaced } = await import(dist('gateway/relay/naming.js'));
  const { installRelay } = await import(dist('gateway/relay/relay.js'));
  const { allowAllPolicy } = await import(dist('gateway/allow-all.js'));
  const input = { type: 'object', properties: { message: { type: 'string' } } };
  const naming = namespaced('_');
  const lane = new Lane({ owner: 'shared', naming, pool: { servers: [], era: 'handshake' }, changed: () => {}, updated: () => {} });
  const idle = new Lane({ owner: 'idle', naming, pool: { servers: [], era: 'handshake' }, changed: () => {}, updated: () => {} });
  for (let i = 0; i < total; i++) {
    const backend = new McpServer({ name: `b${i}`, version: '1' });
    backend.tool('echo', { input }, (args) => String(args.message));
    for (let t = 1; t < tools; t++) backend.tool(`tool_${t}`, { input }, () => 'x');
    await (i < backends ? lane : idle).add({
      name: i === 0 ? 'b' : `b${i + 1}`,
      transport: () => {
        const [client, end] = createLinkedPair();
        void backend.connect(end);
        return client;
      },
    });
  }
  const front = new Server({ name: 'relay', version: '1', capabilities: { tools: { listChanged: true } } });
  installRelay(front, { naming, policy: allowAllPolicy(), lanes: () => [lane] });
  const [clientEnd, serverEnd] = createLinkedPair();
  void front.connect(serverEnd);
  const client = new McpClient({ name: 'bench', version: '1', era: 'handshake' });
  await client.connect(clientEnd);
  const call = () => client.callTool('b_echo', { message: 'hello' });
  for (let i = 0; i < Number(value('warm')); i++) await call();
  for (let i = 0; i < Number(value('n')); i++) await call();
  process.exit(0);
}

const m = Number(value('m', 2000));
const warm = Number(value('warm', 3000));
const tools = Number(value('tools', 100));
const total = Number(value('total', 50));

function count(backends, n) {
  const dir = mkdtempSync(join(os.tmpdir(), 'icount-relay-'));
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
        `--backends=${backends}`,
        `--tools=${tools}`,
        `--total=${total}`,
        `--warm=${warm}`,
        `--n=${n}`,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    const summary = /summary:\s+(\d+)/.exec(readFileSync(join(dir, 'out'), 'utf8'));
    if (r.status !== 0 || !summary) throw new Error(`valgrind failed (${r.status}): ${r.stderr.slice(-2000)}`);
    return Number(summary[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const backends of value('backends', '1,50').split(',').map(Number)) {
  const a = count(backends, m);
  const b = count(backends, 2 * m);
  console.log(
    `${backends} of ${Math.max(backends, total)} backends × ${tools} tools in the lane: ${((b - a) / m).toFixed(0)} instructions per tools/call through the relay (I(${m}) ${a}, I(${2 * m}) ${b})`,
  );
}
