// One raw HTTP exchange of the doctor: the status, headers and body exactly as they came (a
// client transport would turn most of them into an error message), the JSON-RPC answer found in
// a JSON body or an SSE stream, timed on the doctor's clock, never following a redirect.
import type { JsonObject, JsonRpcErrorObject, JsonRpcMessage } from '../../jsonrpc/messages.js';
import { readSseStream } from '../../transports/http/sse.js';
import type { Walk } from './walk.js';

export const ACCEPT = 'application/json, text/event-stream';
/** How much of a body is read when it is not an answer (an HTML page, an error text). */
const BODY_KEEP = 8192;

export interface Posted {
  kind: 'answered';
  status: number;
  statusText: string;
  headers: Headers;
  /** The media type, lower case, no parameters ('' when none). */
  type: string;
  /** When the answer (the JSON-RPC response, or the whole body) arrived, on the doctor's clock. */
  at: number;
  /** The JSON-RPC response to the request (or a null-id JSON-RPC error), when there was one. */
  response?: { result?: JsonObject; error?: JsonRpcErrorObject };
  /** The body as text (its start), for what is not a JSON-RPC answer. */
  text: string;
  /** The body parsed, when it was JSON. */
  json?: unknown;
}

export type HttpOutcome = Posted | { kind: 'timeout' } | { kind: 'aborted' } | { kind: 'network'; error: Error };

export interface Exchange {
  method: 'POST' | 'GET' | 'DELETE' | 'OPTIONS';
  url: URL;
  headers: Record<string, string>;
  message?: JsonRpcMessage;
  /** Announced as a wait (a studio shows it; tests move the clock on it). */
  waiting?: { step: string; method: string };
  /** Wait at most this long (default the context's timeoutMs). */
  timeoutMs?: number;
}

/** Performs one exchange. Never throws. */
export async function exchange(walk: Walk, x: Exchange): Promise<HttpOutcome> {
  const ctl = new AbortController();
  const { ctx } = walk;
  const headers = new Headers(x.headers);
  if (ctx.origin) headers.set('origin', ctx.origin);
  if (x.message) headers.set('content-type', 'application/json');
  const id = x.message && 'id' in x.message ? x.message.id : undefined;
  const run = async (): Promise<HttpOutcome> => {
    let res: Response;
    try {
      res = await ctx.fetch(x.url, {
        method: x.method,
        headers,
        body: x.message ? JSON.stringify(x.message) : undefined,
        redirect: 'manual',
        signal: ctl.signal,
      });
    } catch (err) {
      return { kind: 'network', error: err instanceof Error ? err : new Error(String(err)) };
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const base = { kind: 'answered' as const, status: res.status, statusText: res.statusText, headers: res.headers, type };
    if (type === 'text/event-stream' && res.body && x.method !== 'OPTIONS') {
      let seen = '';
      try {
        for await (const ev of readSseStream(res.body, { signal: ctl.signal })) {
          if (seen.length < BODY_KEEP) seen += `event: ${ev.event}\ndata: ${ev.data}\n\n`;
          const response = ev.event === 'message' ? responseIn(ev.data, id) : undefined;
          // A GET stream (legacy HTTP+SSE) answers nothing: its first event is what counts.
          if (response || x.method === 'GET') {
            ctl.abort();
            return { ...base, at: walk.now(), response, text: seen };
          }
        }
      } catch {
        // A stream cut short: what was seen is the answer.
      }
      return { ...base, at: walk.now(), text: seen };
    }
    const text = await readCapped(res);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { ...base, at: walk.now(), text, json, response: responseIn(json, id) };
  };
  if (x.waiting) ctx.emit({ type: 'waiting', step: x.waiting.step, method: x.waiting.method, slowMs: ctx.slowMs, timeoutMs: x.timeoutMs ?? ctx.timeoutMs });
  const r = await walk.wait(run(), x.timeoutMs ?? ctx.timeoutMs);
  if (r === 'timeout' || r === 'aborted') {
    ctl.abort();
    return { kind: r };
  }
  return r;
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += decoder.decode(r.value, { stream: true });
      if (text.length >= BODY_KEEP) {
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } catch {
    // A body cut short: what arrived is kept.
  }
  return text;
}

/** The JSON-RPC response in a value: the one for `id`, or any JSON-RPC error with a null id. */
function responseIn(v: unknown, id: unknown): Posted['response'] {
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  const list = Array.isArray(v) ? v : [v];
  for (const m of list as Array<Record<string, unknown> | null>) {
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0' || m.method !== undefined) continue;
    if (m.id !== id && m.id !== null) continue;
    if (m.error && typeof m.error === 'object' && typeof (m.error as { code?: unknown }).code === 'number') return { error: m.error as JsonRpcErrorObject };
    if (m.result && typeof m.result === 'object' && m.id === id) return { result: m.result as JsonObject };
  }
  return undefined;
}

/** What a response is, in a few words: "404 Not Found (text/html)". */
export function statusLine(p: Posted): string {
  return `${p.status}${p.statusText ? ` ${p.statusText}` : ''}${p.type ? ` (${p.type})` : ''}`;
}
