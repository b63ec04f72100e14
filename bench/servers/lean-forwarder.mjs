// What a gateway hop could cost on HTTP/1.1 of its own at both ends (bench/gateway.mjs, row "lean
// forwarder"): node:net in front and behind, requests and answers framed here by Content-Length
// only, no node:http. Each call's body is parsed, the `b_` prefix taken off the tool's name, the
// call sent on over a backend connection paired with the client's, the answer parsed and sent back
// with the caller's id: the same JSON work as servers/bare-gateway.mjs, without node:http's
// objects and streams. A measuring stick for an HTTP front of mcpkit's own, not a server: no
// chunked bodies, no header limits or timeouts, no pipelining beyond one request at a time.
//   node bench/servers/lean-forwarder.mjs http://127.0.0.1:PORT/mcp | PORT
import { connect, createServer } from 'node:net';
import { floorTarget, listenFloor, pair } from '../lib/floor.mjs';

const target = floorTarget(process.argv[2]);
const PREFIX = 'b_';
const HEAD_END = Buffer.from('\r\n\r\n');

/** Frames messages by Content-Length on a socket: calls `onMessage(head, body)` for each. */
function framer(onMessage) {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf(HEAD_END);
      if (end < 0) return;
      const head = buf.toString('latin1', 0, end);
      const m = /\r\ncontent-length: *(\d+)/i.exec(head);
      const length = m ? Number(m[1]) : 0;
      if (buf.length < end + 4 + length) return;
      const body = buf.toString('utf8', end + 4, end + 4 + length);
      buf = buf.subarray(end + 4 + length);
      onMessage(head, body);
    }
  };
}

function reply(socket, status, payload) {
  const body = JSON.stringify(payload);
  socket.write(
    `HTTP/1.1 ${status} ${status === 200 ? 'OK' : 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`,
  );
}

const server = createServer((client) => {
  const backend = connect({ host: target.hostname, port: Number(target.port) });
  pair(client, backend);
  let waiting; // the caller's id of the call on the backend connection
  backend.on(
    'data',
    framer((_head, body) => {
      const answer = JSON.parse(body);
      const id = waiting;
      waiting = undefined;
      reply(client, 200, answer.error ? { jsonrpc: '2.0', id, error: answer.error } : { jsonrpc: '2.0', id, result: answer.result });
    }),
  );
  client.on(
    'data',
    framer((head, text) => {
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        return reply(client, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      const name = msg.params?.name;
      if (!head.startsWith('POST ') || msg.method !== 'tools/call' || typeof name !== 'string' || !name.startsWith(PREFIX)) {
        return reply(client, 200, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32601, message: 'Only tools/call of b_* is forwarded' } });
      }
      const version = /\r\nmcp-protocol-version: *([^\r]+)/i.exec(head)?.[1] ?? '2025-11-25';
      const out = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...msg.params, name: name.slice(PREFIX.length) } });
      waiting = msg.id;
      backend.write(
        `POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: ${version}\r\ncontent-length: ${Buffer.byteLength(out)}\r\n\r\n${out}`,
      );
    }),
  );
});

listenFloor(server, 'lean forwarder');
