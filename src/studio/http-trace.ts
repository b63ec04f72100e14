// The HTTP side of the timeline: each exchange of an HTTP server's transport (the request line and
// headers, the status, headers and latency of the answer, and when an SSE stream ends, with its
// event count), beside the JSON-RPC messages the middleware records. Credentials are masked here,
// before anything reaches the page.
import type { Clock } from '../engine/clock.js';
import type { Timeline } from './timeline.js';

const SECRET = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'dpop']);

function masked(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k] = SECRET.has(k) ? (/^(\w+)\s+\S/.exec(v)?.[1] ?? '') + ' ***' : v;
  });
  return out;
}

function requestLine(input: RequestInfo | URL, init: RequestInit | undefined): { method: string; url: URL; headers: Headers; size: number | undefined } {
  const req = input instanceof Request ? input : undefined;
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const method = (init?.method ?? req?.method ?? 'GET').toUpperCase();
  const headers = new Headers(init?.headers ?? req?.headers);
  const size = typeof init?.body === 'string' ? Buffer.byteLength(init.body) : undefined;
  return { method, url, headers, size };
}

/** A fetch that records `server`'s HTTP exchanges on the timeline; the client reads responses as before. */
export function tracedFetch(server: string, timeline: Timeline, clock: Clock, inner: typeof fetch = globalThis.fetch.bind(globalThis)): typeof fetch {
  const traced = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const { method, url, headers, size } = requestLine(input, init);
    const path = url.pathname + url.search;
    timeline.note(server, 'out', 'http', `${method} ${path}`, {
      method,
      url: url.href,
      headers: masked(headers),
      ...(size !== undefined ? { bodyBytes: size } : {}),
    });
    const started = clock.now();
    let res: Response;
    try {
      res = await inner(input, init);
    } catch (err) {
      timeline.note(server, 'in', 'http', `failed ${method} ${path}`, { error: err instanceof Error ? err.message : String(err) }, clock.now() - started);
      throw err;
    }
    const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream') && res.body !== null;
    timeline.note(
      server,
      'in',
      'http',
      `${res.status} ${method} ${path}`,
      { status: res.status, statusText: res.statusText, headers: masked(res.headers), ...(stream ? { stream: 'text/event-stream' } : {}) },
      clock.now() - started,
    );
    if (!stream || !res.body) return res;
    // The stream's end is worth a line (a listen or a long call closing); its events are messages.
    const [mine, theirs] = res.body.tee();
    void countEvents(mine).then(
      (events) => timeline.note(server, 'in', 'http', `stream closed ${method} ${path}`, { events }, clock.now() - started),
      () => timeline.note(server, 'in', 'http', `stream broken ${method} ${path}`, {}, clock.now() - started),
    );
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return traced as typeof fetch;
}

async function countEvents(body: ReadableStream<Uint8Array>): Promise<number> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let events = 0;
  let tail = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    const text = tail + decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    const parts = text.split('\n\n');
    tail = parts.pop() ?? '';
    events += parts.filter((p) => /^data:/m.test(p)).length;
  }
}
