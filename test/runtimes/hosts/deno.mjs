// deno run --allow-net --allow-read --allow-env test/runtimes/hosts/deno.mjs: the matrix server on Deno.serve.
import { createApp } from '../app.mjs';

const app = createApp();
Deno.serve(
  {
    hostname: '127.0.0.1',
    port: 0,
    onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
  },
  (request, info) => app(request, { remoteAddress: info.remoteAddr.hostname }),
);
