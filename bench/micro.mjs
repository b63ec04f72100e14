// In-process cost of mcpkit's HTTP core per request, without sockets or a load generator:
// McpHttpHandler.handle() driven with a minimal request view and responder (the same
// interfaces the node:http adapter fills). CPU time per request is measured with
// process.cpuUsage, so it is far less sensitive to a busy machine than the load tests.
// The floor is what the bare server does in JS: JSON.parse the body, JSON.stringify a result.
//
//   node bench/micro.mjs [--quick] [--case=floor|json|sse|tools50|modern|stateful|stdio|client|client-handshake]
//   node --cpu-prof --cpu-prof-dir=/tmp/p bench/micro.mjs --case=json   (a profile without kernel noise)
//   (also part of the suite: npm run bench -- --only=micro)
//   BENCH_OTEL=api|sdk node bench/micro.mjs ...   (the server with mcpkit/otel installed: over the
//   bare @opentelemetry/api, which records nothing, or over an SDK that samples every span and
//   drops it unexported; icount.mjs passes the environment through)
import { z } from 'zod';
import { McpServer } from 'mcpkit';
import { McpHttpHandler } from 'mcpkit/http';
import { StdioServerTransport } from 'mcpkit/stdio';
import { McpClient } from 'mcpkit/client';
import { PassThrough } from 'node:stream';
import { TOOLS, callResultText } from './servers/tools.mjs';
import * as R from './lib/requests.mjs';

function view(method, headers, body) {
  return {
    method,
    path: '/mcp',
    query: '',
    header: (n) => headers[n],
    remoteAddress: '127.0.0.1',
    readBody: () => Promise.resolve(body),
  };
}

function responder(done) {
  return {
    send(status, headers, body) {
      done({ status, headers, body });
    },
    stream(status, headers) {
      let text = '';
      return {
        write: (c) => ((text += c), true),
        end: () => done({ status, headers, body: text }),
        closed: false,
        onClose() {},
      };
    },
    onAbort() {},
  };
}

const extensions = await otelExtensions(process.env.BENCH_OTEL);

async function otelExtensions(mode) {
  if (mode === undefined || mode === '') return [];
  const { otel } = await import('mcpkit/otel');
  if (mode === 'api') return [otel()];
  const { BasicTracerProvider, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics');
  const drop = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  class Reader extends MetricReader {
    async onShutdown() {}
    async onForceFlush() {}
  }
  return [
    otel({
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(drop)] }),
      meterProvider: new MeterProvider({ readers: [new Reader()] }),
    }),
  ];
}

function makeServer(withTools) {
  const server = new McpServer({ name: 'bench', version: '1.0.0', extensions });
  server.tool('echo', { input: { message: z.string() } }, ({ message }) => message);
  if (withTools) for (const t of TOOLS) server.tool(t.name, { description: t.description, input: t.shape }, (args) => callResultText(t.name, args));
  return server;
}

async function measure(label, one, { n, concurrency, quick }) {
  // warm-up, then the measured loop
  for (let i = 0; i < (quick ? 10_000 : 20_000); i += concurrency) await Promise.all(Array.from({ length: concurrency }, (_, k) => one(i + k)));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i += concurrency) await Promise.all(Array.from({ length: concurrency }, (_, k) => one(i + k)));
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { label, n, cpuUsPerReq: (c.user + c.system) / n, wallUsPerReq: (wall * 1000) / n, perSecond: n / (wall / 1000) };
}

const CASES = ['floor', 'json', 'sse', 'tools50', 'modern', 'stateful', 'stdio', 'client', 'client-handshake'];

const check = (want) => (r) => {
  if (r.status !== 200 || !r.body.includes(want)) throw new Error(`unexpected answer ${r.status} ${r.body}`);
};
const run = (h, method, headers, body, want) => () =>
  new Promise((resolve, reject) => {
    h.handle(view(method, headers, body), responder(resolve)).catch(reject);
  }).then(check(want));

/** One case: its label, a function running request number i, and a teardown. */
async function setup(key) {
  const handler = (tools, responseMode, stateful = false) =>
    new McpHttpHandler(makeServer(tools), { stateful, responseMode, eventStore: false, legacySse: false });
  switch (key) {
    case 'floor':
      // What bare node:http does in JS besides node's own HTTP work.
      return {
        label: 'floor: JSON.parse + JSON.stringify',
        one: async () => {
          const msg = JSON.parse(R.ECHO_CALL);
          return JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: msg.params.arguments.message }] } });
        },
        close: async () => {},
      };
    case 'json': {
      const h = handler(false, 'json');
      return { label: 'mcpkit stateless JSON (echo)', one: run(h, 'POST', R.headers(), R.ECHO_CALL, '"hello"'), close: () => h.close() };
    }
    case 'sse': {
      const h = handler(false, 'sse');
      return { label: 'mcpkit stateless SSE (echo)', one: run(h, 'POST', R.headers(), R.ECHO_CALL, '"hello"'), close: () => h.close() };
    }
    case 'tools50': {
      const h = handler(true, 'json');
      return {
        label: 'mcpkit stateless JSON, 50 tools (realistic call)',
        one: run(h, 'POST', R.headers(), R.TOOLS50_CALL, 'found 3 issues'),
        close: () => h.close(),
      };
    }
    case 'modern': {
      const h = handler(false, 'json');
      return { label: 'mcpkit 2026-07-28 (echo)', one: run(h, 'POST', R.MODERN_HEADERS, R.MODERN_CALL, '"hello"'), close: () => h.close() };
    }
    case 'stateful': {
      // 64 sessions, requests spread over them, unique ids.
      const st = handler(false, 'json', true);
      const sids = [];
      for (let i = 0; i < 64; i++) {
        const r = await new Promise((resolve) => st.handle(view('POST', R.headers(), R.INITIALIZE), responder(resolve)));
        const sid = r.headers['mcp-session-id'];
        await new Promise((resolve) => st.handle(view('POST', R.headers({ 'mcp-session-id': sid }), R.INITIALIZED), responder(resolve)));
        sids.push(sid);
      }
      const stHeaders = sids.map((sid) => R.headers({ 'mcp-session-id': sid }));
      let id = 0;
      return {
        label: 'mcpkit stateful, 64 sessions (echo)',
        one: (i) => run(st, 'POST', stHeaders[i % 64], R.ECHO_CALL.replace('"id":1', `"id":${++id}`), '"hello"')(),
        close: () => st.close(),
      };
    }
    case 'stdio': {
      // The stdio server over in-memory pipes: requests arrive 32 to a chunk (as from a client
      // with 32 in flight), each `one` waits for its own response line.
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const server = makeServer(false);
      const session = await server.connect(new StdioServerTransport({ stdin, stdout }));
      const waiting = new Map();
      let buf = '';
      stdout.setEncoding('utf8');
      stdout.on('data', (chunk) => {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const id = JSON.parse(line).id;
          const done = waiting.get(id);
          if (!done) continue; // initialize's answer
          if (!line.includes('"hello"')) throw new Error(`unexpected answer ${line}`);
          waiting.delete(id);
          done();
        }
      });
      await new Promise((resolve) => {
        stdout.once('data', resolve);
        stdin.write(R.INITIALIZE + '\n');
      });
      stdin.write(R.INITIALIZED + '\n');
      let id = 0;
      let batch = '';
      let scheduled = false;
      return {
        label: 'mcpkit stdio server, 32 in a chunk (echo)',
        one: () =>
          new Promise((resolve) => {
            const n = ++id;
            waiting.set(n, resolve);
            batch += R.ECHO_CALL.replace('"id":1', `"id":${n}`) + '\n';
            if (!scheduled) {
              scheduled = true;
              queueMicrotask(() => {
                scheduled = false;
                const b = batch;
                batch = '';
                // 32 lines per chunk, as a pipe would deliver them
                const lines = b.split('\n').filter(Boolean);
                for (let i = 0; i < lines.length; i += 32) stdin.write(lines.slice(i, i + 32).join('\n') + '\n');
              });
            }
          }),
        close: () => session.close(),
      };
    }
    case 'client':
    case 'client-handshake': {
      // mcpkit's client and server in one process, joined by in-memory pipes through the stdio
      // line transports: the CPU of both ends per callTool, encoding and decoding included (an
      // in-memory transport would hand objects over and skip JSON).
      const toServer = new PassThrough();
      const toClient = new PassThrough();
      const server = makeServer(false);
      const session = await server.connect(new StdioServerTransport({ stdin: toServer, stdout: toClient }));
      const era = key === 'client' ? 'modern' : 'handshake';
      const client = new McpClient({ name: 'bench', version: '1.0.0', era });
      await client.connect(new StdioServerTransport({ stdin: toClient, stdout: toServer }));
      return {
        label: `mcpkit client + server, in-memory stdio (${era})`,
        one: () =>
          client.callTool('echo', { message: 'hello' }).then((r) => {
            if (r.content?.[0]?.text !== 'hello') throw new Error(`unexpected answer ${JSON.stringify(r)}`);
          }),
        close: async () => {
          await client.close();
          await session.close();
        },
      };
    }
    default:
      throw new Error(`unknown case ${key} (known: ${CASES.join(', ')})`);
  }
}

/** Runs `count` requests, `concurrency` at a time. */
async function drive(one, count, concurrency, from = 0) {
  for (let i = 0; i < count; i += concurrency) {
    const k = Math.min(concurrency, count - i);
    await Promise.all(Array.from({ length: k }, (_, j) => one(from + i + j)));
  }
}

/** For bench/icount.mjs: a warm-up, then exactly `n` requests, 128 at a time. */
export async function runFixed(key, warm, n) {
  const c = await setup(key);
  await drive(c.one, warm, 128);
  await drive(c.one, n, 128, warm);
  await c.close();
}

export async function micro({ quick = false, only } = {}) {
  const n = quick ? 20_000 : 200_000;
  const results = [];
  for (const key of CASES) {
    if (only && only !== key) continue;
    const c = await setup(key);
    results.push(await measure(c.label, c.one, { n, concurrency: 128, quick }));
    await c.close();
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv.find((a) => a.startsWith('--case='))?.split('=')[1];
  const res = await micro({ quick: process.argv.includes('--quick'), only });
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(res));
    process.exit(0);
  }
  for (const r of res)
    console.log(`${r.label.padEnd(52)} ${r.cpuUsPerReq.toFixed(2).padStart(8)} µs CPU/req  ${r.perSecond.toFixed(0).padStart(8)} req/s (one core)`);
}
