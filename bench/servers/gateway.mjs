// The gateway under test, in its own process: `node gateway.mjs <backend port>`. One backend (the
// mcpkit bench server of servers/http.mjs) behind mcpkit/gateway, served statelessly with JSON
// answers, as servers/http.mjs serves mcpkit in its `json` mode; tells the parent its port over IPC.
import { createGateway } from 'mcpkit/gateway';
import { installStats } from '../lib/child-stats.mjs';

const [backendPort] = process.argv.slice(2);
const gateway = createGateway({ servers: { b: { url: `http://127.0.0.1:${backendPort}/mcp` } } });
const running = await gateway.listen({ port: 0, stateful: false, responseMode: 'json' });
await gateway.ready;
installStats(() => gateway.close());
process.send?.({ type: 'ready', port: running.port, pid: process.pid });
