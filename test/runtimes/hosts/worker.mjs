// The matrix server as a workerd (Cloudflare Workers) module, bundled by esbuild for the
// browser platform (no Node built-ins, no nodejs_compat flag) by scripts/runtimes.mjs.
//
// Handshake-era sessions live in memory, and a Worker's requests may each land on another
// isolate: so every request that may belong to a session goes to one Durable Object, the one
// place that is the same for all of them. 2026-07-28 requests are stateless and stay in the
// Worker, served by handlers built at the module's top level, as Workers usually are.
import { toFetchHandler } from '../../../dist/entries/http.js';
import { buildServer, createApp, createHonoApp } from '../app.mjs';

// No options on purpose: on Workers the server keeps no handler run waiting for input by default
// (workerd cancels a continuation that crosses into another request's context), so the MRTR check
// here proves that default; each retry replays the handler, as on another instance.
const OPTIONS = {};

// Built while the module loads, the one time workerd lets ajv generate its validators: a Durable
// Object's constructor already runs inside a request. Each isolate that hosts the object loads
// this module, so the object gets its own copy.
const sessions = createApp(OPTIONS);

export class McpSessions {
  fetch(request) {
    return sessions(request);
  }
}

const modern = toFetchHandler(buildServer(OPTIONS), { stateful: false });
const stateless = toFetchHandler(buildServer(OPTIONS), { stateful: false, endpoint: '/stateless' });
const hono = createHonoApp(OPTIONS, { stateful: false });

export default {
  fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (path === '/stateless') return stateless(request);
    if ((path === '/mcp' || path === '/hono/mcp') && request.headers.get('mcp-protocol-version') !== '2026-07-28') {
      return env.SESSIONS.get(env.SESSIONS.idFromName('sessions')).fetch(request);
    }
    if (path.startsWith('/hono/')) return hono(request);
    return modern(request);
  },
};
