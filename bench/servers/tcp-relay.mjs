// The absolute floor of a hop on this machine (bench/gateway.mjs, row "TCP relay"): each client
// connection gets its own connection to the backend at argv[2] and the bytes are copied both ways
// (a read and a write per direction), no HTTP parsing, no JSON. The one change is made in place,
// same length: `"name":"b_echo"` becomes `"name":  "echo"` (JSON allows the spaces), so the backend
// answers the same call as the gateways'. Only a benchmark could get away with this: a request
// split across two reads at that spot would reach the backend unchanged.
//   node bench/servers/tcp-relay.mjs http://127.0.0.1:PORT/mcp
import { connect, createServer } from 'node:net';

// A URL, or a port on 127.0.0.1 (as bench/icount-gateway.mjs passes it).
const target = new URL(/^\d+$/.test(process.argv[2]) ? `http://127.0.0.1:${process.argv[2]}/mcp` : process.argv[2]);
const FROM = Buffer.from('"name":"b_echo"');
const TO = Buffer.from('"name":  "echo"');

const server = createServer((client) => {
  client.setNoDelay(true);
  const backend = connect({ host: target.hostname, port: Number(target.port) });
  backend.setNoDelay(true);
  client.on('data', (chunk) => {
    const at = chunk.indexOf(FROM);
    if (at >= 0) TO.copy(chunk, at);
    backend.write(chunk);
  });
  backend.on('data', (chunk) => client.write(chunk));
  const end = () => {
    client.destroy();
    backend.destroy();
  };
  client.on('close', end);
  backend.on('close', end);
  client.on('error', end);
  backend.on('error', end);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) {
    process.send({ type: 'ready', port, pid: process.pid });
    // bench/icount-gateway.mjs asks for a normal exit, so callgrind writes its totals.
    process.on('message', (m) => m?.type === 'exit' && process.exit(0));
  } else console.log(`TCP relay listening on http://127.0.0.1:${port}/mcp`);
});
