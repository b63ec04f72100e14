// The load generator: autocannon's programmatic API, in the parent process.
import autocannon from 'autocannon';

/**
 * Runs one load test. `requests` (optional) is an autocannon request list cycled by every
 * connection (used to spread load across sessions).
 */
export function load({ port, body, headers, requests, connections, duration, idReplacement = false }) {
  return new Promise((resolve, reject) => {
    const opts = {
      url: `http://127.0.0.1:${port}/mcp`,
      method: 'POST',
      connections,
      duration,
      pipelining: 1,
      timeout: 30,
      idReplacement,
      headers,
      body,
    };
    if (requests) opts.requests = requests;
    const inst = autocannon(opts, (err, res) => {
      if (err) return reject(err);
      const ok = res['2xx'];
      const seconds = res.duration; // measured by autocannon
      resolve({
        ok,
        non2xx: res.non2xx,
        errors: res.errors,
        timeouts: res.timeouts,
        seconds,
        rps: ok / seconds,
        p50: res.latency.p50,
        p99: res.latency.p99,
        max: res.latency.max,
        mean: res.latency.mean,
      });
    });
    inst.on('error', reject);
  });
}
