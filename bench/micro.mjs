// In-process cost of mcpkit's HTTP core per request, without sockets or a load generator:
// McpHttpHandler.handle() driven with a minimal request view and responder (the same
// interfaces the node:http adapter fills). CPU time per request is measured with
// process.cpuUsage, so it is far less sensitive to a busy machine than the load tests.
// The floor is what the bare server does in JS: JSON.parse the body, JSON.stringify a result.
//
//   node bench/micro.mjs [--quick] [--case=floor|json|sse|tools50|modern|stateful]
//   node --cpu-prof --cpu-prof-dir=/tmp/p bench/micro.mjs --case=json   (a profile without kernel noise)
//   (also part of the suite: npm run bench -- --only=micro)
import { z } from 'zod';
import { McpServer } from 'mcpkit';
import { McpHttpHandler } from 'mcpkit/http';
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

function makeServer(withTools) {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
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

export async function micro({ quick = false, only } = {}) {
  const n = quick ? 20_000 : 200_000;
  const want = (key) => !only || only === key;
  const concurrency = 128;
  const results = [];
  // The floor: what bare node:http does in JS besides node's own HTTP work.
  if (want('floor')) results.push(
    await measure('floor: JSON.parse + JSON.stringify', async () => {
      const msg = JSON.parse(R.ECHO_CALL);
      return JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: msg.params.arguments.message }] } });
    }, { n, concurrency, quick }),
  );
  const check = (want) => (r) => {
    if (r.status !== 200 || !r.body.includes(want)) throw new Error(`unexpected answer ${r.status} ${r.body}`);
  };
  const run = (h, method, headers, body, want) => () =>
    new Promise((resolve, reject) => {
      h.handle(view(method, headers, body), responder(resolve)).catch(reject);
    }).then(check(want));

  const json = new McpHttpHandler(makeServer(false), { stateful: false, responseMode: 'json', eventStore: false, legacySse: false });
  if (want('json')) results.push(await measure('mcpkit stateless JSON (echo)', run(json, 'POST', R.headers(), R.ECHO_CALL, '"hello"'), { n, concurrency, quick }));
  const sse = new McpHttpHandler(makeServer(false), { stateful: false, responseMode: 'sse', eventStore: false, legacySse: false });
  if (want('sse')) results.push(await measure('mcpkit stateless SSE (echo)', run(sse, 'POST', R.headers(), R.ECHO_CALL, '"hello"'), { n, concurrency, quick }));
  const tools = new McpHttpHandler(makeServer(true), { stateful: false, responseMode: 'json', eventStore: false, legacySse: false });
  if (want('tools50')) results.push(await measure('mcpkit stateless JSON, 50 tools (realistic call)', run(tools, 'POST', R.headers(), R.TOOLS50_CALL, 'found 3 issues'), { n, concurrency, quick }));
  const modern = new McpHttpHandler(makeServer(false), { stateful: false, responseMode: 'json', eventStore: false, legacySse: false });
  if (want('modern')) results.push(await measure('mcpkit 2026-07-28 (echo)', run(modern, 'POST', R.MODERN_HEADERS, R.MODERN_CALL, '"hello"'), { n, concurrency, quick }));

  // Stateful: 64 sessions, requests spread over them, unique ids.
  const st = new McpHttpHandler(makeServer(false), { stateful: true, responseMode: 'json', eventStore: false, legacySse: false });
  const sids = [];
  for (let i = 0; i < 64; i++) {
    const r = await new Promise((resolve) => st.handle(view('POST', R.headers(), R.INITIALIZE), { ...responder(resolve), send: (status, headers, body) => resolve({ status, headers, body }) }));
    const sid = r.headers['mcp-session-id'];
    await new Promise((resolve) => st.handle(view('POST', R.headers({ 'mcp-session-id': sid }), R.INITIALIZED), responder(resolve)));
    sids.push(sid);
  }
  const stHeaders = sids.map((sid) => R.headers({ 'mcp-session-id': sid }));
  let id = 0;
  if (want('stateful')) results.push(
    await measure('mcpkit stateful, 64 sessions (echo)', (i) => run(st, 'POST', stHeaders[i % 64], R.ECHO_CALL.replace('"id":1', `"id":${++id}`), '"hello"')(), { n, concurrency, quick }),
  );
  for (const h of [json, sse, tools, modern, st]) await h.close();
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv.find((a) => a.startsWith('--case='))?.split('=')[1];
  const res = await micro({ quick: process.argv.includes('--quick'), only });
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(res));
    process.exit(0);
  }
  for (const r of res) console.log(`${r.label.padEnd(52)} ${r.cpuUsPerReq.toFixed(2).padStart(8)} µs CPU/req  ${r.perSecond.toFixed(0).padStart(8)} req/s (one core)`);
}
