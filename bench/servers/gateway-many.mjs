// A gateway over many backends, in its own process: `node gateway-many.mjs <port>[,<port>...]`.
// The first backend is `b` (its tool `b_echo` is the one called), the others `b2`, `b3`...; served
// statelessly with JSON answers, as servers/gateway.mjs serves its one backend.
import { createGateway } from 'mcpkit/gateway';
import { installStats } from '../lib/child-stats.mjs';

const ports = process.argv[2].split(',');
const servers = Object.fromEntries(ports.map((port, i) => [i === 0 ? 'b' : `b${i + 1}`, { url: `http://127.0.0.1:${port}/mcp` }]));
const gateway = createGateway({ servers });
const running = await gateway.listen({ port: 0, stateful: false, responseMode: 'json' });
await gateway.ready;
installStats(() => gateway.close());
process.send?.({ type: 'ready', port: running.port, pid: process.pid });
