// The conformance "everything server" (conformance/server.ts) served by toFetchHandler on Bun's or
// Deno's own HTTP server, for `npm run conformance -- --server-only --runtime bun|deno`. Prints
// the same "listening on" line as the Node server, which the runner waits for.
import { createConformanceServer } from '../../../conformance/server.js';
import { toFetchHandler } from '../../../src/entries/http.js';

type Handler = (request: Request) => Promise<Response>;
declare const Bun: { serve(o: { hostname: string; port: number; idleTimeout: number; fetch: Handler }): { port: number } } | undefined;
declare const Deno: { serve(o: { hostname: string; port: number; onListen(addr: { port: number }): void }, handler: Handler): unknown } | undefined;

const handler = toFetchHandler(createConformanceServer());
const say = (port: number) => console.log(`mcpkit conformance server listening on http://127.0.0.1:${port}/mcp`);
if (typeof Bun !== 'undefined') {
  // idleTimeout 0: Bun's default 10 s would cut the quiet SSE streams some scenarios hold open.
  say(Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: handler }).port);
} else if (typeof Deno !== 'undefined') {
  Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => say(port) }, handler);
} else {
  throw new Error('run this with bun or deno');
}
