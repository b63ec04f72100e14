/** The authorization server on node:http, like `serve()` for an MCP server. */
import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostnameOf, isLoopbackHost } from '../http/security.js';
import { NodeExchange, timeoutOptions, type ServeOptions } from '../node.js';
import { guardedGet } from './cimd-fetch.js';
import { installGuardedGet } from './cimd-get.js';
import { sendJson } from './http.js';
import type { AuthorizationServerOptions } from './options.js';
import { AuthorizationServer } from './server.js';

// Metadata documents are fetched with the address pinned, which only node:http can do: wherever
// this module loads (the mcpkit/oauth-server entry loads it), the authorization server fetches them.
installGuardedGet(guardedGet);

export interface ServeAuthorizationServerOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** As `serve()`'s: a client slower to send its headers gets 408 and is disconnected. Default 20 s; 0: no limit. */
  headersTimeoutMs?: ServeOptions['headersTimeoutMs'];
  /** As `serve()`'s: a client slower to send its whole request gets 408 and is disconnected. Default 60 s; 0: no limit. */
  bodyTimeoutMs?: ServeOptions['bodyTimeoutMs'];
}

export interface RunningAuthorizationServer {
  /** The issuer: the configured one, else `http://<host>:<port>`. */
  issuer: string;
  port: number;
  server: AuthorizationServer;
  httpServer: NodeHttpServer;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` and serves the authorization server (anything else is 404). Bound to
 * loopback without a configured issuer, it answers only loopback Host headers: the issuer is
 * then taken from the Host header, which a DNS-rebinding page could otherwise choose.
 */
export async function serveAuthorizationServer(
  server: AuthorizationServer | AuthorizationServerOptions,
  options: ServeAuthorizationServerOptions = {},
): Promise<RunningAuthorizationServer> {
  const as = server instanceof AuthorizationServer ? server : new AuthorizationServer(server);
  const host = options.host ?? '127.0.0.1';
  const guardHost = as.issuer === undefined && isLoopbackHost(host);
  // Slow clients are cut as `serve()` cuts them: node's defaults would hold a trickled body for 300 s.
  const httpServer = createServer(timeoutOptions(options), (req, res) => {
    const exchange = new NodeExchange(req, res);
    if (guardHost && !isLoopbackHost(hostnameOf(req.headers.host ?? ''))) {
      return sendJson(exchange, 421, { error: 'invalid_request', error_description: 'this server answers loopback host names only' });
    }
    as.handle(exchange, exchange).then(
      (handled) => {
        if (!handled) exchange.send(404, { 'content-type': 'text/plain' }, 'Not Found');
      },
      () => exchange.send(500, { 'content-type': 'text/plain' }, 'Internal Server Error'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 3000, host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    issuer: as.issuer ?? `http://${shownHost}:${port}`,
    port,
    server: as,
    httpServer,
    async close() {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
