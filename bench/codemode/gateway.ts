// What code mode costs through the gateway, side by side in one run: a client calls a backend's
// tool through a plain gateway (one tools/call), and runs programs through a code-mode gateway
// in front of the same backend (run_code making 1 call, and 10 calls in parallel), against 10
// direct calls made in parallel by the client. Both gateways and the backend are mcpkit servers
// over HTTP on loopback in this process; the client is mcpkit's. Rounds alternate between the
// cases; wall ms per client request (p50, p90) and CPU ms of this process per request.
//
//   node --import tsx bench/codemode/gateway.ts [--rounds=200]
import { z } from 'zod';
import { connect } from '../../src/client/connect.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { serve } from '../../src/serving/node.js';
import { McpServer } from '../../src/server/mcp-server.js';

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 200);
const backend = new McpServer({ name: 'inventory', version: '1.0.0' });
backend.tool('stock', { description: 'Units in stock', input: { sku: z.string() }, output: { units: z.number() } }, ({ sku }) => ({
  structuredContent: { units: sku.length },
  content: [{ type: 'text', text: String(sku.length) }],
}));
const running = await serve(backend, { port: 0 });
const plain = createGateway({ servers: { inv: { url: running.url } } });
const code = createGateway({ servers: { inv: { url: running.url } }, codeMode: true });
const plainUrl = (await plain.listen({ port: 0 })).url;
const codeUrl = (await code.listen({ port: 0 })).url;
await Promise.all([plain.ready, code.ready]);
const viaPlain = await connect(plainUrl);
const viaCode = await connect(codeUrl);

const ONE = 'return (await inv.stock({ sku: "A-1" })).units;';
const TEN = 'const r = await Promise.all(Array.from({ length: 10 }, (_, i) => inv.stock({ sku: "A-" + i })));\nreturn r.reduce((n, x) => n + x.units, 0);';
const cases: Record<string, () => Promise<unknown>> = {
  'plain gateway: 1 tools/call': () => viaPlain.callTool('inv_stock', { sku: 'A-1' }),
  'plain gateway: 10 tools/call in parallel': () => Promise.all(Array.from({ length: 10 }, (_, i) => viaPlain.callTool('inv_stock', { sku: `A-${i}` }))),
  'code-mode gateway: run_code, 1 call': async () => {
    const r = await viaCode.callTool('run_code', { code: ONE });
    if (r.isError) throw new Error(JSON.stringify(r.content));
  },
  'code-mode gateway: run_code, 10 calls in parallel': async () => {
    const r = await viaCode.callTool('run_code', { code: TEN });
    if (r.isError) throw new Error(JSON.stringify(r.content));
  },
  'code-mode gateway: search_api': () => viaCode.callTool('search_api', { query: 'units in stock' }),
};

const times = new Map(Object.keys(cases).map((k) => [k, [] as number[]]));
const cpu = new Map(Object.keys(cases).map((k) => [k, 0]));
for (let r = 0; r < rounds / 5; r++) for (const run of Object.values(cases)) await run();
for (let r = 0; r < rounds; r++) {
  for (const [name, run] of Object.entries(cases)) {
    const c = process.cpuUsage();
    const t = performance.now();
    await run();
    times.get(name)!.push(performance.now() - t);
    const u = process.cpuUsage(c);
    cpu.set(name, cpu.get(name)! + (u.user + u.system) / 1000);
  }
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!.toFixed(2);
console.log(`${rounds} rounds after ${rounds / 5} warm-up rounds; ms per client request\n`);
console.log('| request | p50 ms | p90 ms | CPU ms per request (client, gateways, backend: one process) |');
console.log('| --- | --- | --- | --- |');
for (const [name, xs] of times) console.log(`| ${name} | ${pct(xs, 50)} | ${pct(xs, 90)} | ${(cpu.get(name)! / rounds).toFixed(2)} |`);
await Promise.all([viaPlain.close(), viaCode.close()]);
await Promise.all([plain.close(), code.close()]);
await running.close();
process.exit(0);
