// The matrix server as a workerd (Cloudflare Workers) module, bundled by esbuild for the
// browser platform (no Node built-ins, no nodejs_compat flag) by scripts/runtimes.mjs.
//
// Handshake-era sessions live in memory, and a Worker's requests may each land on another
// isolate: so every request that may belong to a session goes to one Durable Object, the one
// place that is the same for all of them. 2026-07-28 requests are stateless and stay in the
// Worker, served by handlers built at the module's top level, as Workers usually are.
import { toFetchHandler } from '../../../dist/entries/http.js';
import { buildServer, createApp } from '../app.mjs';

// A 2026-07-28 handler run kept waiting for input cannot be resumed by its retry here: workerd
// cancels a continuation that crosses from one request's context into another's (the retry then
// hangs). With suspend off, every retry replays the handler from the top, as on another instance.
const OPTIONS = { modern: { suspend: false } };

export class McpSessions {
  app = createApp(OPTIONS);
  fetch(request) {
    return this.app(request);
  }
}

const modern = toFetchHandler(buildServer(OPTIONS), { stateful: false });
const stateless = toFetchHandler(buildServer(OPTIONS), { stateful: false, endpoint: '/stateless' });

export default {
  fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (path === '/stateless') return stateless(request);
    if (path === '/mcp' && request.headers.get('mcp-protocol-version') !== '2026-07-28') {
      return env.SESSIONS.get(env.SESSIONS.idFromName('sessions')).fetch(request);
    }
    return modern(request);
  },
};
