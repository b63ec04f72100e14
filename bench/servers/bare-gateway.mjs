// The floor for a JSON-RPC gateway hop on this machine (bench/gateway.mjs, row "bare forwarder"):
// node:http in front, node:http's keep-alive client behind, no MCP library. Each POST's body is
// parsed, the tool's name has its `b_` prefix taken off and the call is sent on to the backend at
// argv[2]; the backend's JSON answer is parsed and sent back with the caller's id. That is the
// least any gateway that reads what it routes does per call (two parses, two serialisations, a
// server exchange and a client exchange), so its throughput says what share of direct the issue's
// ">= 0.5 of direct" leaves for everything else on these cores.
//   node bench/servers/bare-gateway.mjs http://127.0.0.1:PORT/mcp
import { Agent, createServer, request } from 'node:http';
import { floorTarget, listenFloor } from '../lib/floor.mjs';

const target = floorTarget(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const PREFIX = 'b_';

function readAll(stream, done) {
  const chunks = [];
  stream.on('data', (c) => chunks.push(c));
  stream.on('end', () => done(chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString()));
}

function answer(res, status, payload) {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') return answer(res, 405, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'POST only' } });
  readAll(req, (text) => {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return answer(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const name = msg.params?.name;
    if (msg.method !== 'tools/call' || typeof name !== 'string' || !name.startsWith(PREFIX)) {
      return answer(res, 200, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32601, message: 'Only tools/call of b_* is forwarded' } });
    }
    const out = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...msg.params, name: name.slice(PREFIX.length) } });
    const up = request(
      target,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': req.headers['mcp-protocol-version'] ?? '2025-11-25',
          'content-length': Buffer.byteLength(out),
        },
      },
      (upRes) =>
        readAll(upRes, (body) => {
          const reply = JSON.parse(body);
          answer(res, 200, reply.error ? { jsonrpc: '2.0', id: msg.id, error: reply.error } : { jsonrpc: '2.0', id: msg.id, result: reply.result });
        }),
    );
    up.on('error', (e) => answer(res, 502, { jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: `backend: ${e.message}` } }));
    up.end(out);
  });
});

listenFloor(server, 'bare forwarder');
