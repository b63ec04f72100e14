// The matrix server as a workerd (Cloudflare Workers) module, bundled by esbuild for the
// browser platform (no Node built-ins, no nodejs_compat flag) by scripts/runtimes.mjs.
import { createApp } from '../app.mjs';

// A 2026-07-28 handler run kept waiting for input cannot be resumed by its retry here: workerd
// cancels a continuation that crosses from one request's context into another's (the retry then
// hangs). With suspend off, every retry replays the handler from the top, as on another instance.
const app = createApp({ modern: { suspend: false } });
export default {
  fetch: (request) => app(request, { remoteAddress: request.headers.get('cf-connecting-ip') ?? undefined }),
};
