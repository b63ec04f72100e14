// The authorization server the official MCP conformance suite's `authorization` command runs its
// scenarios against (authorization-server-metadata-endpoint, authorization-code-grant). It uses
// only mcpkit's public API, in a test configuration: every sign-in is approved automatically, and
// a public client `conformance` is pre-registered that may be sent back to any loopback port
// (the suite's callback server is http://127.0.0.1:<port>/callback).
//
//   node --import tsx conformance/authorization-server.ts --port 3200   →  issuer http://127.0.0.1:3200
//
// Prints `mcpkit authorization server listening on <issuer>` once it accepts connections.
import { autoApprove, createAuthorizationServer, serveAuthorizationServer } from '../src/entries/oauth-server.js';

function portArg(argv: readonly string[]): number {
  const i = argv.indexOf('--port');
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--port='))?.slice('--port='.length);
  if (raw === undefined) return 3200;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port: a port number (0 picks a free one), not ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return port;
}

const port = portArg(process.argv.slice(2));
// The issuer must be known before listening when a port is given; with port 0 it comes from the Host header.
const issuer = port === 0 ? undefined : `http://127.0.0.1:${port}`;
const server = createAuthorizationServer({
  issuer,
  login: autoApprove('conformance-user'),
  clients: [{ client_id: 'conformance', redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'], token_endpoint_auth_method: 'none' }],
  // The suite's client metadata documents and test resources are not on the network.
  clientIdMetadata: { allowInsecure: true },
});
const running = await serveAuthorizationServer(server, { port, host: '127.0.0.1' });
console.log(`mcpkit authorization server listening on ${running.issuer}`);

const stop = () => {
  running.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
