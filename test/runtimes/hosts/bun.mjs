// bun test/runtimes/hosts/bun.mjs: the matrix server on Bun.serve.
import { createApp } from '../app.mjs';

const app = createApp();
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  // Bun's default 10 s idle timeout would cut a quiet SSE stream; 0 turns it off.
  idleTimeout: 0,
  fetch: (request, srv) => app(request, { remoteAddress: srv.requestIP(request)?.address }),
});
console.log(`listening on http://127.0.0.1:${server.port}`);
