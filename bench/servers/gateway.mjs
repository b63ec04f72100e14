// The gateway under test, in its own process: `node gateway.mjs [--policy] <backend>`, where
// <backend> is the port of the mcpkit bench server of servers/http.mjs, or `stdio:PATH` for a
// stdio server (servers/stdio.mjs, run as `node PATH mcpkit`). One backend `b` behind
// mcpkit/gateway, served statelessly with JSON answers, as servers/http.mjs serves mcpkit in its
// `json` mode; tells the parent its port over IPC. `--policy`: API keys (the callers send
// `Authorization: Bearer bench-key-1`), visibility rules and a rate limit far above the load, as
// the policy section of docs/gateway.md configures them (lib/policy.mjs). BENCH_LANE_ERA (set by
// icount-gateway.mjs --lane-era) pins the era the gateway speaks to an HTTP backend.
import { createGateway, createPolicy } from 'mcpkit/gateway';
import { installStats } from '../lib/child-stats.mjs';
import { BENCH_POLICY } from '../lib/policy.mjs';

const args = process.argv.slice(2);
const withPolicy = args.includes('--policy');
const [backend] = args.filter((a) => !a.startsWith('--'));
const def = backend.startsWith('stdio:')
  ? { command: process.execPath, args: [backend.slice('stdio:'.length), 'mcpkit'] }
  : { url: `http://127.0.0.1:${backend}/mcp`, ...(process.env.BENCH_LANE_ERA ? { era: process.env.BENCH_LANE_ERA } : {}) };
const policy = withPolicy ? createPolicy(BENCH_POLICY) : undefined;
// A long request timeout: a backend counted under valgrind on a busy machine answers slowly.
const gateway = createGateway({ servers: { b: def }, requestTimeoutMs: 600_000, ...(policy ? { policy } : {}) });
const running = await gateway.listen({ port: 0, stateful: false, responseMode: 'json', ...(policy ? policy.front : {}) });
await gateway.ready;
installStats(() => gateway.close());
process.send?.({ type: 'ready', port: running.port, pid: process.pid });
