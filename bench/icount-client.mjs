#!/usr/bin/env node
// Instructions per tools/call of mcpkit's HTTP client, counted by valgrind (callgrind), over real
// sockets: the client runs in its own process against the mcpkit server of bench/servers/http.mjs
// (`mcpkit json`) in another, 32 calls in flight on keep-alive connections. Like icount-http.mjs
// the measured process gets M, then 2M calls after the same warm-up and (I(2M) − I(M)) ÷ M is
// one call's cost in that process, node:http (or fetch) included. M defaults to 4,000 (not
// icount-http's 2,000): V8 still compiles a few functions of node:http's client between the
// 5,000th and 6,000th call, which M = 2,000 would count as ~50k instructions per call. `--side=both` (the default)
// also counts the server process answering the same calls from the same client, so the two
// figures can be set side by side.
//
//   node bench/icount-client.mjs [--side=client|server|both] [--era=modern|handshake] [--fetch]
//                                [--impl=mcpkit|bare|socket] [--m=2000] [--warm=16000] [--root=DIR]
//
// --impl=bare replaces mcpkit's client by a bare node:http one (keep-alive agent, the same
// request bytes, JSON.parse of the answer): the floor of any client on node:http.
// --impl=socket goes below node:http: HTTP/1.1 written and read by hand on keep-alive sockets.
// --fetch makes the client use the global fetch (the path every runtime but Node takes, and the
// one Node takes when a `fetch` option is given); --root measures another checkout's build (its
// dist/ and bench/servers/http.mjs).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
// The server children sample nothing on a timer (lib/child-stats.mjs): only per-call work is counted.
process.env.BENCH_RSS_SAMPLER = '0';
const value = (name, d) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const here = fileURLToPath(import.meta.url);
const root = value('root', dirname(dirname(here)));
const era = value('era', 'modern');
const useFetch = argv.includes('--fetch');
const impl = value('impl', 'mcpkit');
const bare = impl === 'bare' || impl === 'socket';
const CONCURRENCY = 32;
// The same deterministic V8 settings as bench/icount.mjs (ICOUNT_FLAGS replaces them, as there).
const V8_FLAGS = (
  process.env.ICOUNT_FLAGS ?? '--predictable --hash-seed=1 --random-seed=1 --min-semi-space-size=16 --max-semi-space-size=16 --initial-old-space-size=512'
)
  .split(' ')
  .filter(Boolean);

if (value('child')) {
  // The client: connect, warm up, make exactly `n` measured calls, close.
  const url = `http://127.0.0.1:${value('port')}/mcp`;
  const { call, close } = impl === 'socket' ? await socketClient(url) : bare ? await bareClient(url) : await mcpkitClient(url);
  const drive = async (n) => {
    let left = n;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) {
          const r = await call();
          if (r.content?.[0]?.text !== 'hello') throw new Error(`unexpected answer ${JSON.stringify(r)}`);
        }
      }),
    );
  };
  await drive(Number(value('warm')));
  await drive(Number(value('n')));
  await close();
  process.exit(0);
}

async function mcpkitClient(url) {
  const { connect } = await import(pathToFileURL(join(root, 'dist/entries/client.js')).href);
  const client = await connect(useFetch ? { url, fetch: globalThis.fetch } : url, { era, name: 'bench', version: '1.0.0', requestTimeoutMs: 600_000 });
  return { call: () => client.callTool('echo', { message: 'hello' }), close: () => client.close() };
}

/**
 * The floor: node:http with a keep-alive agent, POSTing the bytes the mcpkit client sends for
 * the call in the chosen era (request ids counting up) and parsing the JSON answer, with no MCP
 * library. What any client on node:http pays per call.
 */
async function bareClient(url) {
  const http = await import('node:http');
  const { MODERN, MODERN_CALL, PROTOCOL, ECHO_CALL } = await import(pathToFileURL(join(root, 'bench/lib/requests.mjs')).href);
  const modern = era === 'modern';
  const template = JSON.parse(modern ? MODERN_CALL : ECHO_CALL);
  const agent = new http.Agent({ keepAlive: true });
  const { hostname, port, pathname } = new URL(url);
  let nextId = 1;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': modern ? MODERN : PROTOCOL,
    ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'echo' } : {}),
  };
  const call = () =>
    new Promise((resolve, reject) => {
      template.id = nextId++;
      const req = http.request({ hostname, port, path: pathname, method: 'POST', headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString()).result);
          } catch (err) {
            reject(err);
          }
        });
      });
      req.on('error', reject);
      req.end(JSON.stringify(template));
    });
  return { call, close: async () => agent.destroy() };
}

/**
 * Below node:http: HTTP/1.1 written and read on keep-alive sockets by hand (one socket per call in
 * flight, the request as one string, the answer's head scanned for Content-Length). What a client
 * pays when node:http's request and response objects are left out.
 */
async function socketClient(url) {
  const net = await import('node:net');
  const { MODERN, MODERN_CALL, PROTOCOL, ECHO_CALL } = await import(pathToFileURL(join(root, 'bench/lib/requests.mjs')).href);
  const modern = era === 'modern';
  const template = JSON.parse(modern ? MODERN_CALL : ECHO_CALL);
  const { hostname, port, pathname, host } = new URL(url);
  let nextId = 1;
  const head = `POST ${pathname} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: ${modern ? MODERN : PROTOCOL}\r\n${modern ? 'mcp-method: tools/call\r\nmcp-name: echo\r\n' : ''}`;
  const idle = [];
  const open = () =>
    new Promise((resolve, reject) => {
      const s = net.connect({ host: hostname, port: Number(port) }, () => resolve(s));
      s.setNoDelay(true);
      s.once('error', reject);
    });
  const call = async () => {
    const s = idle.pop() ?? (await open());
    template.id = nextId++;
    const body = JSON.stringify(template);
    return new Promise((resolve, reject) => {
      let buf = '';
      const onData = (chunk) => {
        buf += chunk.toString('latin1');
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const m = /content-length: *(\d+)/i.exec(buf.slice(0, end));
        if (!m) return reject(new Error('no content-length'));
        const len = Number(m[1]);
        if (buf.length - end - 4 < len) return;
        s.off('data', onData);
        idle.push(s);
        try {
          resolve(JSON.parse(Buffer.from(buf.slice(end + 4, end + 4 + len), 'latin1').toString('utf8')).result);
        } catch (err) {
          reject(err);
        }
      };
      s.on('data', onData);
      s.write(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  };
  return {
    call,
    close: async () => {
      for (const s of idle) s.destroy();
    },
  };
}

const side = value('side', 'both');
const m = Number(value('m', 4000));
const warm = Number(value('warm', 16000));
if (!['client', 'server', 'both'].includes(side)) throw new Error(`--side must be client, server or both (got ${side})`);
if (!['modern', 'handshake'].includes(era)) throw new Error(`--era must be modern or handshake (got ${era})`);

const valgrind = (out) => ['-q', '--tool=callgrind', `--callgrind-out-file=${out}`, '--dump-instr=no', process.execPath, ...V8_FLAGS];

function startServer(underValgrind, out) {
  const script = join(root, 'bench/servers/http.mjs');
  const child = underValgrind
    ? spawn('valgrind', [...valgrind(out), script, 'mcpkit', 'json'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    : spawn(process.execPath, [script, 'mcpkit', 'json'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = new Promise((resolve, reject) => {
    child.on('message', (msg) => msg?.type === 'ready' && resolve(msg.port));
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before it was ready`)));
  });
  const stop = () => {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.send({ type: 'exit' }); // a normal exit, so callgrind writes its totals
    return exited;
  };
  return { ready, stop };
}

function runClient(port, n, underValgrind, out) {
  const args = [
    here,
    '--child=1',
    `--root=${root}`,
    `--port=${port}`,
    `--era=${era}`,
    `--impl=${impl}`,
    `--warm=${warm}`,
    `--n=${n}`,
    ...(useFetch ? ['--fetch'] : []),
  ];
  const child = underValgrind
    ? spawn('valgrind', [...valgrind(out), ...args], { stdio: ['ignore', 'inherit', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited with ${code}`)))));
}

const summary = (file) => {
  const total = /summary:\s+(\d+)/.exec(readFileSync(file, 'utf8'));
  if (!total) throw new Error('callgrind wrote no summary');
  return Number(total[1]);
};

/** Total instructions of the measured process (client or server) over a run of `n` calls. */
async function count(which, n) {
  const dir = mkdtempSync(join(os.tmpdir(), 'icount-client-'));
  const out = join(dir, 'out');
  try {
    const server = startServer(which === 'server', out);
    try {
      await runClient(await server.ready, n, which === 'client', out);
    } finally {
      await server.stop();
    }
    // ICOUNT_KEEP=FILE keeps the counted process's callgrind output (FILE.client.4000 ...).
    if (process.env.ICOUNT_KEEP) copyFileSync(out, `${process.env.ICOUNT_KEEP}.${which}.${n}`);
    return summary(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const path = impl === 'socket' ? 'raw sockets' : bare ? 'bare node:http' : useFetch ? 'fetch' : 'default';
for (const which of side === 'both' ? ['client', 'server'] : [side]) {
  const a = await count(which, m);
  const b = await count(which, 2 * m);
  console.log(
    `${which} (${era} era, client: ${path}): ${((b - a) / m).toFixed(0)} instructions per tools/call, whole ${which} process (root ${root}; I(${m}) ${a}, I(${2 * m}) ${b})`,
  );
}
