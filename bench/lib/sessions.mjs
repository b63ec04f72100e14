// Creates and deletes stateful sessions the way a client does: POST initialize (the response
// carries Mcp-Session-Id), then POST notifications/initialized; DELETE to end. Raw node:http with
// keep-alive, `concurrency` at a time.
import http from 'node:http';
import { headers, INITIALIZE, INITIALIZED } from './requests.mjs';

function post(agent, port, hdrs, body, method = 'POST') {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/mcp', method, agent, headers: { ...hdrs, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function pool(n, concurrency, task) {
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      try {
        await task(i);
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return failures;
}

export async function createSessions(port, n, concurrency = 32) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const ids = [];
  const t0 = performance.now();
  const failures = await pool(n, concurrency, async () => {
    const res = await post(agent, port, headers(), INITIALIZE);
    const sid = res.headers['mcp-session-id'];
    if (res.statusCode !== 200 || !sid) throw new Error(`initialize: ${res.statusCode}`);
    const r2 = await post(agent, port, headers({ 'mcp-session-id': sid }), INITIALIZED);
    if (r2.statusCode !== 202) throw new Error(`initialized: ${r2.statusCode}`);
    ids.push(sid);
  });
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return { ids, seconds, failures };
}

export async function deleteSessions(port, ids, concurrency = 32) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const t0 = performance.now();
  const failures = await pool(ids.length, concurrency, async (i) => {
    const res = await post(agent, port, headers({ 'mcp-session-id': ids[i] }), undefined, 'DELETE');
    if (res.statusCode !== 200) throw new Error(`DELETE: ${res.statusCode}`);
  });
  agent.destroy();
  return { seconds: (performance.now() - t0) / 1000, failures };
}
