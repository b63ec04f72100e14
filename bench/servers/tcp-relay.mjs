// The absolute floor of a hop on this machine (bench/gateway.mjs, row "TCP relay"): each client
// connection gets its own connection to the backend at argv[2] and the bytes are copied both ways
// (a read and a write per direction), no HTTP parsing, no JSON. The one change is made in place,
// same length: `"name":"b_echo"` becomes `"name":  "echo"` (JSON allows the spaces), so the backend
// answers the same call as the gateways'. Only a benchmark could get away with this: a request
// split across two reads at that spot would reach the backend unchanged.
//   node bench/servers/tcp-relay.mjs http://127.0.0.1:PORT/mcp
import { connect, createServer } from 'node:net';
import { floorTarget, listenFloor, pair } from '../lib/floor.mjs';

const target = floorTarget(process.argv[2]);
const FROM = Buffer.from('"name":"b_echo"');
const TO = Buffer.from('"name":  "echo"');

const server = createServer((client) => {
  const backend = connect({ host: target.hostname, port: Number(target.port) });
  pair(client, backend);
  client.on('data', (chunk) => {
    const at = chunk.indexOf(FROM);
    if (at >= 0) TO.copy(chunk, at);
    backend.write(chunk);
  });
  backend.on('data', (chunk) => client.write(chunk));
});

listenFloor(server, 'TCP relay');
