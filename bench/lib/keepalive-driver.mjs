// A fixed number of POSTs of one body to /mcp on 127.0.0.1, 32 in flight on keep-alive sockets,
// each answer checked (200 and the echoed "hello"): the load the valgrind counters
// (icount-http.mjs, icount-gateway.mjs) put on the process they count.
import http from 'node:http';

export function keepAliveDriver(headers, body) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const post = (port) =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => (res.statusCode === 200 && text.includes('hello') ? resolve() : reject(new Error(`unexpected answer ${res.statusCode} ${text}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    /** Sends `n` requests to `port`, 32 at a time. */
    async drive(port, n) {
      let left = n;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (left-- > 0) await post(port);
        }),
      );
    },
    close: () => agent.destroy(),
  };
}
