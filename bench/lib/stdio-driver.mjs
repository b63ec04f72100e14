// A raw newline-delimited JSON-RPC driver for stdio servers: the same client for every server,
// so the comparison is the servers' cost alone.
import { INITIALIZE, INITIALIZED } from './requests.mjs';

export class LineDriver {
  constructor(child) {
    this.child = child;
    this.pending = new Map();
    this.nextId = 1;
    let buf = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const msg = JSON.parse(line);
        const p = this.pending.get(msg.id);
        if (p) {
          this.pending.delete(msg.id);
          p(msg);
        }
      }
    });
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  async initialize() {
    const init = JSON.parse(INITIALIZE);
    const res = await this.request('initialize', init.params);
    if (!res.result) throw new Error(`initialize failed: ${JSON.stringify(res)}`);
    this.child.stdin.write(INITIALIZED + '\n');
  }

  /** `inflight` requests kept outstanding for `seconds`; returns calls/s and latencies. */
  async run({ inflight, seconds }) {
    return closedLoop(
      () =>
        this.request('tools/call', { name: 'echo', arguments: { message: 'hello' } }).then((r) => {
          if (r.result?.content?.[0]?.text !== 'hello') throw new Error(`bad answer: ${JSON.stringify(r)}`);
        }),
      { inflight, seconds },
    );
  }
}

/** Runs `call` in a closed loop with `inflight` outstanding calls for `seconds`. */
export async function closedLoop(call, { inflight, seconds }) {
  const lat = [];
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await call(done);
      lat.push(performance.now() - t0);
      done++;
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  const elapsed = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))] ?? NaN;
  return { ok: done, seconds: elapsed, rps: done / elapsed, p50: pct(50), p99: pct(99), non2xx: 0, errors: 0, timeouts: 0 };
}
