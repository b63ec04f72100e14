// What the floors of a gateway hop share (servers/bare-gateway.mjs, lean-forwarder.mjs,
// tcp-relay.mjs): the backend from argv, a client connection paired with its backend connection,
// and listening the way bench/gateway.mjs and bench/icount-gateway.mjs start them.

/** The backend: a URL, or a port on 127.0.0.1 (as bench/icount-gateway.mjs passes it). */
export function floorTarget(arg) {
  return new URL(/^\d+$/.test(arg) ? `http://127.0.0.1:${arg}/mcp` : arg);
}

/** A client socket and its own backend socket: no Nagle on either, and either one ending ends both. */
export function pair(client, backend) {
  client.setNoDelay(true);
  backend.setNoDelay(true);
  const end = () => {
    client.destroy();
    backend.destroy();
  };
  for (const s of [client, backend]) {
    s.on('close', end);
    s.on('error', end);
  }
}

/**
 * Listens on a free loopback port. Under a parent (IPC) it reports `ready` with the port and
 * exits normally when asked (so callgrind writes its totals); alone it prints its URL.
 */
export function listenFloor(server, label) {
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    if (process.send) {
      process.send({ type: 'ready', port, pid: process.pid });
      process.on('message', (m) => m?.type === 'exit' && process.exit(0));
    } else console.log(`${label} listening on http://127.0.0.1:${port}/mcp`);
  });
}
